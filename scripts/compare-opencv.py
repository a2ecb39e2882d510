#!/usr/bin/env python3
"""compare-opencv.py - clvid's kernels against OpenCV's CPU implementations of
the same operations, on frames of the same size already in memory (the
comparison PERF.md quotes). clvid's time is the kernel time from
`clvid-bench --json` on the chosen OpenCL device (PoCL by default here);
OpenCV's is wall time of the call on a random frame, median of several runs,
with the thread count given. On a shared machine the speed drifts, so each
operation is measured in --rounds rounds, clvid and OpenCV back to back, and
each side's best median is kept. A benchmark, not a test.

  python3 scripts/compare-opencv.py [--size 1080p] [--threads 2] [--frames 20]
                                    [--bench build/clvid-bench] [--device N|NAME]
Ratio = OpenCV time / clvid time: above 1, clvid is faster.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SIZES = {"720p": (1280, 720), "1080p": (1920, 1080), "4k": (3840, 2160)}


def opencv_cases(cv2, np):
    """(name, clvid chain, OpenCV call on an RGBA frame, note)."""
    k3 = np.array([[0, -1, 0], [-1, 5, -1], [0, -1, 0]], np.float32)
    k121 = np.array([[1, 2, 1], [2, 4, 2], [1, 2, 1]], np.float32) / 16
    box = np.ones((3, 3), np.uint8)

    def equalize(f):
        gray = cv2.cvtColor(f, cv2.COLOR_RGBA2GRAY)
        eq = cv2.equalizeHist(gray)
        return cv2.cvtColor(eq, cv2.COLOR_GRAY2RGBA)

    def kmeans(f):
        pixels = f[:, :, :3].reshape(-1, 3).astype(np.float32)
        crit = (cv2.TERM_CRITERIA_MAX_ITER, 10, 0)
        _, labels, centres = cv2.kmeans(pixels, 16, None, crit, 1, cv2.KMEANS_RANDOM_CENTERS)
        return centres.astype(np.uint8)[labels.ravel()]

    return [
        ("sharpen 3x3", "sharpen", lambda f: cv2.filter2D(f, -1, k3), "filter2D"),
        ("convolution 1-2-1/16", "convolution=matrix='1 2 1 2 4 2 1 2 1'",
         lambda f: cv2.filter2D(f, -1, k121), "filter2D"),
        ("median 3x3", "median=radius=1", lambda f: cv2.medianBlur(f, 3), "medianBlur"),
        ("median 5x5", "median=radius=2", lambda f: cv2.medianBlur(f, 5), "medianBlur"),
        ("erode 3x3", "erode=radius=1", lambda f: cv2.erode(f, box), "erode"),
        ("equalize gray", "equalize=mode=gray", equalize,
         "cvtColor + equalizeHist + cvtColor"),
        ("quantize 16 x 10", "quantize=colors=16:iterations=10", kmeans,
         "kmeans, 1 attempt, random centres"),
    ]


def clvid_time(args, chain):
    """(median kernel us, device name) from one clvid-bench run."""
    cmd = [args.bench, "--size", args.size, "--frames", str(args.frames), "--json", "--chain",
           chain]
    if args.device:
        cmd += ["--device", args.device]
    p = subprocess.run(cmd, capture_output=True, text=True, check=True)
    data = json.loads(p.stdout)
    return data["filters"][0]["median_us"], data["device"]


def opencv_time(call, frame, runs):
    call(frame)  # warm up
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        call(frame)
        times.append((time.perf_counter() - t) * 1e6)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", default="1080p", choices=sorted(SIZES))
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--frames", type=int, default=20)
    ap.add_argument("--bench", default=os.path.join(HERE, "..", "build", "clvid-bench"))
    ap.add_argument("--device", default=None)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    try:
        import cv2
        import numpy as np
    except ImportError:
        print("needs OpenCV for Python: apt-get install python3-opencv, and run it with Debian's "
              "/usr/bin/python3", file=sys.stderr)
        return 2
    cv2.setNumThreads(args.threads)
    w, h = SIZES[args.size]
    frame = np.random.default_rng(1).integers(0, 256, (h, w, 4), dtype=np.uint8)
    frame[:, :, 3] = 255  # opaque, as decoded video and clvid-bench's frames are
    cases = opencv_cases(cv2, np)
    rows, device = [], None
    for name, chain, call, note in cases:
        runs = 3 if "kmeans" in note else args.frames
        rounds = 1 if "kmeans" in note else args.rounds
        us = theirs = None
        for _ in range(rounds):
            mine, device = clvid_time(args, chain)
            other = opencv_time(call, frame, runs)
            us = mine if us is None else min(us, mine)
            theirs = other if theirs is None else min(theirs, other)
        rows.append((name, us, theirs, note))
    print("%s frames, RGBA; clvid on %s; OpenCV %s with %d threads; best of %d rounds" %
          (args.size, device, cv2.__version__, args.threads, args.rounds))
    print("| operation | clvid us | OpenCV us | OpenCV / clvid | OpenCV call |")
    print("|---|---|---|---|---|")
    for name, us, theirs, note in rows:
        print("| %s | %.0f | %.0f | %.2f | %s |" % (name, us, theirs, theirs / us, note))
    return 0


if __name__ == "__main__":
    sys.exit(main())
