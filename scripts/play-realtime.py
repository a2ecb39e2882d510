#!/usr/bin/env python3
"""play-realtime.py - does `clvid play` keep up in real time? Plays a 1080p30
version of the bundled sample (30 s, with its sound) once per window preset,
under Xvfb unless DISPLAY is set, and prints frames shown and dropped and the
per-stage milliseconds from the player's --stats. A benchmark, not a test.

  python3 scripts/play-realtime.py [--clvid build/clvid] [--seconds 30] [--presets 1,2,5]
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
NAMES = ["none", "sharpen", "emboss", "prewitt", "median", "threshold+erode", "equalize",
         "noise", "quantize"]


def make_clip(path, seconds, size):
    sample = os.path.join(HERE, "..", "media", "sample.mp4")
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-stream_loop", "-1", "-i", sample, "-t",
                    str(seconds), "-vf", "scale=%s:flags=bicubic" % size, "-c:v", "libx264",
                    "-preset", "veryfast", "-crf", "20", "-c:a", "aac", path], check=True)


def stats(path):
    out = {}
    with open(path) as f:
        for line in f:
            k, _, v = line.rstrip("\n").partition("=")
            out[k] = v
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--clvid", default=os.path.join(HERE, "..", "build", "clvid"))
    ap.add_argument("--seconds", type=int, default=30)
    ap.add_argument("--size", default="1920x1080")
    ap.add_argument("--presets", default="1,2,3,4,5,6,7,8,9")
    ap.add_argument("--window", default=None, help="window size WxH (default: fitted)")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="clvid-realtime-")
    clip = os.path.join(tmp, "clip.mp4")
    make_clip(clip, args.seconds, args.size.replace("x", ":"))
    env = dict(os.environ)
    xvfb = None
    if not env.get("DISPLAY"):
        r, w = os.pipe()
        xvfb = subprocess.Popen(["Xvfb", "-displayfd", str(w), "-screen", "0", "1920x1200x24",
                                 "-nolisten", "tcp"], pass_fds=(w,), stderr=subprocess.DEVNULL)
        os.close(w)
        env["DISPLAY"] = ":" + os.read(r, 16).decode().strip()
        os.close(r)
        env.setdefault("SDL_AUDIODRIVER", "dummy")
    st = os.path.join(tmp, "stats.txt")
    print("clip: %s %s, %d s at 30 fps (%d frames); display %s" %
          (os.path.basename(clip), args.size, args.seconds, args.seconds * 30, env["DISPLAY"]))
    print("| preset | shown | dropped | shown fps | decode | upload | kernels | download | present |")
    print("|---|---|---|---|---|---|---|---|---|")
    try:
        for n in [int(x) for x in args.presets.split(",")]:
            cmd = [args.clvid, "play", clip, "--autoexit", "--keys", str(n), "--stats", st]
            if args.window:
                cmd += ["--size", args.window]
            run = subprocess.run(cmd, env=env, capture_output=True, text=True)
            if run.returncode != 0:
                print("%s failed (exit %d):\n%s" % (" ".join(cmd), run.returncode,
                                                     run.stderr[-2000:]))
                return 1
            s = stats(st)
            print("| %d %s | %s | %s | %.1f | %.2f | %.2f | %.2f | %.2f | %.2f |" % (
                n, NAMES[n - 1], s["frames_shown"], s["frames_dropped"],
                float(s["frames_shown"]) / float(s["elapsed"]), float(s["ms_decode"]),
                float(s["ms_upload"]), float(s["ms_kernels"]), float(s["ms_download"]),
                float(s["ms_present"])))
            sys.stdout.flush()
        print("device: %s; renderer: %s; window %s" % (s["device"], s["renderer"],
                                                       args.window or "fitted to the screen"))
    finally:
        if xvfb:
            xvfb.terminate()
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
