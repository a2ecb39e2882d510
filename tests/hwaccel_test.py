#!/usr/bin/env python3
"""hwaccel_test.py - hardware decoding (-hwaccel) on a machine without the
hardware, as CI is: -hwaccel none and auto give the frames software decoding
gives (auto falls back and says so in the summary); -hwaccel cuda and vaapi
are a clean exit 1 naming the method with nothing written (where the
machine has one, its frames are compared instead); an unknown word is exit
2 listing the methods; play refuses the same way; the stage takes nv12 and
p010 frames (the layouts a hardware decoder's frames are read back in) to
the same output as yuv420p and yuv420p10le; scripts/gpu/hwaccel-check runs
(with auto here). One test per run, by name (--list names them)."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Failure, Skip, check, run, test  # noqa: E402,F401
import harness  # noqa: E402

ARGS = None
HERE = os.path.dirname(os.path.abspath(__file__))


def clvid(args, expect=0, quiet=True):
    p = run([ARGS.clvid, "transcode"] + (["-q"] if quiet else []) + args, expect=expect,
            timeout=60)
    # A sanitizer's report fails the run even where exit 1 is expected.
    check("Sanitizer" not in p.stderr, p.stderr[-3000:])
    return p


def framemd5(path):
    p = run(["ffmpeg", "-v", "error", "-i", path, "-map", "0:v", "-f", "framemd5", "-"],
            timeout=60)
    return [line.split(",")[-1].strip() for line in p.stdout.splitlines()
            if line and not line.startswith("#")]


def clip(tmp, name="clip.mp4", pix_fmt="yuv420p", codec="libx264"):
    """A 1 s 320x240 25 fps clip with sound."""
    path = os.path.join(tmp, name)
    run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i",
         "testsrc2=size=320x240:rate=25:duration=1", "-f", "lavfi", "-i",
         "sine=frequency=440:duration=1", "-pix_fmt", pix_fmt, "-c:v", codec, "-c:a", "aac",
         "-shortest", path], timeout=60)
    return path


@test
def none_and_auto_exact(tmp):
    """-hwaccel none and -hwaccel auto (software here) give the frames of a
    run without -hwaccel (ffv1, framemd5), H.264 and 10-bit HEVC; auto's
    summary says it decoded in software and why; none's says software."""
    for name, pix_fmt, codec in (("h264.mp4", "yuv420p", "libx264"),
                                 ("hevc10.mkv", "yuv420p10le", "libx265")):
        src = clip(tmp, name, pix_fmt, codec)
        outs = {}
        for how in (None, "none", "auto"):
            out = os.path.join(tmp, "%s-%s.mkv" % (name, how))
            args = (["-hwaccel", how] if how else []) + ["-i", src, "-vf", "sharpen", "-c:v",
                                                           "ffv1", "-o", out]
            p = clvid(args, quiet=False)
            outs[how] = framemd5(out)
            if how == "auto" and "decode: software (-hwaccel auto:" not in p.stderr:
                raise Skip("a hardware decoder works here: %s" % p.stderr[-600:])
            if how == "none":
                check("decode: software," in p.stderr, p.stderr[-1500:])
        check(len(outs[None]) == 25, "%s: %d frames" % (name, len(outs[None])))
        check(outs["none"] == outs[None] and outs["auto"] == outs[None],
              "%s: -hwaccel none/auto changed the frames" % name)


@test
def named_unavailable(tmp):
    """-hwaccel cuda and -hwaccel vaapi without the hardware: exit 1 naming
    the method and the input, no output and no partial file left (an
    existing output untouched with -y); -hwaccel_device too. Where the
    method works, its frames equal software decoding's instead."""
    src = clip(tmp)
    ref = os.path.join(tmp, "ref.mkv")
    clvid(["-i", src, "-vf", "sharpen", "-c:v", "ffv1", "-o", ref])
    kept = os.path.join(tmp, "kept.mkv")
    with open(kept, "wb") as f:
        f.write(b"mine")
    for method, device in (("cuda", None), ("vaapi", None), ("vaapi", "/dev/dri/renderD199"),
                           ("cuda", "7")):
        out = os.path.join(tmp, "out-%s.mkv" % method)
        args = ["-hwaccel", method] + (["-hwaccel_device", device] if device else []) + [
            "-i", src, "-vf", "sharpen", "-c:v", "ffv1", "-o", out]
        p = clvid(args, expect=None)
        if p.returncode == 0 and not device:
            check(framemd5(out) == framemd5(ref), "-hwaccel %s changed the frames" % method)
            os.remove(out)
            continue
        check(p.returncode == 1, "-hwaccel %s: exit %d: %s" % (method, p.returncode, p.stderr))
        check("-hwaccel %s" % method in p.stderr and src in p.stderr, p.stderr)
        check(not device or device in p.stderr, p.stderr)
        check(not os.path.exists(out), "%s written" % out)
        p = clvid(["-y"] + args[:-1] + [kept], expect=1)
        with open(kept, "rb") as f:
            check(f.read() == b"mine", "-y over an existing output replaced it")
    left = sorted(n for n in os.listdir(tmp) if n not in ("clip.mp4", "ref.mkv", "kept.mkv"))
    check(not left, "files left: %s" % left)


