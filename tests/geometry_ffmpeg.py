#!/usr/bin/env python3
"""geometry_ffmpeg.py - crop, pad and transpose give ffmpeg's own bytes: the
same chain through ffmpeg (rawvideo, rgba or rgb24 in and out, no
conversion) and through clvid-ref (the C references, which the device
kernels equal: tests/test_filters.c) on random pictures of awkward sizes,
at 16 bits too (rgba64le, which ffmpeg's pad takes through gbrap16le: the
picture unchanged, the colour's channels c * 257), and a few through
`clvid transcode` on PNGs. One test per run, by name, as
ctest runs them (--list names them)."""
import os
import random
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import check, run, test  # noqa: E402
import harness  # noqa: E402

ARGS = None
SIZES = ((1, 1), (3, 2), (17, 9), (9, 17), (64, 64), (641, 359))

CROP = ["crop", "crop=1:1", "crop=w=iw/2", "crop=iw-3:ih-1:1:0", "crop=out_w=iw/3:out_h=ih/2",
        "crop=w=iw/2:h=ih/2:x=0:y=0", "crop=iw/2:ih/2:iw:ih", "crop=iw/2:ih/2:-5:-5",
        "crop=w=iw*2/3:h=ih*3/4:x=iw/3-1:y=ih/5+1", "crop=w=oh:h=ih/2",
        "crop=w=min(iw\\,ih):h=ow", "crop=iw/2:ih/2:x=y*2:y=ih/4",
        "crop=w=iw/2:h=ih/2:x=n*3:y=n", "crop=w=iw/2:h=ih/2:x=t*100:y=(t*50)",
        "crop=w=iw/2:x=if(eq(n\\,1)\\,0/0\\,n*7)", "crop=1:1:iw-1:ih-1:keep_aspect=1:exact=1",
        "crop=iw/2:ih/2:keep_aspect=true:exact=off", "crop=iw-1:ih-1:keep_aspect=Yes:exact=enable",
        "crop=w=iw-1:h=ih-1:x=a*10:y=dar*2+hsub+vsub+sar"]
PAD = ["pad", "pad=0:0", "pad=iw+5:ih+2:3:1:red", "pad=w=iw+1:h=ih+1:x=1:y=1:color=0x00ff0080",
       "pad=w=0:h=ih*2:x=-1:y=-1:color=black@0.5", "pad=w=iw+7:h=0:x=-3:color=white@0.25",
       "pad=width=iw+2:height=ih+3:x=(ow-iw)/2:y=oh-ih:color=Salmon@0x7f",
       "pad=iw*2:ih*2:-1:-1:0x11223344", "pad=w=iw*1.5:h=ih*1.5:x=iw/4:y=ih/4:color=#abcdef",
       "pad=iw+4:ih+4:100:100:blue", "pad=w=oh+iw:h=ih+1:x=y:y=1:color=green@0.1",
       "pad=iw+3:ih+3:color=AliceBlue@1.0:eval=frame", "pad=w=iw+2:h=ih:x=0.9:y=0.9:color=yellow"]
# ffmpeg's pad=aspect fails on an unknown aspect (rawvideo's), which clvid
# reads as 1: setsar=1 first in ffmpeg.
PAD_SAR = ["pad=aspect=16/9:x=-1:y=-1:color=blue", "pad=aspect=0.3:color=#10203040",
           "pad=aspect=1:x=-1:y=-1"]
TRANSPOSE = ["transpose", "transpose=0", "transpose=1", "transpose=2", "transpose=3",
             "transpose=cclock_flip", "transpose=clock", "transpose=cclock", "transpose=clock_flip",
             "transpose=dir=4", "transpose=dir=5", "transpose=6", "transpose=7",
             "transpose=clock:passthrough=portrait", "transpose=cclock:passthrough=landscape",
             "transpose=dir=clock_flip:passthrough=none", "transpose=1:passthrough=1",
             "transpose=clock:passthrough=2", "transpose=2:passthrough=0"]
CHAINS = ["crop=iw-3:ih-1:1:0,transpose=clock,pad=iw+5:ih+2:3:1:red",
          "pad=iw+3:ih+1:2:1:0x11223344,transpose=cclock,hflip,crop=w=iw/2:x=1,transpose=clock_flip",
          "hflip,crop=1:1:iw-1:0,pad=iw+2:ih+2:1:1:green@0.5,transpose=cclock,vflip"]


