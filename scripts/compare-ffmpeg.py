#!/usr/bin/env python3
"""compare-ffmpeg.py - clvid transcode against `ffmpeg -vf` on the same clip, in
one go: each filter with clvid, the nearest ffmpeg CPU filter on the YUV planes,
the same ffmpeg filter computing clvid's picture (format=RGB,filter,format=yuv420p),
and ffmpeg with no filter at all (the decode + encode ceiling). Same encoder settings everywhere
(libx264 CRF 18 veryfast, audio copied). Prints wall-clock seconds and ratios.

A filter that adds detail (sharpen, prewitt) makes the video costlier to
encode: x264 alone spends longer on a sharpened clip than ffmpeg spends
decoding and encoding the original. So each filter also gets the ceiling of
its own output ("out ceil"): ffmpeg decoding the input (to a null sink) while
encoding clvid's filtered frames, read raw, in one process. That is what
decode + encode cost for that output with free filtering. The same for
ffmpeg's own output separates each tool's filtering cost from its encoding
cost (ffmpeg filters the YUV planes, clvid RGB: the pictures differ).

usage: scripts/compare-ffmpeg.py [--clvid build/clvid] [--input media/sample.mp4]
                                  [--runs 3] [--device N] [--filters median,erode]"""
import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time

# clvid chain, ffmpeg -vf doing the same kind of work on the CPU, and the RGB
# format that filter takes: ffmpeg filters the YUV planes as they come, and
# with format=RGB,filter,format=yuv420p it computes the picture clvid does.
PAIRS = [
    ("sharpen", "convolution=0 -1 0 -1 5 -1 0 -1 0:0 -1 0 -1 5 -1 0 -1 0:"
                "0 -1 0 -1 5 -1 0 -1 0:0 -1 0 -1 5 -1 0 -1 0", "gbrp"),
    ("prewitt", "prewitt", "gbrp"),
    ("median", "median", "gbrp"),
    ("erode", "erosion", "gbrp"),
    ("equalize", "histeq", "rgb24"),
    # the same swscale filter (clvid's are its exact taps, on RGBA)
    ("scale=1280:-2", "scale=1280:-2:flags=bicubic+accurate_rnd", "rgba"),
]
ENCODE = ["-c:v", "libx264", "-preset", "veryfast", "-crf", "18", "-c:a", "copy"]


CPU = {}
BEST = {}