@test
def unknown_word(tmp):
    """-hwaccel bogus: a usage error (exit 2) listing none, auto, cuda and
    vaapi, in transcode and play, before anything is opened or written; a
    missing value is a usage error too."""
    src = clip(tmp)
    out = os.path.join(tmp, "out.mkv")
    p = clvid(["-hwaccel", "bogus", "-i", src, "-o", out], expect=2)
    for word in ("bogus", "none", "auto", "cuda", "vaapi"):
        check(word in p.stderr, "%s not in: %s" % (word, p.stderr))
    check(not os.path.exists(out), "output written")
    p = run([ARGS.clvid, "play", "-hwaccel", "bogus", "-i", src], expect=2, timeout=30)
    check("bogus" in p.stderr and "vaapi" in p.stderr, p.stderr)
    run([ARGS.clvid, "transcode", "-i", src, "-o", out, "-hwaccel"], expect=2, timeout=30)


@test
def play_named_unavailable(tmp):
    """clvid play -hwaccel cuda without the hardware: exit 1 naming it,
    before a window opens (no display needed)."""
    src = clip(tmp)
    env = dict(os.environ)
    env.pop("DISPLAY", None)
    p = subprocess.run([ARGS.clvid, "play", "-hwaccel", "cuda", "-i", src,
                        "--exit-after-frames", "2"], capture_output=True, text=True, timeout=30,
                       env=env)
    if p.returncode == 0:
        raise Skip("cuda decodes here")
    check(p.returncode == 1 and "-hwaccel cuda" in p.stderr, "exit %d: %s"
          % (p.returncode, p.stderr))


@test
def stage_takes_device_layouts(tmp):
    """A hardware decoder's frames come back as nv12 (8 bits) or p010 (10
    bits), which the stage takes as they are: the same picture stored as
    nv12 and as yuv420p (p010 and yuv420p10le) gives the same output
    frames through a chain (ffv1), so hardware decoding is exact wherever
    the decoder is."""
    for plain, device in (("yuv420p", "nv12"), ("yuv420p10le", "p010le")):
        sums = []
        for fmt in (plain, device):
            out = os.path.join(tmp, "%s.mkv" % fmt)
            # lavfi: no container stores p010 raw frames that FFmpeg reads back.
            clvid(["-f", "lavfi", "-i",
                   "testsrc2=size=318x238:rate=25:duration=0.4,format=%s,format=%s"
                   % (plain, fmt), "-vf", "median,eq=contrast=1.2,hflip", "-c:v", "ffv1",
                   "-pix_fmt", plain, "-o", out])
            sums.append(framemd5(out))
        check(len(sums[0]) == 10 and sums[0] == sums[1],
              "%s and %s inputs differ through the chain" % (plain, device))


@test
def check_script(tmp):
    """scripts/gpu/hwaccel-check with the method auto (software here): the
    two runs' raw frames compare equal with cmp, and it prints both
    decode-only rates."""
    src = clip(tmp)
    script = os.path.join(HERE, "..", "scripts", "gpu", "hwaccel-check")
    p = run(["sh", script, src, "auto"], timeout=120,
            env=dict(os.environ, CLVID=ARGS.clvid, TMPDIR=tmp))
    check("frames: identical" in p.stdout, p.stdout + p.stderr)
    check(p.stdout.count("decode-only") == 2, p.stdout)


def main():
    global ARGS
    ARGS = harness.arguments("--clvid")
    return harness.main(ARGS, prefix="clvid-hwaccel-")


if __name__ == "__main__":
    sys.exit(main())