def picture(w, h, frames, seed, px_bytes=4):
    rnd = random.Random(seed)
    return rnd.randbytes(w * h * px_bytes * frames)


def rgba_to_rgb(data):
    out = bytearray(len(data) // 4 * 3)
    for c in range(3):
        out[c::3] = data[c::4]
    return bytes(out)


def rgb_to_rgba(data):
    out = bytearray(b"\xff" * (len(data) // 3 * 4))
    for c in range(3):
        out[c::4] = data[c::3]
    return bytes(out)


def ffmpeg_out(chain, fmt, w, h, data):
    """ffmpeg's bytes, or None when ffmpeg refuses the chain on this size."""
    p = subprocess.run(["ffmpeg", "-v", "error", "-f", "rawvideo", "-pix_fmt", fmt, "-s",
                        "%dx%d" % (w, h), "-r", "25", "-i", "-", "-vf", chain, "-f", "rawvideo",
                        "-pix_fmt", fmt, "-"], input=data, capture_output=True)
    return p.stdout if p.returncode == 0 and p.stdout else None


def reference_out(chain, w, h, frames, data, depth=8):
    """clvid-ref's bytes, or None when the chain cannot be made on w x h."""
    p = subprocess.run([ARGS.ref, chain, str(w), str(h), str(frames)], input=data,
                       capture_output=True,
                       env=dict(os.environ, CLVID_REF_SIZE="1", CLVID_REF_DEPTH=str(depth)))
    if p.returncode == 2:
        return None
    check(p.returncode == 0, "clvid-ref '%s' %dx%d failed: %s" % (chain, w, h, p.stderr.decode()))
    return p.stdout


# rgb24 (ffmpeg's own path for three channels) at two of the sizes: the
# chains' sizes and refusals are the same as rgba's, and each size is an
# ffmpeg run.
RGB24_SIZES = ((17, 9), (641, 359))


def compare(chains, ff_prefix="", frames=1):
    """Each chain on each size in rgba (and on RGB24_SIZES in rgb24): equal
    bytes, or refused by both (a size the chain cannot make)."""
    compared = 0
    for chain in chains:
        for w, h in SIZES:
            rgba = picture(w, h, frames, w * 131 + h * 7 + len(chain))
            want_ref = reference_out(chain, w, h, frames, rgba)
            for fmt in ("rgba", "rgb24") if (w, h) in RGB24_SIZES else ("rgba",):
                data = rgba if fmt == "rgba" else rgba_to_rgb(rgba)
                ff = ffmpeg_out(ff_prefix + chain, fmt, w, h, data)
                got = want_ref
                if fmt == "rgb24" and want_ref is not None:
                    got = rgba_to_rgb(reference_out(chain, w, h, frames, rgb_to_rgba(data)))
                check((ff is None) == (got is None),
                      "'%s' on %dx%d %s: %s" % (chain, w, h, fmt,
                                                "ffmpeg refuses it and clvid does not"
                                                if ff is None else
                                                "clvid refuses it and ffmpeg does not"))
                if ff is None:
                    continue
                check(ff == got, "'%s' on %dx%d %s: clvid-ref's %d bytes differ from ffmpeg's %d"
                      % (chain, w, h, fmt, len(got), len(ff)))
                compared += 1
        print("ok %s" % chain)
    check(compared >= len(chains), "only %d comparisons made" % compared)


def compare16(chains, ff_prefix="", frames=1):
    """The same at 16 bits: clvid-ref's RGBA16 (host order, little-endian
    here) against ffmpeg's rgba64le."""
    if sys.byteorder != "little":
        raise harness.Skip("RGBA16 frames are rgba64le on little-endian hosts only")
    compared = 0
    for chain in chains:
        for w, h in SIZES:
            data = picture(w, h, frames, w * 131 + h * 7 + len(chain), 8)
            got = reference_out(chain, w, h, frames, data, 16)
            ff = ffmpeg_out(ff_prefix + chain, "rgba64le", w, h, data)
            check((ff is None) == (got is None),
                  "'%s' on %dx%d rgba64le: %s refuses it" % (chain, w, h,
                                                            "ffmpeg" if ff is None else "clvid"))
            if ff is None:
                continue
            check(ff == got, "'%s' on %dx%d rgba64le: clvid-ref's %d bytes differ from ffmpeg's %d"
                  % (chain, w, h, len(got), len(ff)))
            compared += 1
        print("ok %s (16 bits)" % chain)
    check(compared >= len(chains), "only %d comparisons made" % compared)


@test
def crop_matches_ffmpeg(tmp):
    """crop: sizes, default centring, clipping, per-frame x/y of n and t."""
    compare(CROP, frames=3)


@test
def pad_matches_ffmpeg(tmp):
    """pad: sizes, 0 and negative positions, colours by name, hex and @alpha."""
    compare(PAD)
    compare(PAD_SAR, ff_prefix="setsar=1,")


@test
def transpose_matches_ffmpeg(tmp):
    """transpose: every direction, the numbers and passthrough."""
    compare(TRANSPOSE)


@test
def chains_match_ffmpeg(tmp):
    """Chains of them with the flips."""
    compare(CHAINS, frames=2)


@test
def rgba64_matches_ffmpeg(tmp):
    """crop, pad, transpose and the chains at 16 bits (rgba64le)."""
    compare16(CROP, frames=3)
    compare16(PAD)
    compare16(PAD_SAR, ff_prefix="setsar=1,")
    compare16(TRANSPOSE)
    compare16(CHAINS, frames=2)


@test
def transcode_matches_ffmpeg(tmp):
    """Through `clvid transcode` on PNGs (the engine's sizes, both ends)."""
    if not ARGS.clvid:
        raise harness.Skip("no --clvid")
    for w, h, alpha in ((3, 2, True), (17, 9, False), (641, 359, True)):
        fmt = "rgba" if alpha else "rgb24"
        src = os.path.join(tmp, "in.png")
        data = picture(w, h, 1, w + h)
        run(["ffmpeg", "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "rgba", "-s",
             "%dx%d" % (w, h), "-i", "-", "-pix_fmt", fmt, src], input=data, text=False)
        for chain in ("crop=iw-1:ih-1:1:1", "pad=iw+3:ih+2:1:1:red@0.5", "transpose=clock",
                      "crop=iw/2:ih:0:0,transpose=cclock,pad=iw+2:ih+2:-1:-1:0x00ff0080"):
            out = os.path.join(tmp, "out.png")
            run([ARGS.clvid, "transcode", "-q", "-i", src, "-vf", chain, "-o", out, "-y"])
            got = run(["ffmpeg", "-v", "error", "-i", out, "-f", "rawvideo", "-pix_fmt", fmt,
                       "-"], text=False).stdout
            want = run(["ffmpeg", "-v", "error", "-i", src, "-vf", chain, "-f", "rawvideo",
                        "-pix_fmt", fmt, "-"], text=False).stdout
            check(got == want, "%dx%d %s '%s': clvid's bytes differ from ffmpeg's" % (w, h, fmt,
                                                                                    chain))
        # scale's size syntax: the sizes only (the bytes are scale_ffmpeg_test's)
        for chain in ("scale=64x36", "scale=size=32x18", "scale=s=qqvga", "scale=sqcif",
                      "scale=w=cga"):
            out = os.path.join(tmp, "out.png")
            run([ARGS.clvid, "transcode", "-q", "-i", src, "-vf", chain, "-o", out, "-y"])
            size = ["-show_entries", "stream=width,height", "-of", "csv=p=0"]
            got = run(["ffprobe", "-v", "error", *size, out]).stdout
            run(["ffmpeg", "-v", "error", "-i", src, "-vf", chain, "-y", out])
            want = run(["ffprobe", "-v", "error", *size, out]).stdout
            check(got == want, "%dx%d '%s': clvid's size %s, ffmpeg's %s" % (w, h, chain,
                                                                          got.strip(),
                                                                          want.strip()))
        print("ok %dx%d %s" % (w, h, fmt))


def main():
    global ARGS
    ARGS = harness.arguments("--clvid", "--ref")
    return harness.main(ARGS, needs=("ffmpeg",))


if __name__ == "__main__":
    sys.exit(main())
