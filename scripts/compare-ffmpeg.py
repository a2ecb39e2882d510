#!/usr/bin/env python3
"""compare-ffmpeg.py - clvid transcode against `ffmpeg -vf` on the same clip, in
one go: each filter with clvid, the nearest ffmpeg CPU filter, and ffmpeg with no
filter at all (the decode + encode ceiling). Same encoder settings everywhere
(libx264 CRF 18 veryfast, audio copied). Prints wall-clock seconds and ratios.

usage: scripts/compare-ffmpeg.py [--clvid build/clvid] [--input media/sample.mp4]
                                  [--runs 2] [--device N]"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

# clvid chain, ffmpeg -vf doing the same kind of work on the CPU
PAIRS = [
    ("sharpen", "convolution=0 -1 0 -1 5 -1 0 -1 0:0 -1 0 -1 5 -1 0 -1 0:"
                "0 -1 0 -1 5 -1 0 -1 0:0 -1 0 -1 5 -1 0 -1 0"),
    ("prewitt", "prewitt"),
    ("median", "median"),
    ("erode", "erosion"),
    ("equalize", "histeq"),
]
ENCODE = ["-c:v", "libx264", "-preset", "veryfast", "-crf", "18", "-c:a", "copy"]


def timed(cmd, runs):
    best = None
    for _ in range(runs):
        t = time.monotonic()
        p = subprocess.run(cmd, capture_output=True, text=True)
        dt = time.monotonic() - t
        if p.returncode != 0:
            sys.exit("failed: %s\n%s" % (" ".join(cmd), p.stderr[-2000:]))
        best = dt if best is None else min(best, dt)
    return best


def main():
    ap = argparse.ArgumentParser()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--clvid", default=os.path.join(root, "build", "clvid"))
    ap.add_argument("--input", default=os.path.join(root, "media", "sample.mp4"))
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--device")
    a = ap.parse_args()
    out = os.path.join(tempfile.mkdtemp(prefix="clvid-compare-"), "out.mp4")
    dev = ["--device", a.device] if a.device else []
    frames = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v", "-count_packets",
                             "-show_entries", "stream=nb_read_packets", "-of", "csv=p=0",
                             a.input], capture_output=True, text=True).stdout.strip()
    print("input %s (%s frames), best of %d runs, wall-clock seconds" % (a.input, frames,
                                                                        a.runs))
    ceiling = timed(["ffmpeg", "-v", "error", "-y", "-i", a.input, *ENCODE, out], a.runs)
    none = timed([a.clvid, "transcode", "-q", "-y", "-i", a.input, "-o", out, *dev], a.runs)
    print("%-10s %9s %9s %14s %14s" % ("filter", "clvid", "ffmpeg", "ffmpeg/clvid",
                                        "ceiling/clvid"))
    print("%-10s %9.2f %9.2f %14.2f %14.2f" % ("(none)", none, ceiling, ceiling / none,
                                                ceiling / none))
    for chain, vf in PAIRS:
        c = timed([a.clvid, "transcode", "-q", "-y", "-i", a.input, "-vf", chain, "-o", out,
                   *dev], a.runs)
        f = timed(["ffmpeg", "-v", "error", "-y", "-i", a.input, "-vf", vf, *ENCODE, out],
                  a.runs)
        print("%-10s %9.2f %9.2f %14.2f %14.2f" % (chain, c, f, f / c, ceiling / c))
    print("ffmpeg/clvid > 1: clvid is faster; ceiling/clvid >= 0.9: within 10% of plain "
          "decode + encode")


if __name__ == "__main__":
    main()
