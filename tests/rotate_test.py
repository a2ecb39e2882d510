#!/usr/bin/env python3
"""rotate_test.py - clvid's rotate (the C reference, through clvid-ref) against
ffmpeg's `-vf rotate=...` on raw RGBA and RGB24 frames of awkward sizes, the
frames numbered 0, 1, ... at 25 per second on both sides (t = n/25).

What is achievable, measured with FFmpeg 5.1:
- An angle that does not depend on t gives ffmpeg's bytes exactly, every
  frame (its arithmetic after the angle is integer and clvid's is the same).
- An angle of t too: the time is a double on both sides (frame / rate), so
  the angle, and every frame, is ffmpeg's.
One test per run, by name (--list names them), as ctest runs them."""
import math
import os
import random
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Failure, check, test  # noqa: E402,F401
import harness  # noqa: E402

ARGS = None
SIZES = ((1, 1), (3, 2), (17, 9), (97, 61), (641, 359))


def ffmpeg_rotate(chain, w, h, fmt, data):
    p = subprocess.run(["ffmpeg", "-v", "error", "-f", "rawvideo", "-pix_fmt", fmt, "-s",
                        "%dx%d" % (w, h), "-r", "25", "-i", "-", "-vf", chain, "-f", "rawvideo",
                        "-pix_fmt", fmt, "-r", "25", "-"], input=data, capture_output=True)
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")


def clvid_rotate(chain, w, h, frames, rgba):
    """(status, frames out, size "WxH" or the error)."""
    p = subprocess.run([ARGS.ref, chain, str(w), str(h), str(frames)], input=rgba,
                       capture_output=True, env=dict(os.environ, CLVID_REF_SIZE="1"))
    return p.returncode, p.stdout, p.stderr.decode(errors="replace").strip()


