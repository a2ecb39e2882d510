#!/usr/bin/env python3
"""scale_ffmpeg_test.py - clvid's scale (its C reference, through clvid-ref)
against ffmpeg's: byte for byte with ffmpeg scaling each RGBA channel as a
gray plane (extractplanes, scale +accurate_rnd, mergeplanes), and by PSNR
with ffmpeg's ordinary RGB path (which goes through YUV inside swscale).
A natural picture (a frame of media/sample.mp4) and noise, each algorithm,
shrinking and enlarging; the same at 16 bits a channel (rgba64le, gray16
planes). One test per run, by name (--list names them)."""
import math
import os
import random
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import check, run, test  # noqa: E402
import harness  # noqa: E402

ARGS = None
ALGOS = ("bicubic", "bilinear", "lanczos", "neighbor", "area")
# (input size, output sizes): odd factors down and up, and awkward sizes.
SIZES = ((641, 359), ((213, 119), (71, 47), (1283, 719), (901, 601), (17, 9), (640, 359)))


def pictures():
    """The photo and the noise picture as raw RGBA of SIZES[0]; the photo is
    opaque, the noise's alpha random too."""
    w, h = SIZES[0]
    photo = run(["ffmpeg", "-v", "error", "-ss", "1", "-i", os.path.join(ARGS.media, "sample.mp4"),
                 "-frames:v", "1", "-vf", "format=rgba,crop=%d:%d:100:50" % (w, h), "-f", "rawvideo", "-pix_fmt",
                 "rgba", "-"], text=False).stdout
    check(len(photo) == w * h * 4, "cannot decode a frame of sample.mp4")
    rnd = random.Random(34)
    noise = rnd.randbytes(w * h * 4)
    return (("photo", photo), ("noise", noise))


def pictures16():
    """The same at 16 bits (rgba64le): the photo made 16-bit by shrinking a
    larger crop of the frame (so that its values are not 257 v), opaque;
    the noise 16-bit, alpha included."""
    w, h = SIZES[0]
    photo = run(["ffmpeg", "-v", "error", "-ss", "1", "-i", os.path.join(ARGS.media, "sample.mp4"),
                 "-frames:v", "1", "-vf", "crop=1280:718:0:0,format=gbrap16le,scale=%d:%d:flags=area"
                 % (w, h), "-f", "rawvideo", "-pix_fmt", "rgba64le", "-"], text=False).stdout
    check(len(photo) == w * h * 8, "cannot decode a frame of sample.mp4")
    rnd = random.Random(16)
    noise = rnd.randbytes(w * h * 8)
    return (("photo", photo), ("noise", noise))


def ffmpeg_planes(raw, w, h, ow, oh, flags, deep=False):
    """ffmpeg 5.1's per-plane result (docs/notes/swscale.md §5): extractplanes
    straight from rgba (rgba -> gbrap converts alpha lossily); deep: from
    rgba64le through gray16 planes (hScale16To19, yuv2planeX_16)."""
    fmt, planar = ("rgba64le", "gbrap16le") if deep else ("rgba", "gbrap")
    s = "scale=%d:%d:flags=%s" % (ow, oh, flags)
    graph = ("extractplanes=r+g+b+a[r][g][b][a];[r]%s[r2];[g]%s[g2];[b]%s[b2];[a]%s[a2];"
             "[g2][b2][r2][a2]mergeplanes=0x00102030:%s,format=%s" % (s, s, s, s, planar, fmt))
    return run(["ffmpeg", "-v", "error", "-f", "rawvideo", "-pix_fmt", fmt, "-s", "%dx%d" % (w, h),
                "-i", "-", "-filter_complex", graph, "-f", "rawvideo", "-pix_fmt", fmt, "-"],
               text=False, input=raw).stdout


def ffmpeg_rgb(raw, w, h, ow, oh, flags, deep=False):
    """ffmpeg's ordinary RGB scaling (through YUV inside swscale), as rgb24;
    deep: rgba64le in and out."""
    fmt, out = ("rgba64le", "rgba64le") if deep else ("rgba", "rgb24")
    return run(["ffmpeg", "-v", "error", "-f", "rawvideo", "-pix_fmt", fmt, "-s", "%dx%d" % (w, h),
                "-i", "-", "-vf", "scale=%d:%d:flags=%s" % (ow, oh, flags), "-f", "rawvideo",
                "-pix_fmt", out, "-"], text=False, input=raw).stdout


def clvid_ref(raw, w, h, chain, deep=False):
    env = dict(os.environ, CLVID_REF_SIZE="1")
    if deep:
        env["CLVID_REF_DEPTH"] = "16"
    p = run([ARGS.ref, chain, str(w), str(h)], text=False, input=raw, env=env)
    return p.stdout, p.stderr.decode().strip()


def psnr(rgba, rgb):
    """PSNR over R, G, B of an RGBA and an rgb24 picture."""
    n = len(rgb)
    se = 0
    for i in range(0, n, 3):
        j = i // 3 * 4
        for c in range(3):
            d = rgba[j + c] - rgb[i + c]
            se += d * d
    return float("inf") if se == 0 else 10 * math.log10(255 * 255 * n / se)