def run_once(cmd):
    """Runs cmd; keeps its best wall-clock seconds in BEST and the CPU
    seconds (user + system) of that run in CPU."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True)
    dt = time.monotonic() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), p.stderr[-2000:]))
    key = " ".join(cmd)
    if key not in BEST or dt < BEST[key]:
        BEST[key] = dt
        CPU[key] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def timed(cmds, runs):
    """Best wall-clock seconds of each command over `runs` rounds, the
    commands taking turns within a round: a shared machine's speed drifts,
    and the turns give every command the same weather."""
    for _ in range(runs):
        for cmd in cmds:
            run_once(cmd)
    return [BEST[" ".join(cmd)] for cmd in cmds]


def cpu(cmd):
    return CPU[" ".join(cmd)]


def main():
    ap = argparse.ArgumentParser()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--clvid", default=os.path.join(root, "build", "clvid"))
    ap.add_argument("--input", default=os.path.join(root, "media", "sample.mp4"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--device")
    ap.add_argument("--filters", help="comma-separated: only these of %s"
                    % ",".join(p[0] for p in PAIRS))
    a = ap.parse_args()
    pairs = PAIRS
    if a.filters:
        wanted = a.filters.split(",")
        unknown = [f for f in wanted if f not in [p[0] for p in PAIRS]]
        if unknown:
            sys.exit("--filters: unknown %s (known: %s)"
                     % (", ".join(unknown), ",".join(p[0] for p in PAIRS)))
        pairs = [p for p in PAIRS if p[0] in wanted]
    out = os.path.join(tempfile.mkdtemp(prefix="clvid-compare-"), "out.mp4")
    dev = ["--device", a.device] if a.device else []
    frames = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v", "-count_packets",
                             "-show_entries", "stream=nb_read_packets", "-of", "csv=p=0",
                             a.input], capture_output=True, text=True).stdout.strip()
    print("input %s (%s frames), best of %d runs, wall-clock seconds" % (a.input, frames,
                                                                        a.runs))
    ceil_cmd = ["ffmpeg", "-v", "error", "-y", "-i", a.input, *ENCODE, out]
    none_cmd = [a.clvid, "transcode", "-q", "-y", "-i", a.input, "-o", out, *dev]
    # start-up: each tool to a one-frame output (clvid's includes loading
    # the OpenCL driver: on PoCL, the dynamic loader relocating its LLVM)
    ceil1_cmd = ["ffmpeg", "-v", "error", "-y", "-i", a.input, "-frames:v", "1", *ENCODE, out]
    none1_cmd = [a.clvid, "transcode", "-q", "-y", "-i", a.input, "--frames", "1", "-o", out,
                 *dev]
    ceiling, none, start_ff, start_cl = timed([ceil_cmd, none_cmd, ceil1_cmd, none1_cmd],
                                              a.runs)
    print("start-up (one frame out, best of %d): clvid %.2f s, ffmpeg %.2f s; last column: "
          "oc/cl with each side's start-up taken out" % (a.runs, start_cl, start_ff))
    cc, cn = cpu(ceil_cmd), cpu(none_cmd)
    print("%-10s %7s %7s %8s %7s %8s %8s %8s %8s | %7s %7s %8s %8s %8s %8s | %8s" % (
        "filter", "clvid", "ffmpeg", "ff/clvid", "ff rgb", "rgb/cl", "ceil/cl", "out ceil",
        "oc/cl", "cpu cl", "cpu ff", "ff/clvid", "stage cl", "filt ff", "ff/cl", "oc/cl-st"))
    row = ("%-10s %7.2f %7.2f %8.2f %7s %8s %8.2f %8.2f %8.2f | %7.2f %7.2f %8.2f %8s %8s "
           "%8s | %8.2f")

    def steady(own, clvid):
        return (own - start_ff) / (clvid - start_cl)

    print(row % ("(none)", none, ceiling, ceiling / none, "", "", ceiling / none, ceiling,
                 ceiling / none, cn, cc, cc / cn, "", "", "", steady(ceiling, none)))

    def own_ceiling(raw):
        """ffmpeg decoding the input (to a null sink) while encoding the
        filtered frames in raw, in one process."""
        return ["ffmpeg", "-v", "error", "-y", "-i", a.input, "-i", raw, "-filter_complex",
                "[0:v]nullsink;[1:v]null[v]", "-map", "[v]", "-map", "0:a?", *ENCODE, out]

    for chain, vf, rgb in pairs:
        c_cmd = [a.clvid, "transcode", "-q", "-y", "-i", a.input, "-vf", chain, "-o", out, *dev]
        f_cmd = ["ffmpeg", "-v", "error", "-y", "-i", a.input, "-vf", vf, *ENCODE, out]
        r_cmd = ["ffmpeg", "-v", "error", "-y", "-i", a.input, "-vf",
                 "format=%s,%s,format=yuv420p" % (rgb, vf), *ENCODE, out]
        # each tool's filtered frames, raw, to time encoding them alone (keys of BEST)
        raw = os.path.join(os.path.dirname(out), "clvid-%s.nut" % chain)
        raw_ff = os.path.join(os.path.dirname(out), "ffmpeg-%s.nut" % chain)
        subprocess.run([a.clvid, "transcode", "-q", "-y", "-i", a.input, "-vf", chain, "-c:v",
                        "rawvideo", "-an", "-o", raw, *dev], check=True)
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", a.input, "-vf", vf, "-c:v",
                        "rawvideo", "-an", raw_ff], check=True)
        o_cmd, fo_cmd = own_ceiling(raw), own_ceiling(raw_ff)
        c, f, o, _, r = timed([c_cmd, f_cmd, o_cmd, fo_cmd, r_cmd], a.runs)
        os.remove(raw)
        os.remove(raw_ff)
        stage = cpu(c_cmd) - cpu(o_cmd)
        filt = cpu(f_cmd) - cpu(fo_cmd)
        print(row % (chain, c, f, f / c, "%.2f" % r, "%.2f" % (r / c), ceiling / c, o, o / c,
                     cpu(c_cmd), cpu(f_cmd),
                     cpu(f_cmd) / cpu(c_cmd), "%.2f" % stage, "%.2f" % filt,
                     "%.2f" % (filt / stage) if stage > 0 else "-", steady(o, c)))
    print("left: wall-clock seconds; right: CPU seconds (user + system), steadier on a shared "
          "machine.\nff/clvid > 1: clvid is faster than ffmpeg's filter on the YUV planes; ff rgb, "
          "rgb/cl: ffmpeg computing clvid's picture (format=RGB,filter,format=yuv420p);\n"
          "ceil/cl >= 0.9: "
          "within 10% of ffmpeg's plain decode + encode;\nout ceil, oc/cl: decoding the input "
          "and encoding clvid's filtered frames (the ceiling for that output).\nstage cl, "
          "filt ff: CPU seconds of each tool's run less those of decoding the input and "
          "encoding its own\nfiltered frames: what the filtering itself cost (clvid: "
          "conversions, transfers and kernels); ff/cl > 1: clvid's is cheaper.\noc/cl-st: oc/cl "
          "less each side's start-up (the time to a one-frame output): the ratio a long "
          "video tends to.")


if __name__ == "__main__":
    main()