def pictures(w, h, fmt, frames, seed):
    """Random frames in fmt, and the same as RGBA for clvid-ref (opaque)."""
    data = random.Random(seed).randbytes(w * h * frames * (4 if fmt == "rgba" else 3))
    if fmt == "rgba":
        return data, data
    rgba = bytearray(len(data) // 3 * 4)
    for c in range(3):
        rgba[c::4] = data[c::3]
    rgba[3::4] = b"\xff" * (len(data) // 3)
    return data, bytes(rgba)


def as_format(rgba, fmt):
    if fmt == "rgba":
        return rgba
    out = bytearray(len(rgba) // 4 * 3)
    for c in range(3):
        out[c::3] = rgba[c::4]
    return bytes(out)


def psnr(a, b):
    se = sum((x - y) * (x - y) for x, y in zip(a, b))
    return math.inf if se == 0 else 10 * math.log10(255 * 255 * len(a) / se)


def compare(chain, w, h, fmt, frames, seed):
    """Per frame: None where the bytes are equal, else the PSNR."""
    data, rgba = pictures(w, h, fmt, frames, seed)
    status, want, err = ffmpeg_rotate(chain, w, h, fmt, data)
    check(status == 0, "ffmpeg -vf %s on %dx%d %s: %s" % (chain, w, h, fmt, err))
    status, got, size = clvid_rotate(chain, w, h, frames, rgba)
    check(status == 0, "clvid-ref %s on %dx%d: %s" % (chain, w, h, size))
    got = as_format(got, fmt)
    check(len(got) == len(want), "%s on %dx%d %s: %d bytes (%s), ffmpeg %d" % (
        chain, w, h, fmt, len(got), size, len(want)))
    n = len(want) // frames
    return size, [None if got[i:i + n] == want[i:i + n] else psnr(got[i:i + n], want[i:i + n])
                  for i in range(0, len(want), n)]


@test
def matches_ffmpeg(tmp):
    """Angles that do not depend on t: ffmpeg's bytes, RGBA and RGB24."""
    chains = ["rotate", "rotate=PI/6", "rotate=-1.3", "rotate=PI/2", "rotate=PI",
              "rotate=a=PI/2:ow=ih:oh=iw", "rotate=3*PI/2:ow=ih:oh=iw", "rotate=a=-PI/2",
              "rotate=0.7:ow=hypot(iw\\,ih):oh=ow",
              "rotate=a=PI/6:ow='rotw(PI/6)':oh='roth(PI/6)'",
              "rotate=a=-2.5:out_w='rotw(-2.5)':out_h='roth(-2.5)':c=0x10203040",
              "rotate=-1.3:c=red@0.5", "rotate=1:bilinear=0", "rotate=40:fillcolor=green@0.25",
              "rotate=n*0.3-1:ow=iw+7:oh=ih/2+1:bilinear=0", "rotate=angle=n*n/9:c=white"]
    for w, h in SIZES:
        for fmt in ("rgba", "rgb24"):
            for chain in chains:
                size, frames = compare(chain, w, h, fmt, 3, w * 131 + h)
                check(all(f is None for f in frames), "%dx%d %s %s -> %s: frames %s differ "
                      "from ffmpeg's (PSNR %s)" % (w, h, fmt, chain, size,
                                                   [i for i, f in enumerate(frames) if f],
                                                   [round(f, 2) for f in frames if f]))
                print("equal  %dx%d %-5s %s -> %s" % (w, h, fmt, chain, size))


@test
def time_matches_ffmpeg(tmp):
    """Angles of t (turning over time): every frame equal to ffmpeg's."""
    for (w, h), frames in (((97, 61), 100), ((641, 359), 40), ((17, 9), 50)):
        for fmt in ("rgba", "rgb24"):
            for chain in ("rotate=2*PI*t", "rotate=2*PI*t:bilinear=0",
                          "rotate=3.7*t:ow=hypot(iw\\,ih):oh=ow:c=blue@0.5",
                          "rotate=-0.9*t+n/1000:bilinear=0"):
                size, result = compare(chain, w, h, fmt, frames, w + h * 7)
                equal = sum(f is None for f in result)
                worst = min((f for f in result if f is not None), default=math.inf)
                print("%3d/%d frames equal, worst PSNR %s  %dx%d %-5s %s -> %s" % (
                    equal, frames, "%.1f dB" % worst if worst < math.inf else "-", w, h, fmt,
                    chain, size))
                check(equal == frames, "%dx%d %s %s: %d of %d frames equal (worst %.2f dB)"
                      % (w, h, fmt, chain, equal, frames, worst))


@test
def refuses_like_ffmpeg(tmp):
    """Sizes ffmpeg calls invalid (not positive, or of t, which is unknown
    when the size is set) are errors naming the expression, its value and
    the input size; a bad expression names the character at fault. (ffmpeg
    logs the error and goes on, exit 0, for a size that is not positive.)"""
    for chain, says in (("rotate=oh=-ih", "out_h='-ih' gives -9 (17x9 in)"),
                        ("rotate=ow=iw-17", "out_w='iw-17' gives 0 (17x9 in)"),
                        ("rotate=ow=t*iw", "out_w='t*iw' gives nan (17x9 in)"),
                        ("rotate=ow='rotw(2*PI*t)'", "out_w='rotw(2*PI*t)' gives nan")):
        status, _, err = ffmpeg_rotate(chain, 17, 9, "rgba", bytes(17 * 9 * 4))
        check("non-positive or indefinite value" in err, "ffmpeg took %s: %s" % (chain, err))
        status, _, err = clvid_rotate(chain, 17, 9, 1, bytes(17 * 9 * 4))
        check(status == 2 and says in err, "%s: exit %d, '%s' (want '%s')" % (
            chain, status, err, says))
    status, _, err = clvid_rotate("rotate=a=2*PI*(t", 17, 9, 1, bytes(17 * 9 * 4))
    check(status == 2 and "expression '2*PI*(t'" in err and "character" in err, err)


def main():
    global ARGS
    ARGS = harness.arguments("--ref")
    return harness.main(ARGS, needs=("ffmpeg",), prefix="clvid-rotate-")


if __name__ == "__main__":
    sys.exit(main())