def psnr16(got, want):
    """PSNR over R, G, B of two rgba64le pictures, on the scale of 65535."""
    a = struct.unpack("<%dH" % (len(got) // 2), got)
    b = struct.unpack("<%dH" % (len(want) // 2), want)
    se = sum((a[i] - b[i]) ** 2 for i in range(len(a)) if i % 4 != 3)
    n = len(a) // 4 * 3
    return float("inf") if se == 0 else 10 * math.log10(65535 * 65535 * n / se)


# swscale's taps per algorithm for each output pixel (sizeFactor).
FACTOR = {"bicubic": 4, "bilinear": 2, "lanczos": 6, "neighbor": 0, "area": 1}


def cascades(algo, w, h, ow, oh):
    """Whether swscale splits the job in two through a YUV 4:2:0 picture
    (filterSize >= 170 with accurate_rnd on x86-64: a shrink by about 42x
    bicubic, 28x lanczos), which clvid does not copy."""
    f = FACTOR[algo]
    return f and max(1 + (f * w + ow - 1) // ow, 1 + (f * h + oh - 1) // oh) >= 170


def cases():
    w, h = SIZES[0]
    for algo in ALGOS:
        for ow, oh in SIZES[1]:
            yield algo, w, h, ow, oh


@test
def exact_per_plane(tmp):
    """Every byte equals ffmpeg's per-plane scaling with +accurate_rnd."""
    bad = []
    for name, raw in pictures():
        for algo, w, h, ow, oh in cases():
            if cascades(algo, w, h, ow, oh):
                print("%-8s %-5s %dx%d -> %dx%d: swscale cascades, skipped" % (algo, name, w, h, ow, oh))
                continue
            want = ffmpeg_planes(raw, w, h, ow, oh, algo + "+accurate_rnd")
            got, size = clvid_ref(raw, w, h, "scale=%d:%d:flags=%s" % (ow, oh, algo))
            check(size == "%dx%d" % (ow, oh), "clvid-ref made %s, not %dx%d" % (size, ow, oh))
            diff = sum(a != b for a, b in zip(want, got)) if len(want) == len(got) else -1
            print("%-8s %-5s %dx%d -> %dx%d: %d differing bytes of %d"
                  % (algo, name, w, h, ow, oh, diff, len(want)))
            if diff:
                bad.append("%s %s %dx%d" % (algo, name, ow, oh))
    check(not bad, "not byte-exact with ffmpeg's per-plane scaling: " + ", ".join(bad))


@test
def psnr_rgb(tmp):
    """Against ffmpeg's RGB path (YUV inside): >= 40 dB shrinking, >= 45 dB
    enlarging, on the photo."""
    bad = []
    name, raw = pictures()[0]
    for algo, w, h, ow, oh in cases():
        want = ffmpeg_rgb(raw, w, h, ow, oh, algo + "+accurate_rnd+full_chroma_int")
        got, _ = clvid_ref(raw, w, h, "scale=%d:%d:flags=%s" % (ow, oh, algo))
        db = psnr(got, want)
        need = 45 if ow * oh > w * h else 40
        print("%-8s %-5s %dx%d -> %dx%d: %.1f dB (at least %d)" % (algo, name, w, h, ow, oh, db, need))
        if db < need:
            bad.append("%s %dx%d: %.1f dB" % (algo, ow, oh, db))
    check(not bad, "below the PSNR wanted: " + ", ".join(bad))



@test
def exact_per_plane16(tmp):
    """At 16 bits, every value equals ffmpeg's per-plane scaling of gray16
    planes with +accurate_rnd (swscale sums in 32 bits and wraps where the
    lobes overshoot far, as sinc on noise does: no such case here)."""
    bad = []
    for name, raw in pictures16():
        for algo, w, h, ow, oh in cases():
            if cascades(algo, w, h, ow, oh):
                print("%-8s %-5s %dx%d -> %dx%d: swscale cascades, skipped" % (algo, name, w, h, ow, oh))
                continue
            want = ffmpeg_planes(raw, w, h, ow, oh, algo + "+accurate_rnd", deep=True)
            got, size = clvid_ref(raw, w, h, "scale=%d:%d:flags=%s" % (ow, oh, algo), deep=True)
            check(size == "%dx%d" % (ow, oh), "clvid-ref made %s, not %dx%d" % (size, ow, oh))
            diff = sum(a != b for a, b in zip(want, got)) if len(want) == len(got) else -1
            print("%-8s %-5s %dx%d -> %dx%d: %d differing bytes of %d"
                  % (algo, name, w, h, ow, oh, diff, len(want)))
            if diff:
                bad.append("%s %s %dx%d" % (algo, name, ow, oh))
    check(not bad, "not exact with ffmpeg's per-plane 16-bit scaling: " + ", ".join(bad))


@test
def psnr_rgb16(tmp):
    """At 16 bits, against ffmpeg's rgba64le path (YUV inside): >= 40 dB
    shrinking, >= 45 dB enlarging, on the photo."""
    bad = []
    name, raw = pictures16()[0]
    for algo, w, h, ow, oh in cases():
        want = ffmpeg_rgb(raw, w, h, ow, oh, algo + "+accurate_rnd+full_chroma_int", deep=True)
        got, _ = clvid_ref(raw, w, h, "scale=%d:%d:flags=%s" % (ow, oh, algo), deep=True)
        db = psnr16(got, want)
        need = 45 if ow * oh > w * h else 40
        print("%-8s %-5s %dx%d -> %dx%d: %.1f dB (at least %d)" % (algo, name, w, h, ow, oh, db, need))
        if db < need:
            bad.append("%s %dx%d: %.1f dB" % (algo, ow, oh, db))
    check(not bad, "below the PSNR wanted: " + ", ".join(bad))

if __name__ == "__main__":
    ARGS = harness.arguments("--ref", "--media")
    sys.exit(harness.main(ARGS))
