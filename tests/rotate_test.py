#!/usr/bin/env python3
"""rotate_test.py - clvid's rotate (the C reference, through clvid-ref) against
ffmpeg's `-vf rotate=...` on raw RGBA and RGB24 frames of awkward sizes, the
frames numbered 0, 1, ... at 25 per second on both sides (t = n/25).

What is achievable, measured with FFmpeg 5.1:
- An angle that does not depend on t gives ffmpeg's bytes exactly, every
  frame (its arithmetic after the angle is integer and clvid's is the same).
- An angle of t too: the time is a double on both sides (frame / rate), so
  the angle, and every frame, is ffmpeg's.
- At 16 bits (clvid-ref's RGBA16 against ffmpeg's rotate on yuva444p16le,
  its one 16-bit format of four full-size planes, a channel a plane): ffmpeg's
  samples wherever the picture is, with samples below 32768. From 32768
  ffmpeg's interpolate_bilinear16 overflows its int row sums (clvid's are
  64-bit); where it wraps both rows alike its low 16 bits come out right
  all the same, elsewhere they differ (measured: about half the
  interpolated samples of random full-range pictures; none once the wrap
  is imitated). The fill is not compared: ffmpeg's is a YUV colour.
One test per run, by name (--list names them), as ctest runs them."""
import math
import os
import random
import struct
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


def rotate16(chain, w, h, frames, samples):
    """(clvid-ref's samples at 16 bits or None for the fill, ffmpeg's) per
    output sample, in clvid's order: samples are RGBA16's, ffmpeg's planes
    yuva444p16le's (plane c: channel c)."""
    n = w * h
    inter = struct.pack("<%dH" % len(samples), *samples)
    planar = b"".join(struct.pack("<%dH" % n, *samples[f * n * 4 + c:(f + 1) * n * 4:4])
                      for f in range(frames) for c in range(4))
    p = subprocess.run(["ffmpeg", "-v", "error", "-f", "rawvideo", "-pix_fmt", "yuva444p16le", "-s",
                        "%dx%d" % (w, h), "-r", "25", "-i", "-", "-vf", chain, "-f", "rawvideo",
                        "-pix_fmt", "yuva444p16le", "-r", "25", "-"], input=planar,
                       capture_output=True)
    check(p.returncode == 0, "ffmpeg -vf %s on %dx%d yuva444p16le: %s" % (chain, w, h, p.stderr))
    want = struct.unpack("<%dH" % (len(p.stdout) // 2), p.stdout)
    got = []
    for fill in ("0x01020304", "0xfbfcfdfe"):  # the fill is what changes with it
        with_fill = chain + (":" if "=" in chain else "=") + "c=" + fill
        q = subprocess.run([ARGS.ref, with_fill, str(w), str(h), str(frames)],
                           input=inter, capture_output=True,
                           env=dict(os.environ, CLVID_REF_SIZE="1", CLVID_REF_DEPTH="16"))
        check(q.returncode == 0, "clvid-ref %s at 16 bits: %s" % (chain, q.stderr))
        got.append(struct.unpack("<%dH" % (len(q.stdout) // 2), q.stdout))
    check(len(got[0]) == len(want), "%s on %dx%d: %d samples, ffmpeg %d" % (
        chain, w, h, len(got[0]), len(want)))
    on = len(want) // frames // 4
    pairs = []
    for f in range(frames):
        for i in range(on):
            for c in range(4):
                k = (f * on + i) * 4 + c
                pairs.append((got[0][k] if got[0][k] == got[1][k] else None,
                              want[(f * 4 + c) * on + i]))
    return pairs


@test
def matches_ffmpeg_16(tmp):
    """At 16 bits: ffmpeg's samples (yuva444p16le) below 32768, bilinear
    and nearest, the copies of the right angles, angles of n and t."""
    if sys.byteorder != "little":
        raise harness.Skip("RGBA16 frames are rgba64le on little-endian hosts only")
    chains = ["rotate", "rotate=PI/6", "rotate=-1.3", "rotate=PI/2", "rotate=PI",
              "rotate=a=PI/2:ow=ih:oh=iw", "rotate=3*PI/2:ow=ih:oh=iw", "rotate=1:bilinear=0",
              "rotate=0.7:ow=hypot(iw\\,ih):oh=ow", "rotate=2*PI*t",
              "rotate=n*0.3-1:ow=iw+7:oh=ih/2+1:bilinear=0"]
    for w, h in SIZES[:4]:  # 641x359 adds nothing 16-bit, and takes a minute
        rnd = random.Random(w * 131 + h)
        samples = [rnd.randrange(32768) for _ in range(w * h * 4 * 3)]
        for chain in chains:
            pairs = rotate16(chain, w, h, 3, samples)
            compared = [(g, f) for g, f in pairs if g is not None]
            bad = sum(g != f for g, f in compared)
            check(bad == 0 and compared, "%dx%d %s at 16 bits: %d of %d samples differ from "
                  "ffmpeg's" % (w, h, chain, bad, len(compared)))
            print("equal  %dx%d %s at 16 bits (%d samples)" % (w, h, chain, len(compared)))


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
