#!/usr/bin/env python3
"""charts.py - draws docs/img/NAME.png from each docs/data/NAME.json (the
figures of docs/performance.md, each with its machine, command and date):
grouped bars, one group a row, one bar a series, a log scale when the
values span more than two decades. Needs Debian's python3-matplotlib.

    python3 scripts/charts.py            # every chart
    python3 scripts/charts.py two-gpus   # one
"""
import glob
import json
import os
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def draw(path):
    with open(path) as f:
        d = json.load(f)
    names = [r[0] for r in d["rows"]]
    series = d["series"]
    values = [[r[1 + i] for r in d["rows"]] for i in range(len(series))]
    flat = [v for s in values for v in s if v > 0]
    fig, ax = plt.subplots(figsize=(9, 4.5), dpi=100)
    width = 0.8 / len(series)
    for i, (label, vals) in enumerate(zip(series, values)):
        xs = [k + (i - (len(series) - 1) / 2) * width for k in range(len(names))]
        bars = ax.bar(xs, vals, width, label=label)
        ax.bar_label(bars, labels=["%g" % v for v in vals], fontsize=7, padding=2)
    if max(flat) / min(flat) > 100:
        ax.set_yscale("log")
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names, rotation=20, ha="right", fontsize=8)
    ax.set_ylabel(d["unit"])
    ax.set_title(d["title"], fontsize=10)
    ax.legend(fontsize=8)
    fig.text(0.01, 0.01, "%s; %s; %s" % (d["machine"], d["command"], d["date"]), fontsize=6,
             color="#555555")
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    out = os.path.join(ROOT, "docs", "img", os.path.basename(path)[:-5] + ".png")
    fig.savefig(out)
    plt.close(fig)
    print("wrote", os.path.relpath(out, ROOT))


def main(argv):
    paths = [os.path.join(ROOT, "docs", "data", a + ".json") for a in argv] or \
        sorted(glob.glob(os.path.join(ROOT, "docs", "data", "*.json")))
    for p in paths:
        draw(p)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
