#!/usr/bin/env python3
"""transcode_test.py - clvid transcode end to end, judged by ffmpeg/ffprobe and
by clvid-ref (the C references). One test per run, by name (--list names them),
as ctest runs them."""
import glob
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time
from fractions import Fraction

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Failure, Skip, check, decodes_cleanly, probe, run, streams, test  # noqa: E402
import harness  # noqa: E402

ARGS = None


def ffmpeg(*args):
    return run(["ffmpeg", "-v", "error", "-y", *args])


def clvid(*args, expect=0, **kw):
    return run([ARGS.clvid, "transcode", "-q", *args], expect=expect, **kw)


def raw_rgba(path, extra=()):
    p = subprocess.run(["ffmpeg", "-v", "error", "-i", path, *extra, "-fps_mode", "passthrough", "-f", "rawvideo",
                        "-pix_fmt", "rgba", "-"], capture_output=True)
    check(p.returncode == 0, "cannot decode %s: %s" % (path, p.stderr.decode()))
    return p.stdout


def raw(path, pix_fmt):
    p = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt",
                        pix_fmt, "-"], capture_output=True)
    check(p.returncode == 0, "cannot decode %s: %s" % (path, p.stderr.decode()))
    return p.stdout


def reference(chain, w, h, frames, data):
    p = subprocess.run([ARGS.ref, chain, str(w), str(h), str(frames)], input=data,
                       capture_output=True)
    check(p.returncode == 0, "clvid-ref failed: %s" % p.stderr.decode())
    return p.stdout


def first_difference(a, b, w):
    for i in range(min(len(a), len(b))):
        if a[i] != b[i]:
            px = i // 4
            return "byte %d (x=%d y=%d channel %d): got %d, reference %d" % (
                i, px % w, px // w, i % 4, a[i], b[i])
    return "lengths %d and %d" % (len(a), len(b))


def sample():
    return os.path.join(ARGS.media, "sample.mp4")


def small_clip(tmp, name="small.mp4", seconds=2, extra=()):
    """A short, small cut of the sample with its audio."""
    out = os.path.join(tmp, name)
    ffmpeg("-i", sample(), "-t", str(seconds), "-vf", "scale=320:180", "-c:v", "libx264",
           "-preset", "ultrafast", "-c:a", "aac", *extra, out)
    return out


def duration(s):
    return float(s.get("duration", 0))


FILTERS = ["sharpen", "emboss", "prewitt", "median", "median=radius=2", "erode", "dilate",
           "threshold", "gray", "equalize", "equalize=mode=gray", "noise",
           "noise=type=gaussian:sigma=20", "quantize", "convolution=matrix='1 2 1 2 4 2 1 2 1'",
           "hqdn3d=4:3:10:10", "bilateral=sigmaS=2:sigmaR=0.1", "nlmeans=s=4:p=3:r=7"]
# The sanitizer builds look for memory errors and races in the host's code,
# which every filter drives alike but for its state: one of each kind (none,
# scratch, the frame's index, a palette carried between frames). The plain
# build runs them all.
if os.environ.get("CLVID_SANITIZED"):
    FILTERS = ["sharpen", "median=radius=2", "equalize", "noise", "quantize"]


@test
def each_filter(tmp):
    """Each filter on a clip with sound: same frames, same duration, sound kept."""
    src = small_clip(tmp)
    want = probe(src)
    wv, wa = streams(want, "video")[0], streams(want, "audio")[0]
    for f in FILTERS:
        out = os.path.join(tmp, "out.mp4")
        clvid("-i", src, "-vf", f, "-o", out, "-y")
        got = probe(out)
        gv, ga = streams(got, "video"), streams(got, "audio")
        check(len(gv) == 1 and len(ga) == 1, "%s: streams %s" % (f, got["streams"]))
        check(gv[0]["nb_read_frames"] == wv["nb_read_frames"],
              "%s: %s frames, input has %s" % (f, gv[0]["nb_read_frames"], wv["nb_read_frames"]))
        check(abs(duration(gv[0]) - duration(wv)) < 0.05, "%s: video lasts %s, input %s"
              % (f, gv[0].get("duration"), wv.get("duration")))
        check(abs(duration(ga[0]) - duration(wa)) < 0.05, "%s: audio lasts %s, input %s"
              % (f, ga[0].get("duration"), wa.get("duration")))
        check(ga[0]["codec_name"] == wa["codec_name"], "%s: audio re-encoded" % f)
        decodes_cleanly(out)
        print("ok", f)


def psnr(a, b, w, h):
    """Per-plane and average PSNR of two yuv420p videos, frame by frame in
    decoding order (ffmpeg's psnr filter pairs frames by timestamps, which
    containers round differently)."""
    import math
    ra, rb = raw(a, "yuv420p"), raw(b, "yuv420p")
    check(len(ra) == len(rb) and ra, "frame data differ in size: %d, %d" % (len(ra), len(rb)))
    n = w * h * 3 // 2
    planes = [(0, w * h), (w * h, w * h // 4), (w * h * 5 // 4, w * h // 4)]
    err = [0.0, 0.0, 0.0]
    count = [0, 0, 0]
    for f in range(len(ra) // n):
        for i, (off, size) in enumerate(planes):
            pa = ra[f * n + off:f * n + off + size]
            pb = rb[f * n + off:f * n + off + size]
            err[i] += sum((x - y) * (x - y) for x, y in zip(pa, pb))
            count[i] += size

    def db(e, c):
        return 99.0 if e == 0 else 10 * math.log10(255 * 255 / (e / c))
    return [db(err[i], count[i]) for i in range(3)] + [db(sum(err), sum(count))]


@test
def timeline_enable(tmp):
    """ffmpeg's enable= on a filter, in a chain and in a graph: where it is 0
    the frame passes on as the same run without the filter gives it, where
    not the filter runs (each frame's bytes compared, ffv1)."""
    src = small_clip(tmp, seconds=1)
    logo = os.path.join(tmp, "logo.png")
    ffmpeg("-f", "lavfi", "-i", "color=c=red:s=40x30", "-frames:v", "1", logo)

    def md5s(args):
        out = os.path.join(tmp, "e.mkv")
        clvid("-an", *args, "--frames", "6", "-c:v", "ffv1", "-o", out, "-y")
        p = run(["ffmpeg", "-v", "error", "-i", out, "-f", "framemd5", "-"])
        return [line.rsplit(",", 1)[1].strip() for line in p.stdout.splitlines()
                if line and not line.startswith("#")]
    cases = (
        (["-i", src, "-vf", "hflip=enable='gte(n,3)'"],
         ["-i", src, "-vf", "vflip,vflip"], ["-i", src, "-vf", "hflip"], 3),
        (["-i", src, "-vf", "sharpen,gblur=sigma=3:enable='between(t,0,0.05)',gray"],
         ["-i", src, "-vf", "sharpen,gray"], ["-i", src, "-vf", "sharpen,gblur=sigma=3,gray"], -2),
        (["-i", src, "-i", logo, "-filter_complex", "[0][1]overlay=9:7:enable='gte(n,3)'"],
         ["-i", src, "-i", logo, "-filter_complex", "[0]vflip,vflip"],
         ["-i", src, "-i", logo, "-filter_complex", "[0]vflip,vflip[a];[a][1]overlay=9:7"], 3),
    )
    for args, off, on, first_on in cases:
        got, want_off, want_on = md5s(args), md5s(off), md5s(on)
        check(len(got) == 6, "%s: %d frames" % (args, len(got)))
        # first_on >= 0: on from that frame; < 0: on for the first -first_on
        want = [(want_on if (n >= first_on if first_on >= 0 else n < -first_on) else want_off)[n]
                for n in range(6)]
        check(got == want, "%s: frames %s, want %s" % (args[-1], got, want))
        check(want_off != want_on, "%s: the filter changed nothing" % args[-1])
        print("ok", args[-1])


@test
def vf_lines_match_ffmpeg(tmp):
    """ffmpeg's -vf lines of null, format, setsar and setdar: the same
    size, aspect and pixel format as ffmpeg writes (libx264, an input of SAR
    4:3); frames that only pass those filters are the decoder's own, bit for
    bit; a filter after format, or -pix_fmt outside its list, is refused
    naming it, exit 2, nothing written."""
    src = os.path.join(tmp, "ana.mp4")
    ffmpeg("-i", sample(), "-t", "0.3", "-vf", "scale=320:180,setsar=4/3", "-an", "-c:v", "libx264",
           "-preset", "ultrafast", src)

    def facts(path):
        v = streams(probe(path), "video")[0]
        return (v["width"], v["height"], v.get("sample_aspect_ratio"),
                v.get("display_aspect_ratio"), v["pix_fmt"])
    # More aspects, against ffmpeg's values, in test_filter_pass (on the host).
    lines = ["scale=160:-2,setsar=1,format=yuv420p", "setdar=16/9", "setdar=dar=4/3:max=1000",
             "setsar=sar*2", "setsar=0", "setdar=16:9", "setsar=PI", "scale=iw/3:-1,setsar=sar/2",
             "null", "format=yuv444p", "unsharp,format=yuv422p,setsar=1", "format=rgb24",
             "hflip,format=yuv420p10le", "format=nv12|yuv420p"]
    for vf in lines:
        ours, theirs = os.path.join(tmp, "o.mp4"), os.path.join(tmp, "f.mp4")
        clvid("-i", src, "-vf", vf, "--frames", "2", "-c:v", "libx264", "-preset", "ultrafast",
              "-o", ours, "-y")
        ffmpeg("-i", src, "-vf", vf, "-frames:v", "2", "-c:v", "libx264", "-preset", "ultrafast",
               theirs)
        check(facts(ours) == facts(theirs), "-vf %s: %s, ffmpeg %s" % (vf, facts(ours),
                                                                      facts(theirs)))
        print("ok", vf, facts(ours))

    def md5s(path):
        p = run(["ffmpeg", "-v", "error", "-i", path, "-f", "framemd5", "-"])
        return [line.rsplit(",", 1)[1].strip() for line in p.stdout.splitlines()
                if line and not line.startswith("#")]
    want = md5s(src)
    for vf in ("null", "copy,format=yuv420p", "setsar=1,null", "setdar=16/9"):
        out = os.path.join(tmp, "p.mkv")
        clvid("-i", src, "-vf", vf, "-c:v", "ffv1", "-o", out, "-y")
        check(md5s(out) == want, "-vf %s: frames differ from the input's" % vf)
        print("ok unchanged:", vf)
    # In a graph: the output's format, and one before a filter refused.
    ours, theirs = os.path.join(tmp, "g.mp4"), os.path.join(tmp, "gf.mp4")
    graph = "[0:v][1:v]hstack,format=yuv444p,setsar=1"
    clvid("-i", src, "-i", src, "-filter_complex", graph, "-c:v", "libx264", "-o", ours, "-y")
    ffmpeg("-i", src, "-i", src, "-filter_complex", graph, "-c:v", "libx264", theirs)
    check(facts(ours) == facts(theirs), "%s: %s, ffmpeg %s" % (graph, facts(ours), facts(theirs)))
    bad = os.path.join(tmp, "bad.mp4")
    for args, words in (
            (["-vf", "format=yuv420p,sharpen"], ["'sharpen' (#2 in the chain)", "format=yuv420p"]),
            (["-filter_complex", "[0:v]format=gray,split[a][b];[a][b]hstack"],
             ["'hstack' (#3 in the graph", "format=gray"]),
            (["-vf", "format=yuv420p", "-pix_fmt", "yuv444p"], ["-pix_fmt yuv444p", "format=yuv420p"]),
            (["-vf", "format=yuv4200p"], ["'yuv4200p' is no pixel format"]),
            (["-vf", "setsar=foo("], ["setsar", "foo("])):
        p = clvid("-i", src, *args, "-o", bad, expect=2)
        for w in words:
            check(w in p.stderr, "%s: '%s' not in: %s" % (args, w, p.stderr))
        check(not os.path.exists(bad), "%s: left %s behind" % (args, bad))
        print("ok refused:", " ".join(args))


def rgba_lines_match_ffmpeg(tmp, frames, lines):
    """Each -vf line through clvid and through ffmpeg (on rgba) from `frames`
    frames of ffv1 bgra video in Matroska (whose millisecond ticks hold
    every frame's time at 25 frames/s): every frame's bytes the same. The
    source's path is returned."""
    src = os.path.join(tmp, "in.mkv")
    ffmpeg("-f", "lavfi", "-i", "testsrc2=s=96x54:r=25", "-frames:v", str(frames), "-c:v", "ffv1",
           "-pix_fmt", "bgra", src)

    def md5s(path):
        p = run(["ffmpeg", "-v", "error", "-i", path, "-f", "framemd5", "-pix_fmt", "rgba", "-"])
        return [line.rsplit(",", 1)[1].strip() for line in p.stdout.splitlines()
                if line and not line.startswith("#")]
    for vf in lines:
        ours, theirs = os.path.join(tmp, "o.mkv"), os.path.join(tmp, "f.mkv")
        clvid("-i", src, "-vf", vf, "-c:v", "ffv1", "-o", ours, "-y")
        ffmpeg("-i", src, "-vf", "format=rgba," + vf, "-c:v", "ffv1", "-pix_fmt", "bgra", theirs)
        got, want = md5s(ours), md5s(theirs)
        check(len(got) == frames, "%s: %d frames" % (vf, len(got)))
        bad = [n for n in range(frames) if got[n] != want[n]]
        check(not bad, "-vf %s: frames %s differ from ffmpeg's" % (vf, bad))
        print("ok ffmpeg's bytes:", vf)
    return src


@test
def channels_match_ffmpeg(tmp):
    """fade, negate and colorchannelmixer on RGBA video (ffv1 bgra in
    Matroska, whose millisecond ticks hold every frame's time at 25
    frames/s): every frame's bytes are ffmpeg's with the same -vf on rgba,
    fades by frames, by seconds and both, to black, to a colour, alpha
    alone."""
    rgba_lines_match_ffmpeg(tmp, 12, (
        "fade=in:0:4", "fade=out:1:3:color=0x336699@0.5", "fade=t=out:st=0.1:d=0.15",
        "fade=in:s=2:d=0.1:c=white", "fade=in:st=0.09:n=2:alpha=1", "fade=out:s=3:n=7",
        "negate", "negate=components=g+a",
        "colorchannelmixer=.393:.769:.189:0:.349:.686:.168:0:.272:.534:.131",
        "colorchannelmixer=rr=-2:rg=2:ra=0.5:aa=-1:ar=1"))


@test
def levels_match_ffmpeg(tmp):
    """colorlevels on RGBA video (ffv1 bgra in Matroska): every frame's
    bytes are ffmpeg's with the same -vf on rgba: points inside the range,
    positional, reversed, equal (ffmpeg's flat range gives 0), alpha's, an
    in-point just below 0 that lrint makes 0, and the frame's own points
    (auto) of frames whose range lutrgb narrowed first, and of a fade's
    frames, whose ranges differ frame by frame (the first all black)."""
    rgba_lines_match_ffmpeg(tmp, 4, (
        "colorlevels=rimin=0.1:gimax=0.8:bomin=0.2:bomax=0.7",
        "colorlevels=0.1:0.2:0.3:0:0.9:0.8:0.7:1:0.05:0:0.1",
        "colorlevels=rimin=0.3:rimax=0.2:aimin=0.1:aomax=0.4",
        "colorlevels=rimin=0.5:rimax=0.5:gimin=0.2:gimax=0.2:gomax=0",
        "colorlevels=rimin=-0.001:gimin=-0.002",
        "lutrgb=r=val/2+40:g=val*0.6+20:b=val/3,"
        "colorlevels=rimin=-1:rimax=-1:gimin=-1:gimax=-1:bimin=-1",
        "fade=in:0:4,colorlevels=rimax=-1:gimin=-1:gimax=-1:bimax=-1:preserve=none"))


@test
def draw_match_ffmpeg(tmp):
    """drawbox and drawgrid on RGBA video (ffv1 bgra in Matroska): every
    frame's bytes are ffmpeg's with the same -vf on rgba: outlines, a box
    filled past the frame's edges, invert, expressions of the input's size
    and of each other, defaults, grids with offsets. replace=1 is left
    out: ffmpeg 5.1 crashes on it with rgba (SIGSEGV); filter_draw checks
    its pixels by definition."""
    rgba_lines_match_ffmpeg(tmp, 3, (
        "drawbox=x=10:y=5:w=40:h=30:color=red@0.5:t=4",
        "drawbox=x=-5:y=-3:w=30:h=20:c=0x336699@0.3:t=fill",
        "drawbox=x=iw/2:y=ih/2:w=iw:h=ih:t=7:c=invert", "drawbox=60:30:50:40:yellow@0.7:3",
        "drawbox=x=w:y=h:w=20:h=10:t=2:c=green", "drawbox=w=fill:h=fill:x=10:y=10:t=1",
        "drawbox", "drawgrid=w=iw/7:h=ih/5:t=2:c=white@0.4",
        "drawgrid=x=-3:y=5:w=13:h=11:t=3:c=blue@0.8",
        "drawgrid=width=10:height=9:thickness=1:c=invert"))


@test
def lut_match_ffmpeg(tmp):
    """lut and lutrgb on RGBA video (ffv1 bgra in Matroska): every frame's
    bytes are ffmpeg's with the same -vf on rgba: negval, constants,
    gammaval and gammaval709, the input's size, a condition, values past
    the range both ways and beyond int, st/ld/random carried from value to
    value (ffmpeg's one parsed expression a channel); clip(x) of one
    argument refused by both."""
    src = rgba_lines_match_ffmpeg(tmp, 2, (
        "lutrgb=r=negval:g=val*2:b=val-40:a=128",
        "lutrgb=r=gammaval(0.5):g=gammaval709(2.2):b=maxval-val/3", "lut=c0=255-val:c3=val/2",
        "lutrgb=r=0:g=0", "lutrgb=g=val*w/(w+h)+0.7:b=if(gt(val\\,128)\\,255\\,0)",
        "lut=c1=negval", "lutrgb=r=val*1e8:b=1/0",
        "lutrgb=y=st(0\\,ld(0)+1):u=negval:v=ld(1)+st(1\\,val)", "lutrgb=a=random(0)*255"))
    bad = os.path.join(tmp, "bad.mkv")
    p = clvid("-i", src, "-vf", "lutrgb=b=clip(val)", "-o", bad, expect=2)
    check("clip() takes 3 arguments" in p.stderr and not os.path.exists(bad),
          "clip(val): %s" % p.stderr)
    p = run(["ffmpeg", "-v", "error", "-i", src, "-vf", "format=rgba,lutrgb=b=clip(val)", "-f",
             "null", "-"], expect=None)
    check(p.returncode != 0, "ffmpeg took clip(val)")
    print("ok refused by both: clip(val)")


@test
def cut_file_keeps_last_frames(tmp):
    """An mp4 with B-frames cut short: every frame ffmpeg decodes from it is
    written (the decoder's errors at the cut came before its last good
    frames, which were dropped)."""
    whole = os.path.join(tmp, "t30.mp4")
    ffmpeg("-f", "lavfi", "-i", "testsrc2=s=64x48:r=25", "-frames:v", "30", "-c:v", "libx264",
           "-bf", "3", "-movflags", "+faststart", whole)
    with open(whole, "rb") as f:
        data = f.read()
    for keep in (0.86, 0.9, 0.95):
        cut = os.path.join(tmp, "cut.mp4")
        with open(cut, "wb") as f:
            f.write(data[:int(len(data) * keep)])
        ours, theirs = os.path.join(tmp, "c.mkv"), os.path.join(tmp, "f.mkv")
        clvid("-i", cut, "-vf", "hflip,hflip", "-c:v", "ffv1", "-o", ours, "-y")
        ffmpeg("-i", cut, "-c:v", "ffv1", theirs)
        got = streams(probe(ours), "video")[0]["nb_read_frames"]
        want = streams(probe(theirs), "video")[0]["nb_read_frames"]
        check(got == want, "cut at %.0f%%: %s frames, ffmpeg %s" % (keep * 100, got, want))
        print("ok cut at %.0f%%: %s frames" % (keep * 100, got))


@test
def full_range_outputs(tmp):
    """Gray and the yuvj formats are full range (swscale's and ffmpeg's
    reading): a limited-range white and black give 255 and 0 there, not 235
    and 16, as ffmpeg's own conversion does."""
    def first_pixel(path):
        p = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-frames:v", "1", "-f", "rawvideo",
                            "-pix_fmt", "rgb24", "-"], capture_output=True, check=True)
        return tuple(p.stdout[:3])
    for colour, want in (("white", 255), ("black", 0)):
        src = os.path.join(tmp, colour + ".mkv")
        ffmpeg("-f", "lavfi", "-i", "color=c=%s:s=16x16:r=25" % colour, "-frames:v", "2",
               "-pix_fmt", "yuv420p", "-c:v", "ffv1", src)
        for ext, extra in (("png", ["-pix_fmt", "gray"]), ("tiff", ["-pix_fmt", "gray16le"]),
                           ("jpg", ["-c:v", "mjpeg", "-pix_fmt", "yuvj444p"]),
                           ("jpg", ["-c:v", "mjpeg", "-pix_fmt", "yuvj422p"])):
            ours, theirs = os.path.join(tmp, "c." + ext), os.path.join(tmp, "f." + ext)
            clvid("-q", "-i", src, "-vf", "hflip,hflip", *extra, "--frames", "1", "-o", ours, "-y")
            ffmpeg("-i", src, "-vf", "hflip,hflip", *extra, "-frames:v", "1", theirs)
            got, ref = first_pixel(ours), first_pixel(theirs)
            check(got == ref, "%s %s: %s, ffmpeg %s" % (colour, " ".join(extra), got, ref))
            check(abs(got[0] - want) <= 1, "%s %s: %s" % (colour, " ".join(extra), got))
        print("ok", colour)


@test
def codec_container_pairs(tmp):
    """A codec the container's table leaves out but its muxer writes (png in
    Matroska through VFW, ffv1 in mov) is written, as ffmpeg does; one the
    muxer refuses is exit 1 naming both, nothing left behind."""
    src = os.path.join(tmp, "base.mkv")
    ffmpeg("-f", "lavfi", "-i", "testsrc2=s=64x48:r=25", "-frames:v", "5", "-c:v", "ffv1", src)
    for codec, name in (("png", "p.mkv"), ("ffv1", "f.mov")):
        out = os.path.join(tmp, name)
        clvid("-q", "-i", src, "-vf", "hflip,hflip", "-c:v", codec, "-o", out)
        v = streams(probe(out), "video")[0]
        check(v["codec_name"] == codec and int(v["nb_read_frames"]) == 5,
              "%s in %s: %s" % (codec, name, v))
        print("ok", codec, "in", name)
    for codec, name, container in (("ffv1", "f.mp4", "mp4"), ("png", "p.webm", "webm")):
        out = os.path.join(tmp, name)
        p = clvid("-q", "-i", src, "-c:v", codec, "-o", out, expect=1)
        check("the %s container cannot hold %s video" % (container, codec) in p.stderr,
              "%s in %s: %s" % (codec, name, p.stderr))
        check(not os.path.exists(out), "%s left behind" % name)
        print("ok", codec, "in", name, "refused")


@test
def vfr_into_constant_rate(tmp):
    """Variable frame timing into a container of a constant rate (Y4M, MXF,
    MPEG-PS) goes out one frame a tick, as ffmpeg's -vsync cfr: the frame
    before a gap repeated over it, so the video lasts as long as the input
    and as ffmpeg's output (it was squeezed into 10 frames of 0.4 s)."""
    src = os.path.join(tmp, "vfr.mkv")
    ffmpeg("-f", "lavfi", "-i", "testsrc2=s=64x48:r=25", "-f", "lavfi", "-i", "sine=d=1.24",
           "-frames:v", "10", "-vf", "setpts='if(lt(N,5),N*0.04,N*0.1+0.3)/TB'", "-c:v", "ffv1",
           "-c:a", "pcm_s16le", "-fps_mode", "passthrough", src)
    for ext in ("y4m", "mxf", "mpg"):
        ours, theirs = os.path.join(tmp, "c." + ext), os.path.join(tmp, "f." + ext)
        clvid("-i", src, "-vf", "hflip,hflip", "-o", ours)
        ffmpeg("-i", src, "-vf", "hflip,hflip", "-ar", "48000", theirs)
        got, want = streams(probe(ours), "video")[0], streams(probe(theirs), "video")[0]
        check(got["nb_read_frames"] == want["nb_read_frames"],
              "%s: %s frames, ffmpeg %s" % (ext, got["nb_read_frames"], want["nb_read_frames"]))
        print("ok", ext, got["nb_read_frames"], "frames")


def packet_times(path):
    p = run(["ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "packet=pts",
             "-of", "csv=p=0", path])
    return sorted(int(x) for x in p.stdout.split())


@test
def output_rate(tmp):
    """-r after -i sets the output's frame rate as ffmpeg's does: the same
    frames repeated or dropped at the same timestamps, into a container of
    a constant rate (y4m, mp4: ffmpeg's -vsync cfr) and of variable timing
    (mkv: vfr, a frame on a tick already taken dropped), with a chain and
    without (ffmpeg then takes a frame's own length, rounded). Each frame of
    the clip is a grey of its own, so a frame picked wrongly shows. A rate
    that is not one, or -r before -i (ffmpeg's input rate), is exit 2 with
    nothing written."""
    src = os.path.join(tmp, "ramp.mkv")
    ffmpeg("-f", "lavfi", "-i",
           "color=gray:s=32x16:rate=30:duration=2,geq=lum=16+3*N:cb=128:cr=128",
           "-pix_fmt", "yuv420p", "-c:v", "ffv1", src)
    cases = 0
    for rate in ("24", "50", "7", "30000/1001", "0.5", "ntsc"):
        for chain in ((), ("-vf", "hflip,hflip")):
            for ext, codec in (("y4m", ()), ("mkv", ("-c:v", "ffv1")),
                               ("mp4", ("-c:v", "libx264", "-crf", "0", "-preset", "ultrafast"))):
                ours, theirs = os.path.join(tmp, "c." + ext), os.path.join(tmp, "f." + ext)
                clvid("-i", src, *chain, "-r", rate, *codec, "-y", "-o", ours)
                ffmpeg("-i", src, *chain, "-r", rate, *codec, theirs)
                what = "-r %s %s into %s" % (rate, " ".join(chain) or "(no chain)", ext)
                got, want = packet_times(ours), packet_times(theirs)
                check(got == want, "%s: timestamps %s, ffmpeg %s" % (what, got[:12], want[:12]))
                check(raw(ours, "gray") == raw(theirs, "gray"), "%s: other frames than ffmpeg's"
                      % what)
                r = streams(probe(ours), "video")[0]["r_frame_rate"]
                check(Fraction(r) == Fraction(streams(probe(theirs), "video")[0]["r_frame_rate"]),
                      "%s: rate %s" % (what, r))
                cases += 1
    out = os.path.join(tmp, "bad.mkv")
    for args, words in ((("-i", src, "-r", "0"), "-r 0: expected the output's frames per second"),
                        (("-i", src, "-r", "fast"), "-r fast: expected"),
                        (("-i", src, "-r", "2000"), "at most 1000"),
                        (("-r", "24", "-i", src), "-r 24 before -i is ffmpeg's input frame rate")):
        p = clvid(*args, "-o", out, expect=2)
        check(words in p.stderr, "%s: %s" % (" ".join(args), p.stderr))
        check(not os.path.exists(out), "%s left %s" % (" ".join(args), out))
    print("ok", cases, "rates, chains and containers as ffmpeg's; four mistakes refused")


@test
def fps_filter(tmp):
    """ffmpeg's fps filter: each tick of its rate gets the last frame at or
    before it (its rounding, start_time and eof_action), the same frames and
    timestamps as ffmpeg's into y4m, mkv and mp4, with filters before and
    after it and with -r after it; and framestep (every step-th frame). A filter after fps that depends on the
    frame's number or time, a rate that is no rate, and fps in a graph are
    exit 2, nothing written."""
    src = os.path.join(tmp, "ramp.mkv")
    ffmpeg("-f", "lavfi", "-i",
           "color=gray:s=32x16:rate=30:duration=2,geq=lum=16+3*N:cb=128:cr=128",
           "-pix_fmt", "yuv420p", "-c:v", "ffv1", src)
    runs = 0
    for vf, more in (("fps=24", ()), ("fps=60", ()), ("fps=ntsc", ()),
                     ("fps=source_fps/2:round=up", ()), ("fps=25:round=zero", ()),
                     ("fps=25:round=inf", ()), ("fps=24:round=down:eof_action=pass", ()),
                     ("fps=24:start_time=0.5", ()),
                     ("fps=24:start_time=1/3", ()), ("hflip,fps=12.5,vflip", ()),
                     ("fps=1/2,scale=16:-2", ()), ("fps=12", ("-r", "24")),
                     ("fps=50", ("-r", "24")), ("framestep=2", ()), ("hflip,framestep=7", ()),
                     ("framestep=3", ("-r", "24")), ("fps=10", ("-vframes", "7")),
                     ("fps=60", ("-frames:v", "10")), ("framestep=3", ("-frames:v", "4"))):
        for ext, codec in (("y4m", ()), ("mkv", ("-c:v", "ffv1")),
                           ("mp4", ("-c:v", "libx264", "-crf", "0", "-preset", "ultrafast"))):
            ours, theirs = os.path.join(tmp, "c." + ext), os.path.join(tmp, "f." + ext)
            clvid("-i", src, "-vf", vf, *more, *codec, "-y", "-o", ours)
            ffmpeg("-i", src, "-vf", vf, *more, *codec, theirs)
            what = "-vf %s %s into %s" % (vf, " ".join(more), ext)
            got, want = packet_times(ours), packet_times(theirs)
            check(got == want, "%s: timestamps %s, ffmpeg %s" % (what, got[:12], want[:12]))
            check(raw(ours, "gray") == raw(theirs, "gray"), "%s: other frames than ffmpeg's" % what)
            runs += 1
    out = os.path.join(tmp, "bad.mkv")
    for args, words in (
            (("-vf", "fps=24,fade=in:0:5"), "filter 'fade' (#2 in the chain) comes after fps (#1)"),
            (("-vf", "fps=0"), "fps '0' is 0 frames a second (source_fps 30): expected more"),
            (("-vf", "fps=24:start_time=soon"), "'soon' is not a number of seconds"),
            (("-filter_complex", "[0]fps=10"), "clvid takes it in a chain (-vf), not yet in a "
                                               "graph")):
        p = clvid("-i", src, *args, "-o", out, expect=2)
        check(words in p.stderr, "%s: %s" % (" ".join(args), p.stderr))
        check(not os.path.exists(out), "%s left %s" % (" ".join(args), out))
    check(runs == 57, "%d runs" % runs)
    # The summary counts the frames written (ffmpeg's frame=), not those
    # read, where fps, framestep or -r picks them.
    for more in (("-vf", "fps=10"), ("-vf", "framestep=4"), ("-r", "5"), ("-vf", "hflip")):
        ours = os.path.join(tmp, "n.mkv")
        p = run([ARGS.clvid, "transcode", "-i", src, *more, "-c:v", "ffv1", "-y", "-o", ours])
        frames = len(packet_times(ours))
        check(("clvid: %d frames in " % frames) in p.stderr,
              "%s: the summary does not say %d frames: %s" % (more, frames, p.stderr))
    # A frame-threaded encoder still holds the frame fps repeats when the
    # next comes in (ffvhuff): fps's copy is new memory then, not a write
    # under the encoder.
    moving = os.path.join(tmp, "moving.mkv")
    ffmpeg("-f", "lavfi", "-i", "testsrc2=s=320x240:rate=30", "-frames:v", "45", "-c:v", "ffv1",
           moving)
    for more in (("-vf", "fps=60"), ("-r", "60")):
        threaded, plain = os.path.join(tmp, "h.mkv"), os.path.join(tmp, "p.mkv")
        clvid("-i", moving, *more, "-c:v", "ffvhuff", "-pix_fmt", "yuv420p", "-y", "-o", threaded)
        clvid("-i", moving, *more, "-c:v", "ffv1", "-pix_fmt", "yuv420p", "-y", "-o", plain)
        check(packet_times(threaded) == packet_times(plain), "%s ffvhuff: timestamps" % (more,))
        check(raw(threaded, "yuv420p") == raw(plain, "yuv420p"),
              "%s: ffvhuff's frames are not ffv1's (a repeated frame written under the "
              "encoder?)" % (more,))
    print("ok", runs, "chains and containers as ffmpeg's; four mistakes refused")


@test
def chroma_kept(tmp):
    """8-bit Y'CbCr with more chroma than 4:2:0 keeps it: columns of red
    and blue in yuv444p come back exactly through a chain that changes
    nothing (they were halved into purple), and rows of red and blue from a
    4:2:2 MJPEG into PNG as ffmpeg's own conversion gives them."""
    import math
    stripes = "nullsrc=s=16x8:r=25,format=rgb24,geq=r='if(mod(%s\\,2)\\,255\\,0)':g=0:" \
              "b='if(mod(%s\\,2)\\,0\\,255)'"
    src = os.path.join(tmp, "s444.mkv")
    ffmpeg("-f", "lavfi", "-i", stripes % ("X", "X"), "-frames:v", "2", "-pix_fmt", "yuv444p",
           "-c:v", "ffv1", src)
    out = os.path.join(tmp, "c444.mkv")
    clvid("-i", src, "-vf", "hflip,hflip", "-c:v", "ffv1", "-pix_fmt", "yuv444p", "-o", out)
    check(raw(out, "yuv444p") == raw(src, "yuv444p"), "yuv444p stripes changed")
    src = os.path.join(tmp, "s422.mjpeg.avi")
    ffmpeg("-f", "lavfi", "-i", stripes % ("Y", "Y"), "-frames:v", "1", "-pix_fmt", "yuvj422p",
           "-c:v", "mjpeg", "-q:v", "1", src)
    ours, theirs = os.path.join(tmp, "c.png"), os.path.join(tmp, "f.png")
    clvid("-i", src, "-vf", "hflip,hflip", "-o", ours)
    ffmpeg("-i", src, "-frames:v", "1", theirs)
    a, b = raw(ours, "rgb24"), raw(theirs, "rgb24")
    err = sum((x - y) * (x - y) for x, y in zip(a, b)) / max(len(a), 1)
    db = 99.0 if err == 0 else 10 * math.log10(255 * 255 / err)
    check(len(a) == len(b) and db > 40, "4:2:2 rows against ffmpeg: %.1f dB" % db)
    print("ok 4:4:4 exact, 4:2:2 rows %.1f dB of ffmpeg's" % db)


@test
def nut_from_mpegts(tmp):
    """-f nut (the help's example for standard output) from an MPEG-TS input:
    its default codec, MPEG-4 part 2, codes the time base in 16 bits, so the
    input's 1/90000 is not kept for it (the encoder refused to open)."""
    src = os.path.join(tmp, "src.ts")
    ffmpeg("-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25", "-t", "1", "-c:v", "libx264",
           "-f", "mpegts", src)
    out = os.path.join(tmp, "n.nut")
    clvid("-i", src, "-f", "nut", "-o", out)
    v = streams(probe(out), "video")[0]
    check(v["codec_name"] == "mpeg4" and int(v["nb_read_frames"]) == 25, "nut: %s" % v)
    print("ok", v["codec_name"], v["nb_read_frames"], "frames")


@test
def identity_psnr(tmp):
    """No filter, lossless out: the frames pass through untouched; and a
    filter that changes nothing but forces the yuv -> RGBA -> yuv round trip
    stays above 45 dB (colours outside the RGB cube clip)."""
    src = small_clip(tmp, seconds=1)
    out = os.path.join(tmp, "out.mkv")
    clvid("-i", src, "-c:v", "ffv1", "-o", out)
    y, u, v, avg = psnr(src, out, 320, 180)
    print("identity PSNR average %s dB" % avg)
    check(avg >= 45, "identity PSNR %.2f dB < 45" % avg)
    clvid("-i", src, "-vf", "convolution", "-c:v", "ffv1", "-o", out, "-y")
    y, u, v, avg = psnr(src, out, 320, 180)
    print("RGBA round trip PSNR y %.2f u %.2f v %.2f average %.2f dB" % (y, u, v, avg))
    check(min(y, u, v, avg) >= 45, "round trip PSNR %s" % [y, u, v, avg])


def yuv_patches(w, h, colours):
    """A yuv420p frame of four flat quadrants."""
    y = bytearray(w * h)
    u = bytearray((w // 2) * (h // 2))
    v = bytearray((w // 2) * (h // 2))
    for yy in range(h):
        for xx in range(w):
            q = (yy >= h // 2) * 2 + (xx >= w // 2)
            y[yy * w + xx] = colours[q][0]
    for yy in range(h // 2):
        for xx in range(w // 2):
            q = (yy >= h // 4) * 2 + (xx >= w // 4)
            u[yy * (w // 2) + xx] = colours[q][1]
            v[yy * (w // 2) + xx] = colours[q][2]
    return bytes(y + u + v)


@test
def flat_patches(tmp):
    """BT.601 and BT.709, limited and full: flat patches round-trip within 1."""
    w, h = 64, 64
    for space, rng in [("smpte170m", "tv"), ("smpte170m", "pc"), ("bt709", "tv"),
                       ("bt709", "pc")]:
        # Inside the RGB cube for both matrices (outside it RGB clips).
        colours = [(100, 120, 140), (150, 130, 120), (80, 128, 128), (200, 110, 135)]
        src = os.path.join(tmp, "in.mkv")
        frame = yuv_patches(w, h, colours)
        p = subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt",
                            "yuv420p", "-s", "%dx%d" % (w, h), "-r", "10", "-i", "-", "-c:v",
                            "ffv1", "-colorspace", space, "-color_range", rng, src],
                           input=frame * 3, capture_output=True)
        check(p.returncode == 0, p.stderr.decode())
        out = os.path.join(tmp, "out.mkv")
        clvid("-i", src, "-vf", "convolution", "-c:v", "ffv1", "-o", out, "-y")
        got = raw(out, "yuv420p")
        check(len(got) == 3 * len(frame), "size %d" % len(got))
        worst = max(abs(a - b) for a, b in zip(got[:len(frame)], frame))
        print(space, rng, "largest difference", worst)
        check(worst <= 1, "%s %s: a flat patch moved by %d" % (space, rng, worst))
        s = streams(probe(out), "video")[0]
        check(s.get("color_space") == ("smpte170m" if space == "smpte170m" else "bt709")
              and s.get("color_range") == rng,
              "%s %s: output tagged %s %s" % (space, rng, s.get("color_space"),
                                             s.get("color_range")))


def random_png(path, w, h, alpha, seed):
    rnd = random.Random(seed)
    n = w * h * (4 if alpha else 3)
    data = rnd.randbytes(n)
    p = subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt",
                        "rgba" if alpha else "rgb24", "-s", "%dx%d" % (w, h), "-i", "-",
                        path], input=data, capture_output=True)
    check(p.returncode == 0, p.stderr.decode())


@test
def flips_match_ffmpeg(tmp):
    """hflip and vflip give ffmpeg's own bytes on RGB(A) pictures of awkward
    sizes (the same filters by the same names)."""
    for w, h, alpha in ((1, 1, False), (3, 2, True), (17, 9, False), (641, 359, True)):
        src = os.path.join(tmp, "in-%dx%d.png" % (w, h))
        random_png(src, w, h, alpha, w * 7 + h)
        fmt = "rgba" if alpha else "rgb24"
        for chain in ("hflip", "vflip", "hflip,vflip"):
            out = os.path.join(tmp, "out.png")
            clvid("-i", src, "-vf", chain, "-o", out, "-y")
            got = raw(out, fmt)
            want = run(["ffmpeg", "-v", "error", "-i", src, "-vf", chain, "-f", "rawvideo",
                        "-pix_fmt", fmt, "-"], text=False).stdout
            check(got == want, "%dx%d %s: clvid's bytes differ from ffmpeg's" % (w, h, chain))
        print("ok %dx%d %s" % (w, h, fmt))


@test
def new_size_with_sound(tmp):
    """A chain that changes the size: the encoder is opened at the chain's
    output size with the sound copied beside it, a picture's bytes are the C
    reference's at that size, and the display aspect is carried as ffmpeg's
    scale carries it (through the sample aspect)."""
    out = os.path.join(tmp, "out.mkv")
    chain = "crop=iw-101:ih/2+1:7:3,transpose=cclock,pad=iw+4:ih+2:1:1:0x102030"
    clvid("-i", sample(), "-vf", chain, "-t", "2", "-c:v", "ffv1", "-o", out)
    info = probe(out)
    video, audio = streams(info, "video")[0], streams(info, "audio")
    # 1280x720 -> crop 1179x361 -> transposed 361x1179 -> padded 365x1181
    check((video["width"], video["height"]) == (365, 1181),
          "%dx%d, expected 365x1181" % (video["width"], video["height"]))
    check(len(audio) == 1 and float(audio[0].get("duration", info["format"]["duration"])) > 1.9,
          "the sound is not there: %s" % audio)
    frames = int(video["nb_read_frames"])
    check(frames == 60, "%d frames (2 s at 30 fps)" % frames)
    print("  1280x720 -> %dx%d with sound, %d frames" % (video["width"], video["height"], frames))
    # Pictures in and out: each byte the C reference's, at the new size.
    src, png = os.path.join(tmp, "in.png"), os.path.join(tmp, "out.png")
    random_png(src, 641, 359, True, 5)
    clvid("-i", src, "-vf", chain, "-o", png)
    want = reference(chain, 641, 359, 1, raw_rgba(src))
    check(raw_rgba(png) == want, "641x359 RGBA through '%s' differs from the reference" % chain)
    # The display aspect through the sample aspect, as ffmpeg's scale does.
    sar_in = os.path.join(tmp, "sar.mkv")
    run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=640x424:rate=25:d=0.2",
         "-vf", "setsar=4/3", "-c:v", "ffv1", sar_in])
    for vf, size, sar in (("scale=320:100", (320, 100), "100:159"),
                          ("transpose=clock", (424, 640), "3:4"),
                          ("crop=320:212", (320, 212), "4:3")):
        out = os.path.join(tmp, "sar-out.mkv")
        clvid("-i", sar_in, "-vf", vf, "-c:v", "ffv1", "-o", out, "-y")
        v = streams(probe(out), "video")[0]
        ref = os.path.join(tmp, "sar-ref.mkv")
        run(["ffmpeg", "-v", "error", "-y", "-i", sar_in, "-vf", vf, "-c:v", "ffv1", ref])
        r = streams(probe(ref), "video")[0]
        check((v["width"], v["height"]) == size and v["sample_aspect_ratio"] == sar,
              "%s: %dx%d SAR %s, expected %dx%d SAR %s" % (vf, v["width"], v["height"],
                                                          v["sample_aspect_ratio"], *size, sar))
        check(v["sample_aspect_ratio"] == r["sample_aspect_ratio"],
              "%s: SAR %s, ffmpeg's %s" % (vf, v["sample_aspect_ratio"], r["sample_aspect_ratio"]))
        print("  SAR 4:3 640x424, %s: %dx%d SAR %s as ffmpeg" % (vf, *size, sar))


@test
def size_errors(tmp):
    """A chain that can't make a size is a clear error before anything is
    written: the filter, its place, the sizes; no output file."""
    out = os.path.join(tmp, "out.mp4")
    for vf, words in (("median,crop=w=iw+1", ("crop", "#2", "1280x720")),
                      ("pad=w=iw-2", ("pad", "1280x720")),
                      ("crop=w=iw/0", ("crop",))):
        p = clvid("-i", sample(), "-vf", vf, "-o", out, expect=None)
        err = p.stderr
        check(p.returncode != 0, "%s: exit 0" % vf)
        for w in words:
            check(w in err, "%s: the message does not name %s: %s" % (vf, w, err))
        check(not os.path.exists(out) and not glob.glob(os.path.join(tmp, ".out.mp4.partial*")),
              "%s: an output was left" % vf)
        print("  %s: %s" % (vf, err.strip().splitlines()[0] if err.strip() else "(no message)"))


@test
def png_exact(tmp):
    """PNG in, PNG out: exactly the filters' definitions, odd sizes and 1x1."""
    for (w, h), alpha, chain in [((641, 359), False, "median=radius=2"),
                                 ((641, 359), True, "sharpen,equalize"),
                                 ((1, 1), False, "prewitt,threshold=50"),
                                 ((17, 9), True, "quantize=colors=3,noise=amount=0.3"),
                                 ((64, 48), False, "")]:
        src = os.path.join(tmp, "in.png")
        out = os.path.join(tmp, "out.png")
        random_png(src, w, h, alpha, w * h)
        args = ["-i", src, "-o", out, "-y"] + (["-vf", chain] if chain else [])
        clvid(*args)
        want = reference(chain, w, h, 1, raw_rgba(src))
        got = raw_rgba(out)
        check(got == want, "%dx%d %s '%s': %s" % (w, h, "rgba" if alpha else "rgb", chain,
                                                    first_difference(got, want, w)))
        info = streams(probe(out), "video")[0]
        check(info["pix_fmt"] == ("rgba" if alpha else "rgb24"), "png written as %s"
              % info["pix_fmt"])
        print("ok %dx%d %s '%s'" % (w, h, "rgba" if alpha else "rgb24", chain))


@test
def ffv1_rgb_exact(tmp):
    """An RGB ffv1 video through a chain with per-frame state is exact too."""
    w, h, n = 96, 64, 5
    rnd = random.Random(7)
    data = rnd.randbytes(w * h * 3 * n)
    src = os.path.join(tmp, "in.mkv")
    p = subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "rgb24",
                        "-s", "%dx%d" % (w, h), "-r", "25", "-i", "-", "-c:v", "ffv1",
                        "-pix_fmt", "bgr0", src], input=data, capture_output=True)
    check(p.returncode == 0, p.stderr.decode())
    out = os.path.join(tmp, "out.mkv")
    chain = "noise=type=gaussian:sigma=9,quantize=colors=6:iterations=3"
    clvid("-i", src, "-vf", chain, "-c:v", "ffv1", "-o", out)
    want = reference(chain, w, h, n, raw_rgba(src))
    got = raw_rgba(out)
    check(got == want, first_difference(got, want, w))
    check(streams(probe(out), "video")[0]["pix_fmt"] == "bgr0", "not kept in RGB")


@test
def stream_layouts(tmp):
    """No audio, two audio tracks, a subtitle track: all kept as they were,
    or left out with -an / -sn."""
    base = small_clip(tmp, seconds=1)
    noaudio = os.path.join(tmp, "noaudio.mp4")
    ffmpeg("-i", base, "-an", "-c", "copy", noaudio)
    two = os.path.join(tmp, "two.mkv")
    ffmpeg("-i", base, "-map", "0:v", "-map", "0:a", "-map", "0:a", "-c", "copy", two)
    srt = os.path.join(tmp, "subs.srt")
    with open(srt, "w") as f:
        f.write("1\n00:00:00,100 --> 00:00:00,800\nHello\n\n")
    subs = os.path.join(tmp, "subs.mkv")
    ffmpeg("-i", base, "-i", srt, "-map", "0", "-map", "1", "-c", "copy", "-c:s", "srt", subs)
    pcm = os.path.join(tmp, "pcm.mkv")
    ffmpeg("-i", base, "-c:v", "copy", "-c:a", "pcm_s16le", pcm)
    out = os.path.join(tmp, "pcm.mp4")
    clvid("-i", pcm, "-vf", "emboss", "-o", out)
    audio = streams(probe(out), "audio")
    check(len(audio) == 1 and audio[0]["codec_name"] == "aac",
          "PCM audio into mp4: %s (expected it re-encoded to AAC)" % audio)
    check(abs(duration(audio[0]) - 1.0) < 0.1, "re-encoded audio lasts %s" % audio[0])
    decodes_cleanly(out)
    for src, ext, want, drop in [(noaudio, "mp4", {"video": 1}, []),
                                 (two, "mkv", {"video": 1, "audio": 2}, []),
                                 (subs, "mkv", {"video": 1, "audio": 1, "subtitle": 1}, []),
                                 (two, "mkv", {"video": 1}, ["-an"]),
                                 (subs, "mkv", {"video": 1, "audio": 1}, ["-sn"]),
                                 (subs, "mkv", {"video": 1}, ["-an", "-sn"])]:
        out = os.path.join(tmp, "out." + ext)
        clvid("-i", src, "-vf", "gray", "-o", out, "-y", *drop)
        info = probe(out)
        got = {}
        for s in info["streams"]:
            got[s["codec_type"]] = got.get(s["codec_type"], 0) + 1
        check(got == want, "%s: streams %s, expected %s" % (os.path.basename(src), got, want))
        decodes_cleanly(out)
        print("ok", os.path.basename(src), " ".join(drop), got)


@test
def variable_frame_rate(tmp):
    """Timestamps pass through: a VFR input keeps its frame times."""
    src = os.path.join(tmp, "vfr.mkv")
    ffmpeg("-f", "lavfi", "-i", "testsrc2=size=160x120:rate=30:duration=1", "-vf",
           "setpts='PTS+if(mod(N,3),0,0.013/TB)'", "-fps_mode", "vfr", "-c:v", "libx264",
           "-preset", "ultrafast", src)
    out = os.path.join(tmp, "out.mkv")
    clvid("-i", src, "-vf", "sharpen", "-o", out)

    def times(path):
        p = run(["ffprobe", "-v", "error", "-select_streams", "v", "-show_entries",
                 "frame=pts_time", "-of", "csv=p=0", path])
        return [round(float(x), 3) for x in re.findall(r"[0-9]+\.[0-9]+", p.stdout)]
    a, b = times(src), times(out)
    check(a == b, "frame times differ:\n in %s\nout %s" % (a[:12], b[:12]))


@test
def pixel_formats(tmp):
    """Formats that go through swscale: 10-bit and 4:2:2 in, gray and
    paletted PNG in, yuv444p out; -b:v; a -pix_fmt the encoder lacks."""
    cases = [
        (["-pix_fmt", "yuv420p10le", "-c:v", "ffv1"], "in10.mkv", ["-vf", "sharpen"], "o.mp4"),
        (["-pix_fmt", "yuv422p", "-c:v", "ffv1"], "in422.mkv", ["-vf", "median"], "o.mp4"),
        (["-pix_fmt", "gray", "-frames:v", "1"], "gray.png", ["-vf", "equalize"], "o.png"),
        (["-pix_fmt", "pal8", "-frames:v", "1"], "pal.png", ["-vf", "quantize=4"], "o.png"),
        (["-pix_fmt", "yuv420p", "-c:v", "ffv1"], "in.mkv",
         ["-vf", "emboss", "-c:v", "ffv1", "-pix_fmt", "yuv444p"], "o444.mkv"),
        (["-pix_fmt", "yuv420p", "-c:v", "ffv1"], "in.mkv", ["-b:v", "300k"], "o.mp4"),
    ]
    for make, name, args, out_name in cases:
        src = os.path.join(tmp, name)
        ffmpeg("-f", "lavfi", "-i", "testsrc2=size=160x90:rate=10:duration=1", *make, src)
        out = os.path.join(tmp, out_name)
        clvid("-i", src, "-o", out, "-y", *args)
        want = streams(probe(src), "video")[0]
        got = streams(probe(out), "video")[0]
        check(got["width"] == 160 and got["height"] == 90, "%s: %sx%s" % (name, got["width"],
                                                                       got["height"]))
        check(got["nb_read_frames"] == want["nb_read_frames"], "%s: %s frames, input %s" % (
            name, got["nb_read_frames"], want["nb_read_frames"]))
        if "-pix_fmt" in args:
            check(got["pix_fmt"] == "yuv444p", "written as %s" % got["pix_fmt"])
        decodes_cleanly(out)
        print("ok", name, "->", out_name, got["pix_fmt"])
    out = os.path.join(tmp, "bad.mkv")
    p = clvid("-i", os.path.join(tmp, "in.mkv"), "-c:v", "ffv1", "-pix_fmt", "nv42", "-o", out,
              expect=1)
    check("-pix_fmt nv42: ffv1 takes" in p.stderr, p.stderr)
    check(not os.path.exists(out), "left %s" % out)


@test
def aspect_and_tags(tmp):
    """The sample aspect ratio and the colour tags survive."""
    src = os.path.join(tmp, "sar.mp4")
    ffmpeg("-f", "lavfi", "-i", "testsrc2=size=160x90:duration=0.5", "-c:v", "libx264",
           "-aspect", "4:3", "-colorspace", "bt709", "-color_primaries", "bt709",
           "-color_trc", "bt709", src)
    out = os.path.join(tmp, "out.mkv")
    clvid("-i", src, "-vf", "sharpen", "-o", out)
    a, b = streams(probe(src), "video")[0], streams(probe(out), "video")[0]
    for key in ["sample_aspect_ratio", "display_aspect_ratio", "color_space",
                "color_primaries", "color_transfer", "color_range"]:
        check(a.get(key) == b.get(key), "%s: %s became %s" % (key, a.get(key), b.get(key)))


# The HDR10 metadata of hdr_clip, as ffprobe shows it (side data fields).
HDR10_MASTERING = {"red_x": Fraction(34000, 50000), "red_y": Fraction(16000, 50000),
                   "green_x": Fraction(13250, 50000), "green_y": Fraction(34500, 50000),
                   "blue_x": Fraction(7500, 50000), "blue_y": Fraction(3000, 50000),
                   "white_point_x": Fraction(15635, 50000), "white_point_y": Fraction(16450, 50000),
                   "min_luminance": Fraction(1, 10000), "max_luminance": Fraction(1000)}
HDR10_LIGHT = {"max_content": 1000, "max_average": 400}


def hdr_clip(tmp, name, transfer, hdr10):
    """A second of 10-bit BT.2020 HEVC with transfer `transfer`; with hdr10 its
    mastering display and light level as SEI only (as x265 writes them)."""
    params = "log-level=error:colorprim=bt2020:transfer=%s:colormatrix=bt2020nc" % transfer
    if hdr10:
        params += (":master-display=G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)"
                   "L(10000000,1):max-cll=1000,400:hdr-opt=1:repeat-headers=1")
    out = os.path.join(tmp, name)
    ffmpeg("-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:d=1", "-pix_fmt", "yuv420p10le",
           "-c:v", "libx265", "-x265-params", params, "-color_primaries", "bt2020",
           "-color_trc", transfer, "-colorspace", "bt2020nc", out)
    return out


def hdr_side_data(side_data_list):
    """The mastering display and light level of an ffprobe side_data_list, as
    HDR10_MASTERING and HDR10_LIGHT write them (None for those absent)."""
    mastering = light = None
    for sd in side_data_list or []:
        if sd.get("side_data_type") == "Mastering display metadata":
            mastering = {k: Fraction(sd[k]) for k in HDR10_MASTERING if k in sd}
        elif sd.get("side_data_type") == "Content light level metadata":
            light = {k: sd[k] for k in HDR10_LIGHT if k in sd}
    return mastering, light


def first_frame_side_data(path):
    p = run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_frames", "-read_intervals",
             "%+#1", "-show_entries", "frame=side_data_list", "-of", "json", path])
    frames = json.loads(p.stdout).get("frames", [])
    check(frames, "%s: no frame" % path)
    return frames[0].get("side_data_list")


@test
def hdr_metadata(tmp):
    """A PQ input's colour tags and HDR10 metadata (mastering display, MaxCLL
    and MaxFALL, carried as SEI only) reach the output: as stream side data in
    MKV and MP4, and as SEI in HEVC; an HLG input keeps its transfer; an SDR
    input gets no HDR metadata."""
    if "libx265" not in run(["ffmpeg", "-hide_banner", "-encoders"]).stdout:
        raise Skip("this FFmpeg has no libx265")
    pq = hdr_clip(tmp, "pq.mkv", "smpte2084", True)
    tags = {"color_transfer": "smpte2084", "color_primaries": "bt2020", "color_space": "bt2020nc"}
    hdr10 = (HDR10_MASTERING, HDR10_LIGHT)
    # The input itself: only its frames say it (the check below is no tautology).
    check(hdr_side_data(streams(probe(pq), "video")[0].get("side_data_list")) == (None, None),
          "the input has HDR stream side data already")
    check(hdr_side_data(first_frame_side_data(pq)) == hdr10, "the input's frames lack HDR10")
    outputs = [("pq.mkv", "libx265", True), ("pq.mp4", "libx265", True), ("pq_ffv1.mkv", "ffv1", False)]
    for name, codec, sei in outputs:
        out = os.path.join(tmp, "out_" + name)
        clvid("-i", pq, "-vf", "sharpen", "-c:v", codec, "-o", out)
        v = streams(probe(out), "video")[0]
        for key, want in tags.items():
            check(v.get(key) == want, "%s: %s is %s, not %s" % (name, key, v.get(key), want))
        got = hdr_side_data(v.get("side_data_list"))
        check(got == hdr10, "%s: stream side data %s, not %s" % (name, got, hdr10))
        # The packets read to find the first frame are not lost.
        check(int(v["nb_read_frames"]) == 25, "%s: %s frames, not 25" % (name, v["nb_read_frames"]))
        if sei:
            got = hdr_side_data(first_frame_side_data(out))
            check(got == hdr10, "%s: the first frame's side data (SEI) %s, not %s" % (name, got, hdr10))
    # The MP4's boxes (stream side data, no frame's) are read as well.
    again = os.path.join(tmp, "again.mkv")
    clvid("-i", os.path.join(tmp, "out_pq.mp4"), "-c:v", "ffv1", "-o", again)
    got = hdr_side_data(streams(probe(again), "video")[0].get("side_data_list"))
    check(got == hdr10, "from MP4's boxes: %s, not %s" % (got, hdr10))

    # From a pipe (nothing read twice; -ss cannot seek there), and from -ss
    # in the file (the seek drops the packets the first frame was read from).
    cases = [(("-i", "-"), 25), (("-ss", "0.6", "-i", "-"), 10), (("-ss", "0.6", "-i", pq), 10)]
    for extra, frames in cases:
        out = os.path.join(tmp, "cut.mkv")
        with open(pq, "rb") as f:
            clvid(*extra, "-c:v", "ffv1", "-o", out, "-y", stdin=f)
        v = streams(probe(out), "video")[0]
        check(int(v["nb_read_frames"]) == frames,
              "%s: %s frames, not %d" % (" ".join(extra), v["nb_read_frames"], frames))
        got = hdr_side_data(v.get("side_data_list"))
        check(got == hdr10, "%s: %s, not %s" % (" ".join(extra), got, hdr10))

    hlg = hdr_clip(tmp, "hlg.mkv", "arib-std-b67", False)
    out = os.path.join(tmp, "out_hlg.mkv")
    clvid("-i", hlg, "-vf", "sharpen", "-c:v", "libx265", "-o", out)
    v = streams(probe(out), "video")[0]
    for key, want in dict(tags, color_transfer="arib-std-b67").items():
        check(v.get(key) == want, "HLG: %s is %s, not %s" % (key, v.get(key), want))
    check(hdr_side_data(v.get("side_data_list")) == (None, None), "HLG: HDR10 metadata made up")

    sdr = small_clip(tmp, "sdr.mp4", seconds=1)
    out = os.path.join(tmp, "out_sdr.mkv")
    clvid("-i", sdr, "-vf", "sharpen", "-c:v", "libx265", "-o", out)
    v = streams(probe(out), "video")[0]
    check(v.get("color_transfer") not in ("smpte2084", "arib-std-b67"), "SDR became HDR")
    check(hdr_side_data(v.get("side_data_list")) == (None, None), "SDR: HDR stream side data")
    check(hdr_side_data(first_frame_side_data(out)) == (None, None), "SDR: HDR frame side data")


# ---- More than 8 bits (issue 35) -------------------------------------------

# Chains that leave a ramp's interior as it is (within a code), for the
# 16-bit tests: each runs once every filter in it runs at 16 bits (`clvid
# filters` says 8/16); the others are skipped. Add a filter here when it
# gets its 16-bit kernels.
DEEP_CHAINS = ["hflip,hflip", "sharpen"]


def filter_bits():
    """{filter name: "8/16" or "8"} from `clvid filters`."""
    p = run([ARGS.clvid, "filters"])
    return dict(re.findall(r"^  (\S+) +(8/16|8)  ", p.stdout, re.M))


def deep_chains():
    bits = filter_bits()
    chains = [c for c in DEEP_CHAINS if all(bits.get(f.split("=")[0]) == "8/16"
                                              for f in c.split(","))]
    check(chains, "no chain of %s runs at 16 bits (clvid filters: %s)" % (DEEP_CHAINS, bits))
    print("16-bit chains:", chains, "(left out: %s)" % [c for c in DEEP_CHAINS if c not in chains])
    return chains


def raw16(path, pix_fmt, frames=1):
    """The first frames of path decoded to pix_fmt, as 16-bit samples."""
    import array
    p = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-frames:v", str(frames), "-f",
                        "rawvideo", "-pix_fmt", pix_fmt, "-"], capture_output=True)
    check(p.returncode == 0 and p.stdout, "cannot decode %s: %s" % (path, p.stderr.decode()))
    a = array.array("H")
    a.frombytes(p.stdout)
    if sys.byteorder != ("big" if pix_fmt.endswith("be") else "little"):
        a.byteswap()
    return a


RAMP_W, RAMP_H = 1024, 64


def ramp10(tmp, codec):
    """A horizontal yuv420p10le luma ramp over 64..940 (877 codes, each one
    about 1.2 pixels wide), neutral chroma, 5 frames, lossless."""
    out = os.path.join(tmp, "ramp10_%s.mkv" % codec)
    enc = ["-c:v", "ffv1"] if codec == "ffv1" else [
        "-c:v", "libx265", "-x265-params", "lossless=1:log-level=error"]
    ffmpeg("-f", "lavfi", "-i", "nullsrc=s=%dx%d:r=25:d=0.2,format=yuv420p10le,"
           "geq=lum='64+floor(X*877/%d)':cb=512:cr=512" % (RAMP_W, RAMP_H, RAMP_W), *enc, out)
    return out


def luma_interior(samples, w, h, margin=2):
    return [samples[y * w + x] for y in range(margin, h - margin) for x in range(margin, w - margin)]


@test
def deep_ramp(tmp):
    """A 10-bit ramp (ffv1, and x265 lossless: the HEVC decoder writes into
    the stage's memory) through each 16-bit chain into ffv1 stays 10-bit:
    at least 600 distinct luma codes (8 bits give at most 256) and within 3
    codes of the input in the interior. The chain says nothing about depth."""
    codecs = ["ffv1"]
    if "libx265" in run(["ffmpeg", "-hide_banner", "-encoders"]).stdout:
        codecs.append("x265")
    for chain in deep_chains():
        for codec in codecs:
            src = ramp10(tmp, codec)
            out = os.path.join(tmp, "out.mkv")
            p = run([ARGS.clvid, "transcode", "-i", src, "-vf", chain, "-c:v", "ffv1", "-o",
                     out, "-y"])
            check("8 bits" not in p.stderr, "%s: %s" % (chain, p.stderr))
            v = streams(probe(out), "video")[0]
            check(v["pix_fmt"] == "yuv420p10le", "%s: written as %s" % (chain, v["pix_fmt"]))
            check(int(v["nb_read_frames"]) == 5, "%s: %s frames" % (chain, v["nb_read_frames"]))
            a, b = raw16(src, "yuv420p10le"), raw16(out, "yuv420p10le")
            ya, yb = a[:RAMP_W * RAMP_H], b[:RAMP_W * RAMP_H]
            codes = len(set(yb))
            worst = max(abs(x - y) for x, y in zip(luma_interior(ya, RAMP_W, RAMP_H),
                                                   luma_interior(yb, RAMP_W, RAMP_H)))
            print("%s from %s: %d luma codes, interior off by %d at most" % (chain, codec, codes,
                                                                              worst))
            check(codes >= 600, "%s: %d distinct luma codes, not >= 600" % (chain, codes))
            check(worst <= 3, "%s: the interior moved by %d codes" % (chain, worst))


@test
def deep_png(tmp):
    """A 16-bit PNG ramp (RGB, and RGBA) through each 16-bit chain stays a
    16-bit PNG (rgb48be, rgba64be) and is exact in the interior; ffv1 keeps
    16 bits too."""
    for pix_fmt, alpha in [("rgb48be", False), ("rgba64be", True)]:
        src = os.path.join(tmp, "ramp16_%s.png" % pix_fmt)
        planes = "r='X*64':g='65535-X*64':b='Y*2000+X*3'" + (":a='65535-Y*1000'" if alpha else "")
        ffmpeg("-f", "lavfi", "-i", "nullsrc=s=1024x32:d=0.04,format=%s,geq=%s"
               % ("gbrap16le" if alpha else "gbrp16le", planes), "-frames:v", "1",
               "-pix_fmt", pix_fmt, src)
        n = 4 if alpha else 3
        for chain in deep_chains():
            for out_name, want in [("out.png", pix_fmt), ("out.mkv", "gbrap16le" if alpha
                                                             else "gbrp16le")]:
                out = os.path.join(tmp, out_name)
                clvid("-i", src, "-vf", chain, "-o", out, "-y",
                      *(["-c:v", "ffv1"] if out_name.endswith("mkv") else []))
                got = streams(probe(out), "video")[0]["pix_fmt"]
                check(got == want, "%s %s: %s written as %s, not %s" % (pix_fmt, chain, out_name,
                                                                     got, want))
                fmt = "rgba64le" if alpha else "rgb48le"
                a, b = raw16(src, fmt), raw16(out, fmt)
                bad = [(x, y) for y in range(1, 31) for x in range(1, 1023)
                       if a[(y * 1024 + x) * n:(y * 1024 + x + 1) * n] !=
                       b[(y * 1024 + x) * n:(y * 1024 + x + 1) * n]]
                check(not bad, "%s %s -> %s: %d interior pixels differ, the first at %s" % (
                    pix_fmt, chain, out_name, len(bad), bad[:1]))
                print("ok", pix_fmt, chain, "->", out_name, got)


@test
def deep_hdr10(tmp):
    """x265 output of an HDR10 input through a 16-bit chain is yuv420p10le
    (main10) with PQ, BT.2020 and both kinds of HDR metadata (stream side
    data and SEI)."""
    if "libx265" not in run(["ffmpeg", "-hide_banner", "-encoders"]).stdout:
        raise Skip("this FFmpeg has no libx265")
    pq = hdr_clip(tmp, "pq.mkv", "smpte2084", True)
    hdr10 = (HDR10_MASTERING, HDR10_LIGHT)
    for chain in deep_chains()[:1]:
        out = os.path.join(tmp, "out.mkv")
        clvid("-i", pq, "-vf", chain, "-c:v", "libx265", "-o", out, "-y")
        v = streams(probe(out), "video")[0]
        want = {"pix_fmt": "yuv420p10le", "profile": "Main 10", "color_transfer": "smpte2084",
                "color_primaries": "bt2020", "color_space": "bt2020nc", "color_range": "tv"}
        for key, value in want.items():
            check(v.get(key) == value, "%s: %s is %s, not %s" % (chain, key, v.get(key), value))
        check(hdr_side_data(v.get("side_data_list")) == hdr10, "%s: stream side data %s"
              % (chain, v.get("side_data_list")))
        check(hdr_side_data(first_frame_side_data(out)) == hdr10, "%s: the first frame's SEI %s"
              % (chain, first_frame_side_data(out)))


@test
def deep_dither(tmp):
    """10 bits into an encoder that takes 8 (an 8-bit -pix_fmt, mjpeg): said
    once, and dithered: a flat 10-bit area between two 8-bit codes comes out
    as a mix of both whose mean lies between them, not as one of them."""
    src = os.path.join(tmp, "flat10.mkv")
    # Luma 514 of 1023 is 128.5 in 8-bit codes; neutral chroma.
    ffmpeg("-f", "lavfi", "-i", "nullsrc=s=64x64:r=25:d=0.2,format=yuv420p10le,"
           "geq=lum=514:cb=512:cr=512", "-c:v", "ffv1", src)
    chain = deep_chains()[0]
    out = os.path.join(tmp, "out.mkv")
    p = run([ARGS.clvid, "transcode", "-i", src, "-vf", chain, "-c:v", "ffv1", "-pix_fmt",
             "yuv420p", "-o", out, "-y"])
    said = "ffv1 (yuv420p) takes 8 bits: the 10-bit frames are dithered to 8"
    check(p.stderr.count(said) == 1, "not said once (%r):\n%s" % (said, p.stderr))
    y = raw(out, "yuv420p")[:64 * 64]
    mean = sum(y) / len(y)
    print("flat 128.5 dithered to codes %s, mean %.3f" % (sorted(set(y)), mean))
    check(set(y) == {128, 129} and 128.25 < mean < 128.75,
          "not dithered: codes %s, mean %.3f" % (sorted(set(y)), mean))
    out = os.path.join(tmp, "out.jpg")
    p = run([ARGS.clvid, "transcode", "-i", src, "-vf", chain, "--frames", "1", "-o", out, "-y"])
    check(p.stderr.count("mjpeg (yuvj420p) takes 8 bits") == 1, p.stderr)
    # 8-bit inputs say nothing about it.
    sdr = os.path.join(tmp, "flat8.mkv")
    ffmpeg("-i", src, "-pix_fmt", "yuv420p", "-c:v", "ffv1", sdr)
    p = run([ARGS.clvid, "transcode", "-i", sdr, "-vf", chain, "-c:v", "ffv1", "-o", out + ".mkv"])
    check("bits" not in p.stderr, p.stderr)


def eight_bit_chain(tmp):
    """A chain that runs at 8 bits only: a user kernel that names uchar4
    (every built-in filter runs at 16 bits)."""
    path = os.path.join(tmp, "invert8.cl")
    with open(path, "w") as f:
        f.write("kernel void invert8(global const uchar4 *src, global uchar4 *dst,\n"
                "                    int width, int height, int stride)\n"
                "{\n    int x = get_global_id(0), y = get_global_id(1);\n"
                "    uchar4 p = src[y * stride + x];\n"
                "    dst[y * stride + x] = (uchar4)(255 - p.x, 255 - p.y, 255 - p.z, p.w);\n}\n")
    return "hflip,opencl=file=" + path, "opencl"


@test
def deep_eight_bit_filter(tmp):
    """A chain with a filter of 8 bits only on a 10-bit input: said once,
    naming the filter; the run works, and the output keeps 10 bits."""
    chain, name = eight_bit_chain(tmp)
    src = ramp10(tmp, "ffv1")
    out = os.path.join(tmp, "out.mkv")
    p = run([ARGS.clvid, "transcode", "-i", src, "-vf", chain, "-c:v", "ffv1", "-o", out])
    said = "%s runs at 8 bits only: the 10-bit input is filtered at 8 bits" % name
    check(p.stderr.count(said) == 1, "not said once (%r):\n%s" % (said, p.stderr))
    v = streams(probe(out), "video")[0]
    check(v["pix_fmt"] == "yuv420p10le" and int(v["nb_read_frames"]) == 5,
          "%s frames of %s" % (v["nb_read_frames"], v["pix_fmt"]))
    decodes_cleanly(out)


@test
def deep_pix_fmt(tmp):
    """-pix_fmt decides both ways: a 10-bit input into yuv444p10le (the
    stage gives 16-bit 4:4:4, swscale the rest) stays within a code; an
    8-bit input into yuv420p10le; a format the encoder lacks names both."""
    src = ramp10(tmp, "ffv1")
    chain = deep_chains()[0]
    out = os.path.join(tmp, "out444.mkv")
    clvid("-i", src, "-vf", chain, "-c:v", "ffv1", "-pix_fmt", "yuv444p10le", "-o", out)
    check(streams(probe(out), "video")[0]["pix_fmt"] == "yuv444p10le", "not yuv444p10le")
    a, b = raw16(src, "yuv444p10le"), raw16(out, "yuv444p10le")
    worst = max(abs(x - y) for x, y in zip(a, b))
    check(worst <= 1, "yuv444p10le: off by %d codes" % worst)
    sdr = os.path.join(tmp, "in8.mkv")
    ffmpeg("-i", src, "-pix_fmt", "yuv420p", "-c:v", "ffv1", sdr)
    out = os.path.join(tmp, "up.mkv")
    clvid("-i", sdr, "-vf", chain, "-c:v", "ffv1", "-pix_fmt", "yuv420p10le", "-o", out)
    check(streams(probe(out), "video")[0]["pix_fmt"] == "yuv420p10le", "not yuv420p10le")
    bad = os.path.join(tmp, "bad.mkv")
    p = clvid("-i", src, "-c:v", "libx264", "-pix_fmt", "rgb48be", "-o", bad, expect=1)
    check("-pix_fmt rgb48be: libx264 takes" in p.stderr, p.stderr)
    check(not os.path.exists(bad), "left %s" % bad)


@test
def lavfi_input(tmp):
    """-f FORMAT inputs (libavdevice): a lavfi test source."""
    out = os.path.join(tmp, "lavfi.mp4")
    clvid("-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=1", "-vf", "median",
          "-o", out)
    check(int(streams(probe(out), "video")[0]["nb_read_frames"]) == 25, "not 25 frames")
    p = clvid("-f", "nosuchformat", "-i", "x", "-o", out, "-y", expect=2)
    check("-f nosuchformat: no such input format" in p.stderr, p.stderr)


@test
def time_range(tmp):
    """-ss and -t cut both video and audio; --frames stops early."""
    out = os.path.join(tmp, "cut.mp4")
    clvid("-i", sample(), "-ss", "2", "-t", "3", "-vf", "emboss", "-o", out)
    info = probe(out)
    v, a = streams(info, "video")[0], streams(info, "audio")[0]
    check(abs(int(v["nb_read_frames"]) - 90) <= 1, "%s frames for 3 s" % v["nb_read_frames"])
    check(abs(duration(a) - 3.0) < 0.1, "audio lasts %s" % a.get("duration"))
    clvid("-i", sample(), "--frames", "10", "-o", out, "-y")
    check(int(streams(probe(out), "video")[0]["nb_read_frames"]) == 10, "--frames 10")
    prog = os.path.join(tmp, "progress.txt")
    clvid("-i", sample(), "--frames", "5", "-o", out, "-y", "--progress", prog)
    text = open(prog).read()
    check("frame=5" in text and text.rstrip().endswith("progress=end"), text)


def no_leftovers(tmp, path):
    base = os.path.basename(path)
    left = [f for f in os.listdir(os.path.dirname(path) or ".") if base in f]
    check(not left, "left behind: %s" % left)


@test
def errors(tmp):
    """Each mistake: a clear message, the documented status, nothing left behind."""
    out = os.path.join(tmp, "out.mp4")
    # An existing output is kept without -y.
    with open(out, "w") as f:
        f.write("keep me")
    p = clvid("-i", sample(), "-o", out, expect=1)
    check("already exists; use -y" in p.stderr, p.stderr)
    check(open(out).read() == "keep me", "the existing file was touched")
    os.remove(out)
    cases = [
        (["-i", os.path.join(tmp, "missing.mp4"), "-o", out], 1, "cannot open input"),
        (["-i", tmp, "-o", out], 1, "cannot open input"),
        (["-i", sample(), "-o", os.path.join(tmp, "out.xyz")], 1,
         "cannot tell the output format"),
        (["-i", sample(), "-c:v", "nosuchcodec", "-o", out], 2,
         "-c:v nosuchcodec: no such video encoder"),
        (["-i", sample(), "-c:a", "nosuchcodec", "-o", out], 2,
         "-c:a nosuchcodec: no such audio encoder"),
        (["-i", sample(), "-f", "bogus", "-o", out], 2, "-f bogus: no such output format"),
        (["-f", "bogus", "-i", sample(), "-o", out], 2, "-f bogus: no such input format"),
        (["-i", sample(), "-pix_fmt", "bogus", "-o", out], 2, "-pix_fmt bogus:"),
        (["-i", sample(), "-vf", "medain", "-o", out], 2, "did you mean 'median'"),
        (["-i", sample(), "-vf", "median=radius=9", "-o", out], 2, "allowed: 1 to 7"),
        # Found by the chain's parser (were exit 1, found when it was built).
        (["-i", sample(), "-vf", "yadif,bwdif", "-o", out], 2, "both hold frames back"),
        (["-i", sample(), "-vf", "hue=h=1:H=1", "-o", out], 2, "incompatible"),
        (["-i", sample(), "-vf", "lut3d", "-o", out], 2, "no file given"),
        (["-i", sample(), "-o", sample(), "-y"], 2, "is the input as well as the output"),
        (["-i", sample(), "-crf", "99", "-o", out], 2, "-crf 99"),
        (["-i", sample(), "-b:v", "2Q", "-o", out], 2, "-b:v 2Q"),
        (["-i", sample(), "--frames", "99999999999999999999999", "-o", out], 2, "--frames"),
        # Numbers no time or rate can be (were undefined conversions).
        (["-i", sample(), "-b:v", "1e30", "-o", out], 2, "-b:v 1e30: expected a rate"),
        (["-i", sample(), "-b:v", "nan", "-o", out], 2, "from 1 bit/s to 100000M"),
        (["-i", sample(), "-t", "nan", "-o", out], 2, "-t nan: expected seconds"),
        (["-i", sample(), "-t", "1e300", "-o", out], 2, "at most 1000000000 s"),
        (["-i", sample(), "-ss", "inf", "-o", out], 2, "-ss inf: expected seconds"),
        (["-ss", "1e300", "-i", sample(), "-o", out], 2, "from 0 to 1000000000 s"),
        (["-i", sample(), "-ss", "1:nan", "-o", out], 2, "-ss 1:nan"),
        (["-i", sample(), "-itsoffset", "nan", "-i", sample(), "-o", out], 2,
         "-itsoffset nan: expected seconds"),
        (["-i", sample(), "--live", "--input-format", "bogus", "-o", out], 2,
         "--input-format bogus"),
        (["-i", sample(), "--audio", "default", "-o", out], 2, "add --live"),
        (["-i", sample(), "--live", "--audio-format", "bogus", "--audio", "x", "-o", out], 2,
         "--audio-format bogus"),
        (["-o", out], 2, "-i INPUT is missing"),
        (["-i", sample(), "-o", os.path.join(tmp, "no", "such", "dir", "out.mp4")], 1,
         "cannot write"),
    ]
    garbage = os.path.join(tmp, "garbage.mp4")
    with open(garbage, "wb") as f:
        f.write(random.Random(3).randbytes(20000))
    cases.append((["-i", garbage, "-o", out], 1, "garbage.mp4"))
    empty = os.path.join(tmp, "empty.mp4")
    open(empty, "wb").close()
    cases.append((["-i", empty, "-o", out], 1, "empty.mp4"))
    for args, status, words in cases:
        p = clvid(*args, expect=status)
        check(words in p.stderr, "%s: message lacks '%s':\n%s" % (args, words, p.stderr))
        check(not os.path.exists(out), "%s left %s behind" % (args, out))
        no_leftovers(tmp, out)
        print("ok", status, p.stderr.strip().splitlines()[-1])
    check(os.path.getsize(sample()) > 100000, "the sample was harmed")


@test
def ignored_values(tmp):
    """Values that were taken and silently ignored (a file input reads no
    capture size or rate; -map '[x]' without a graph; a second -vf or
    -filter_complex won, the first never parsed): exit 2 naming the option,
    the value and what it takes, in transcode, play and webcam, and
    nothing written."""
    out = os.path.join(tmp, "out.mkv")
    size = "expected WIDTHxHEIGHT, each from 1 to 16384"
    fps = "expected frames per second, more than 0"
    cases = [
        (["--input-size", "abc"], "--input-size abc: " + size),
        (["--input-size", "0x0"], "--input-size 0x0: " + size),
        (["--input-fps", "-3"], "--input-fps -3: " + fps),
        (["--input-fps", "0"], "--input-fps 0: " + fps),
        (["--input-fps", "abc"], "--input-fps abc: " + fps),
    ]
    for command in ("transcode", "play", "webcam"):
        for args, words in cases:
            if command == "transcode":
                p = clvid("-i", sample(), *args, "-t", "0.1", "-o", out, expect=2)
            else:
                p = run([ARGS.clvid, command, *([sample()] if command == "play" else []), *args,
                         "--exit-after-frames", "1"], expect=2)
            check(words in p.stderr, "%s %s: message lacks '%s':\n%s"
                  % (command, args, words, p.stderr))
            check(not os.path.exists(out), "%s left %s behind" % (args, out))
    # Good values still pass (a file input does not read them).
    clvid("-i", sample(), "--input-size", "hd720", "--input-fps", "30000/1001", "-t", "0.1",
          "-o", out)
    os.remove(out)
    for args, words in [
            (["-map", "[x]"], "-map '[x]': no -filter_complex has a label x"),
            (["-vf", "medain", "-vf", "gray"], "-vf given twice ('medain', then 'gray')"),
            (["-filter_complex", "[0]medain", "-lavfi", "[0]gray"],
             "-lavfi [0]gray: a graph was given before"),
            (["-filter_complex", "[0]gray", "-filter_complex", "[0]gray"],
             "-filter_complex [0]gray: a graph was given before")]:
        p = clvid("-i", sample(), *args, "-t", "0.1", "-o", out, expect=2)
        check(words in p.stderr, "%s: message lacks '%s':\n%s" % (args, words, p.stderr))
        check(not os.path.exists(out), "%s left %s behind" % (args, out))
    # webcam --no-window records one chain: a second -vf is not dropped.
    p = run([ARGS.clvid, "webcam", "-f", "lavfi", "testsrc2=size=64x48", "--no-window", "-vf",
             "gray", "-vf", "hflip", "-o", out], expect=2)
    check("--no-window records one chain: 2 -vf" in p.stderr, p.stderr)
    check(not os.path.exists(out), "webcam --no-window left %s behind" % out)


def interrupted_run(tmp, out, signals, extra=()):
    """Starts a slow transcode, sends `signals` (name, delay) in turn and
    returns (exit status, stderr)."""
    import signal
    import time
    p = subprocess.Popen([ARGS.clvid, "transcode", "-i", sample(), "-vf", "median=radius=4",
                          "-o", out, *extra], stderr=subprocess.PIPE, text=True)
    # The delays count from the first frames written (the partial file
    # grows): a sanitizer build takes seconds to start.
    folder, name = os.path.split(out)
    deadline = time.time() + 120
    while time.time() < deadline and p.poll() is None:
        partial = [f for f in os.listdir(folder) if f.startswith("." + name + ".partial")]
        if partial and os.path.getsize(os.path.join(folder, partial[0])) > 20000:
            break
        time.sleep(0.05)
    for sig, delay in signals:
        time.sleep(delay)
        p.send_signal(getattr(signal, sig))
    try:
        _, err = p.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        p.kill()
        raise Failure("still running two minutes after %s" % signals)
    return p.returncode, err


@test
def interrupt(tmp):
    import hashlib
    digest = hashlib.sha256(open(sample(), "rb").read()).hexdigest()
    for sig, status in (("SIGINT", 130), ("SIGTERM", 143)):
        out = os.path.join(tmp, "cut-%s.mp4" % sig)
        # A second after the first frames: frames and sound in the file
        # (3 s here made the test's 30 s, with three runs).
        code, err = interrupted_run(tmp, out, [(sig, 1.0)])
        check(code == status, "%s: exit %d, expected %d\n%s" % (sig, code, status, err))
        m = re.search(r"holds the (\d+) frames before the stop", err)
        check(m, "%s: no message on what was written:\n%s" % (sig, err))
        decodes_cleanly(out)
        info = probe(out)
        frames = int(streams(info, "video")[0]["nb_read_frames"])
        check(frames == int(m.group(1)) and frames > 0,
              "%s: the output holds %d frames, the message says %s" % (sig, frames, m.group(1)))
        check(streams(info, "audio"), "%s: the sound was lost" % sig)
    # A second Ctrl-C: out at once, nothing left behind, a file already there kept.
    out = os.path.join(tmp, "kept.mp4")
    with open(out, "wb") as f:
        f.write(b"the user's file")
    code, err = interrupted_run(tmp, out, [("SIGINT", 0.5), ("SIGINT", 0.05)], extra=["-y"])
    check(code == 130, "second Ctrl-C: exit %d\n%s" % (code, err))
    check(open(out, "rb").read() == b"the user's file", "the file already there was replaced")
    left = [n for n in os.listdir(tmp) if "partial" in n]
    check(not left, "partial files left behind: %s" % left)
    check(hashlib.sha256(open(sample(), "rb").read()).hexdigest() == digest, "the input changed")


@test
def special_outputs(tmp):
    """The output path is what it names: a FIFO (with a reader) is written
    in place and stays what it was, a character or block device is refused
    with or without -y (no container goes into a device node: -f v4l2 is for a
    virtual camera) and stays what it was, a symbolic link stays a link to
    the new file (with the old file's permissions), -f null writes nothing,
    a folder is refused by name."""
    import stat
    import threading
    fifo = os.path.join(tmp, "fifo")
    os.mkfifo(fifo)
    got = bytearray()

    def reader():
        with open(fifo, "rb") as f:
            got.extend(f.read())
    t = threading.Thread(target=reader)
    t.start()
    clvid("-i", sample(), "-t", "0.5", "-vf", "gray", "-f", "matroska", "-o", fifo, "-y")
    t.join(60)
    check(stat.S_ISFIFO(os.lstat(fifo).st_mode), "the FIFO was replaced")
    through = os.path.join(tmp, "through-fifo.mkv")
    with open(through, "wb") as f:
        f.write(got)
    decodes_cleanly(through)
    check(int(streams(probe(through), "video")[0]["nb_read_frames"]) > 5, "frames lost")
    dev = os.path.join(tmp, "null")
    if subprocess.run(["mknod", dev, "c", "1", "3"], capture_output=True).returncode == 0:
        for overwrite in ([], ["-y"]):
            p = clvid("-i", sample(), "-t", "0.3", "-f", "mp4", "-o", dev, *overwrite, expect=2)
            check("is a device" in p.stderr and "-f v4l2" in p.stderr, p.stderr)
        check(stat.S_ISCHR(os.lstat(dev).st_mode), "the device node was replaced by a file")
        disk = os.path.join(tmp, "disk")  # a block device (a loop minor nothing uses)
        if subprocess.run(["mknod", disk, "b", "7", "250"], capture_output=True).returncode == 0:
            p = clvid("-i", sample(), "-t", "0.3", "-f", "mp4", "-o", disk, "-y", expect=2)
            check("is a device" in p.stderr, p.stderr)
    else:
        print("  mknod not allowed here: the character device case is skipped")
    real = os.path.join(tmp, "real.mp4")
    link = os.path.join(tmp, "link.mp4")
    with open(real, "w") as f:
        f.write("old")
    os.chmod(real, 0o640)
    os.symlink("real.mp4", link)
    clvid("-i", sample(), "-t", "0.3", "-o", link, "-y")
    check(os.path.islink(link) and os.readlink(link) == "real.mp4", "the link was replaced")
    check(stat.S_IMODE(os.stat(real).st_mode) == 0o640, "the file lost its permissions")
    decodes_cleanly(real)
    dangling = os.path.join(tmp, "dangling.mp4")
    os.symlink("made-through-link.mp4", dangling)
    clvid("-i", sample(), "-t", "0.3", "-o", dangling, "-y")
    check(os.path.islink(dangling), "the dangling link was replaced")
    decodes_cleanly(os.path.join(tmp, "made-through-link.mp4"))
    before = sorted(os.listdir(tmp))
    clvid("-i", sample(), "-t", "0.3", "-f", "null", "-o", os.path.join(tmp, "nothing.null"))
    check(sorted(os.listdir(tmp)) == before, "-f null wrote %s" % (set(os.listdir(tmp)) - set(before)))
    p = clvid("-i", sample(), "-o", tmp, "-f", "matroska", "-y", expect=2)
    check("is a folder" in p.stderr, p.stderr)
    # A container of no sound (rawvideo) gets the frames alone, as in ffmpeg:
    # the sample's AAC is left out, not written between them.
    raw = os.path.join(tmp, "frames.yuv")
    clvid("-i", sample(), "-t", "0.4", "-f", "rawvideo", "-o", raw)
    info = streams(probe(sample()), "video")[0]
    frame = info["width"] * info["height"] * 3 // 2  # yuv420p
    num, den = (int(x) for x in info["avg_frame_rate"].split("/"))
    want = round(0.4 * num / den)
    check(os.path.getsize(raw) == want * frame,
          "rawvideo: %d bytes for %d frames of %d" % (os.path.getsize(raw), want, frame))
    # --progress never writes over the input or the output.
    p = clvid("-i", sample(), "-t", "0.2", "-o", os.path.join(tmp, "x.mkv"), "--progress",
              sample(), expect=2)
    check("--progress" in p.stderr and os.path.getsize(sample()) > 100000, p.stderr)
    # A kernel file the chain reads is an input too.
    kernel = os.path.join(tmp, "look.cl")
    shutil.copy(os.path.join(ARGS.media, "..", "examples", "kernels", "vignette.cl"), kernel)
    text = open(kernel).read()
    p = clvid("-i", sample(), "-vf", "opencl=file=" + kernel, "-f", "matroska", "-o", kernel,
              "-y", expect=2)
    check("input" in p.stderr and open(kernel).read() == text, p.stderr)
    # So are a LUT and a curves file (FILE parameters).
    grade = os.path.join(tmp, "grade.cube")
    shutil.copy(os.path.join(ARGS.media, "..", "tests", "data", "film9.cube"), grade)
    text = open(grade).read()
    p = clvid("-i", sample(), "-vf", "sobel,lut3d=interp=trilinear:file=" + grade, "-f",
              "matroska", "-o", grade, "-y", expect=2)
    check("input" in p.stderr and open(grade).read() == text, p.stderr)
    p = clvid("-i", sample(), "-vf", "curves=psfile=" + grade, "-f", "matroska", "-o", grade,
              "-y", expect=2)
    check("input" in p.stderr and open(grade).read() == text, p.stderr)
    check(not [n for n in os.listdir(tmp) if "partial" in n], "partials left: %s" % os.listdir(tmp))


@test
def killed_runs(tmp):
    """SIGHUP stops a run as SIGTERM does (a playable file); after SIGKILL
    the next run into that path removes the dead run's partial, for a file
    (its name shortened where it is long) and for a sequence's picture; a
    live run's partial is left alone."""
    out = os.path.join(tmp, "hup.mp4")
    code, err = interrupted_run(tmp, out, [("SIGHUP", 2.0)])
    check(code == 129, "SIGHUP: exit %d\n%s" % (code, err))
    check("interrupted (SIGHUP)" in err, err)
    decodes_cleanly(out)
    out = os.path.join(tmp, "killed.mp4")
    code, err = interrupted_run(tmp, out, [("SIGKILL", 0.5)])
    check(code == -9, "SIGKILL: exit %d" % code)
    left = [n for n in os.listdir(tmp) if n.startswith(".killed.mp4.partial-")]
    check(left, "no partial after SIGKILL (nothing to test): %s" % os.listdir(tmp))
    # Another live run's partial (a process that holds its lock) stays.
    live = subprocess.Popen([ARGS.clvid, "transcode", "-q", "-i", sample(), "-vf",
                             "median=radius=4", "-o", os.path.join(tmp, "killed.mp4"), "-y"])
    try:
        deadline = time.time() + 60
        while time.time() < deadline and not [
                n for n in os.listdir(tmp) if n == ".killed.mp4.partial-%d" % live.pid]:
            time.sleep(0.05)
        clvid("-i", sample(), "-t", "0.2", "-o", out, "-y")
        names = os.listdir(tmp)
        check(".killed.mp4.partial-%d" % live.pid in names, "a live run's partial was removed")
        check(not [n for n in left if n in names], "the dead run's partial stayed: %s" % names)
    finally:
        live.kill()
        live.wait()
    decodes_cleanly(out)
    # A sequence's picture partial of a dead run goes with the next run into the sequence.
    seq = os.path.join(tmp, "seq")
    os.mkdir(seq)
    dead = os.path.join(seq, ".pic_0007.png.partial-999999999")
    with open(dead, "wb") as f:
        f.write(b"half a picture")
    clvid("-i", sample(), "-t", "0.1", "-o", os.path.join(seq, "pic_%04d.png"))
    check(not os.path.exists(dead), "a dead run's picture partial stayed: %s" % os.listdir(seq))
    # A name near the longest a folder takes (250 bytes): its partial keeps
    # a shortened name (the whole passed 255: "File name too long"), and a
    # dead run's shortened partial goes with the next run.
    name = "l" * 246 + ".mp4"
    tail = ".partial-999999999"
    dead = os.path.join(tmp, "." + name[:255 - 1 - len(tail)] + tail)
    with open(dead, "wb") as f:
        f.write(b"half a file")
    clvid("-i", sample(), "-t", "0.2", "-o", os.path.join(tmp, name))
    check(not os.path.exists(dead), "a dead run's shortened partial stayed")
    decodes_cleanly(os.path.join(tmp, name))


@test
def sequence_outputs(tmp):
    """Image sequences are files too: without -y nothing of a sequence over
    existing files is written; an input sequence (or one of its files,
    reached through a link) is never an output, with or without -y; on a
    full disk the half-written picture is removed."""
    seq = os.path.join(tmp, "f_%03d.png")
    clvid("-i", sample(), "-t", "0.2", "-o", seq)
    files = sorted(glob.glob(os.path.join(tmp, "f_*.png")))
    check(len(files) >= 5, "the sequence has %d files" % len(files))
    stamp = {f: (os.stat(f).st_mtime_ns, os.path.getsize(f)) for f in files}
    os.remove(files[0])  # the first picture is free: the check covers the rest
    p = clvid("-i", sample(), "-t", "0.2", "-o", seq, expect=1)
    check("already exists; use -y" in p.stderr and "f_%03d.png" in p.stderr, p.stderr)
    check(not os.path.exists(files[0]), "a picture was written before the refusal")
    for case in ([seq], [seq, "-y"], [files[2], "-y"]):
        p = clvid("-i", seq, "-vf", "gray", "-o", *case, expect=2)
        check("input" in p.stderr, "%s: %s" % (case, p.stderr))
    other = os.path.join(tmp, "other")
    os.mkdir(other)
    os.symlink(files[3], os.path.join(other, "x_001.png"))
    p = clvid("-i", files[3], "-o", os.path.join(other, "x_%03d.png"), "-y", expect=2)
    check("input" in p.stderr, p.stderr)
    for f in files[1:]:
        check((os.stat(f).st_mtime_ns, os.path.getsize(f)) == stamp[f], "%s was touched" % f)
    small = os.path.join(tmp, "small")
    os.mkdir(small)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", small],
                      capture_output=True).returncode != 0:
        print("  mounting a tmpfs is not allowed here: the full-disk case is skipped")
        return
    try:
        p = clvid("-i", sample(), "-o", os.path.join(small, "x_%04d.png"), expect=1)
        check("No space left" in p.stderr and "x_00" in p.stderr, p.stderr)
        names = sorted(os.listdir(small))
        check(names and all(n.startswith("x_") for n in names), "left behind: %s" % names)
        for n in names:
            decodes_cleanly(os.path.join(small, n))
        print("  full disk: %d whole pictures kept, the last one removed" % len(names))
    finally:
        subprocess.run(["umount", small])


@test
def bad_files(tmp):
    """Damaged and odd inputs: a correct result or a clear error with exit 1;
    never a crash, a hang or a half-written output."""
    data = open(sample(), "rb").read()
    # Truncated with the index at the end (no moov): cannot be opened.
    late = os.path.join(tmp, "late-index.mp4")
    ffmpeg("-i", sample(), "-c", "copy", "-movflags", "-faststart", late)
    cut = os.path.join(tmp, "no-moov.mp4")
    with open(cut, "wb") as f:
        f.write(open(late, "rb").read()[:300000])
    out = os.path.join(tmp, "o1.mp4")
    p = clvid("-i", cut, "-vf", "sharpen", "-o", out, expect=1)
    check("no-moov.mp4" in p.stderr, "truncated file: %s" % p.stderr)
    no_leftovers(tmp, out)
    # Truncated with the index first: what is there is filtered.
    head = os.path.join(tmp, "head.mp4")
    with open(head, "wb") as f:
        f.write(data[:len(data) // 2])
    out = os.path.join(tmp, "o2.mp4")
    clvid("-i", head, "-vf", "sharpen", "-o", out)
    decodes_cleanly(out)
    # Corrupt bytes in the middle: concealed, counted, the rest intact.
    bad = bytearray(data)
    for i in range(len(bad) // 2, len(bad) // 2 + 4000, 7):
        bad[i] ^= 0x5A
    corrupt = os.path.join(tmp, "corrupt.mp4")
    with open(corrupt, "wb") as f:
        f.write(bad)
    out = os.path.join(tmp, "o3.mp4")
    p = run([ARGS.clvid, "transcode", "-q", "-i", corrupt, "-vf", "median", "-o", out])
    # The audio is copied as it is, damage included (as ffmpeg -c:a copy); the
    # video was decoded, so it must decode cleanly.
    v = run(["ffmpeg", "-v", "error", "-i", out, "-map", "0:v", "-f", "null", "-"])
    check(v.stderr.strip() == "", "the video does not decode cleanly:\n%s" % v.stderr)
    frames = int(streams(probe(out), "video")[0]["nb_read_frames"])
    print("  corrupt middle: %d of 270 frames out; %s" % (
        frames, [l for l in p.stderr.splitlines() if "corrupt" in l][-1:]))
    check(frames >= 250, "only %d of 270 frames survived a corrupt packet" % frames)
    # The summary counts the damage, even with -q.
    m = re.search(r"is damaged: (\d+) corrupt video packets? dropped, (\d+) damaged frames? "
                  r"concealed", p.stderr)
    check(m and int(m.group(1)) + int(m.group(2)) > 0,
          "the damage is not counted in the summary:\n%s" % p.stderr[-2000:])
    # No video at all.
    audio = os.path.join(tmp, "audio.m4a")
    ffmpeg("-i", sample(), "-vn", "-c:a", "copy", audio)
    out = os.path.join(tmp, "o4.mp4")
    p = clvid("-i", audio, "-o", out, expect=1)
    check("no video stream" in p.stderr, "audio only: %s" % p.stderr)
    no_leftovers(tmp, out)
    # The size changes mid-stream (two streams concatenated).
    parts = []
    for i, size in enumerate(("320x240", "160x120")):
        parts.append(os.path.join(tmp, "part%d.ts" % i))
        ffmpeg("-f", "lavfi", "-i", "testsrc=size=%s:rate=25:duration=1" % size, "-c:v",
               "libx264", "-pix_fmt", "yuv420p", "-output_ts_offset", str(i), parts[-1])
    joined = os.path.join(tmp, "joined.ts")
    with open(joined, "wb") as f:
        for part in parts:
            f.write(open(part, "rb").read())
    out = os.path.join(tmp, "o5.mp4")
    p = clvid("-i", joined, "-vf", "sharpen", "-o", out, expect=1)
    check("320x240" in p.stderr and "160x120" in p.stderr and "mid-stream" in p.stderr,
          "size change: %s" % p.stderr)
    no_leftovers(tmp, out)
    # Larger than anything can decode: refused up front, naming the input.
    out = os.path.join(tmp, "o6.mp4")
    p = clvid("-f", "lavfi", "-i", "color=size=16384x16384:duration=0.04", "-o", out, expect=1)
    check("16384x16384" in p.stderr, "huge frame: %s" % p.stderr)
    no_leftovers(tmp, out)


@test
def thread_faults(tmp):
    """A failure in the decoder thread, the GPU stage or the encoder thread
    (injected with CLVID_FAULT) stops the others: exit 1 within seconds, the
    reason said, nothing left behind."""
    import time
    for where, words in (("decoder", "decoder failed"), ("stage", "GPU stage failed"),
                         ("encoder", "writing")):
        out = os.path.join(tmp, "fault-%s.mp4" % where)
        env = dict(os.environ, CLVID_FAULT="%s:20" % where)
        start = time.time()
        try:
            p = subprocess.run([ARGS.clvid, "transcode", "-q", "-i", sample(), "-vf", "sharpen",
                                "-o", out], capture_output=True, text=True, env=env, timeout=30)
        except subprocess.TimeoutExpired:
            raise Failure("a %s fault hangs the pipeline" % where)
        took = time.time() - start
        print("  %s fault: exit %d after %.2f s: %s" % (where, p.returncode, took, p.stderr.strip()))
        check(p.returncode == 1 and words in p.stderr, "%s fault: exit %d, %s"
              % (where, p.returncode, p.stderr))
        no_leftovers(tmp, out)
    # A failure with frames still in the stage (a heavy chain, the fault
    # early): the stage is destroyed, waiting for its kernels, before those
    # frames go back to the decoder's pool, which frees their shared memory
    # (on PoCL the other order crashed in a running kernel, exit 139).
    for where, words in (("stage", "GPU stage failed"), ("encoder", "writing")):
        out = os.path.join(tmp, "heavy-%s.mp4" % where)
        env = dict(os.environ, CLVID_FAULT="%s:3" % where)
        p = subprocess.run([ARGS.clvid, "transcode", "-q", "-i", sample(), "-vf",
                            "median=radius=4,gblur=sigma=3", "-o", out],
                           capture_output=True, text=True, env=env, timeout=60)
        print("  %s fault in a heavy chain: exit %d: %s" % (where, p.returncode, p.stderr.strip()))
        check(p.returncode == 1 and words in p.stderr, "%s fault in a heavy chain: exit %d, %s"
              % (where, p.returncode, p.stderr))
        no_leftovers(tmp, out)


@test
def graph_input_fault(tmp):
    """A graph's second input whose decoder fails (CLVID_FAULT=decoder:100
    hits each decoder; at 100 fps against 25 the second reaches its 100th
    frame first) fails the run as the first input's would: exit 1, the
    input named, nothing left behind; without the fault the run succeeds."""
    clips = []
    for name, rate in (("slow.mp4", 25), ("fast.mp4", 100)):
        clips.append(os.path.join(tmp, name))
        ffmpeg("-f", "lavfi", "-i", "testsrc=size=160x120:rate=%d:duration=5" % rate,
               "-pix_fmt", "yuv420p", clips[-1])
    out = os.path.join(tmp, "fault-graph.mp4")
    args = ("-i", clips[0], "-i", clips[1], "-filter_complex",
            "[0:v][1:v]blend=all_mode=difference", "--frames", "100", "-o", out)
    env = dict(os.environ, CLVID_FAULT="decoder:100")
    p = clvid(*args, expect=1, env=env, timeout=60)
    check("'%s': decoder failed" % clips[1] in p.stderr, "second input's fault: %s" % p.stderr)
    no_leftovers(tmp, out)
    clvid(*args, timeout=60)


def pngs(folder):
    names = sorted(os.listdir(folder))
    return names, [open(os.path.join(folder, n), "rb").read() for n in names]


@test
def devices(tmp):
    """Several devices (two PoCL CPU devices, POCL_DEVICES="pthread pthread"):
    for every filter the output with --device all is the output with one
    device, byte for byte, as a PNG sequence and as ffv1 with its sound;
    frames dealt to both (but quantize and hqdn3d, which carry their palette
    or last frame, on the first); a device failing mid-run is survived with the same output; both
    failing stops cleanly; bad lists are refused by name."""
    env = dict(os.environ, POCL_DEVICES="pthread pthread")
    env.pop("CLVID_DEVICE", None)

    def tc(*args, expect=0, fault=None):
        e = dict(env, CLVID_FAULT=fault) if fault else env
        return run([ARGS.clvid, "transcode", *args], expect=expect, env=e)

    src = small_clip(tmp, seconds=1)
    for f in FILTERS:
        outs = []
        for dev in ("0", "all"):
            folder = os.path.join(tmp, "png-%s" % dev)
            shutil.rmtree(folder, ignore_errors=True)
            os.makedirs(folder)
            p = tc("-i", src, "-vf", f, "--device", dev, "-o", os.path.join(folder, "f%03d.png"))
            outs.append((pngs(folder), p.stderr))
        (names1, one), err1 = outs[0]
        (names2, two), err2 = outs[1]
        check(names1 == names2 and len(names1) >= 25, "%s: %d and %d frames" % (f, len(names1),
                                                                               len(names2)))
        if one != two:
            raise Failure("%s: --device all differs from one device at frame %s" % (
                f, next(n for n, a, b in zip(names1, one, two) if a != b)))
        m = re.search(r"devices: #0 .*? (\d+) frames .*; #1 .*? (\d+) frames", err2)
        check(m, "%s: no device shares in the summary:\n%s" % (f, err2))
        a, b = int(m.group(1)), int(m.group(2))
        check(a + b == len(names1), "%s: shares %d + %d for %d frames" % (f, a, b, len(names1)))
        if f.split("=")[0] in ("quantize", "hqdn3d"):
            check(b == 0, "%s carries its state: %d frames went to device 1" % (f, b))
        else:
            check(a > 0 and b > 0, "%s: frames dealt %d + %d" % (f, a, b))
        print("  %-40s %d frames, equal; dealt %d + %d" % (f, len(names1), a, b))

    # ffv1 with sound, a heavier chain; then with a device failing mid-run.
    want = os.path.join(tmp, "one.mkv")
    tc("-i", src, "-vf", "median=radius=2,sharpen", "-c:v", "ffv1", "--device", "0", "-o", want)
    ref = run(["ffmpeg", "-v", "error", "-i", want, "-f", "framemd5", "-"]).stdout
    for fault, survived in ((None, None), ("device1:0", "device 1"), ("device0:0", "device 0")):
        got = os.path.join(tmp, "all.mkv")
        p = tc("-i", src, "-vf", "median=radius=2,sharpen", "-c:v", "ffv1", "--device", "all",
               "-o", got, "-y", fault=fault)
        md5 = run(["ffmpeg", "-v", "error", "-i", got, "-f", "framemd5", "-"]).stdout
        check(any(line.startswith("1,") for line in md5.splitlines()),
              "ffv1 (fault %s): no sound" % fault)
        check(md5 == ref, "ffv1 + sound (fault %s): differs from one device" % fault)
        if survived:
            check(re.search(r"warning: %s \(.*\) failed: injected fault" % survived, p.stderr)
                  and "FAILED" in p.stderr, "fault %s: not reported:\n%s" % (fault, p.stderr))
        print("  ffv1 + sound, fault %s: equal to one device" % fault)

    # Both failing: exit 1 naming a device, nothing left behind.
    out = os.path.join(tmp, "both.mkv")
    p = tc("-i", src, "-vf", "sharpen", "-c:v", "ffv1", "--device", "all", "-o", out,
           expect=1, fault="device0:0,device1:0")
    check("no other device is left" in p.stderr, "both failing: %s" % p.stderr)
    no_leftovers(tmp, out)

    # Bad lists.
    for spec, words in (("0,0", "named twice"), ("0,7", "no device with that index"),
                        ("gpu", "no GPU device here"), ("0,,1", "separated by commas")):
        p = tc("-i", src, "-vf", "sharpen", "--device", spec, "-o", os.path.join(tmp, "x.mp4"),
               expect=2)
        check(words in p.stderr, "--device %s: %s" % (spec, p.stderr))
        check(not os.path.exists(os.path.join(tmp, "x.mp4")), "--device %s: output written" % spec)


@test
def memory_steady(tmp):
    """10 000 frames through the whole pipeline: resident memory after the
    first thousand frames does not grow."""
    import time
    if os.environ.get("CLVID_SANITIZED"):
        raise Skip("a sanitizer's quarantine grows memory by design; leaks are its own check")
    out = os.path.join(tmp, "long.mkv")
    progress = os.path.join(tmp, "progress.txt")
    p = subprocess.Popen([ARGS.clvid, "transcode", "-q", "-f", "lavfi", "-i",
                          "testsrc2=size=320x240:rate=25", "--frames", "10000", "-vf",
                          "sharpen,median", "-preset", "ultrafast", "-o", out, "--progress",
                          progress])
    samples = []  # (frame, resident kB)
    while p.poll() is None:
        time.sleep(0.1)
        try:
            rss = int(re.search(r"VmRSS:\s+(\d+)", open("/proc/%d/status" % p.pid).read()).group(1))
            frames = re.findall(r"frame=(\d+)", open(progress).read())
        except (OSError, AttributeError):
            continue
        if frames:
            samples.append((int(frames[-1]), rss))
    check(p.returncode == 0, "exit %d" % p.returncode)
    after = [rss for frame, rss in samples if frame >= 1000]
    check(len(after) >= 5, "too few samples: %s" % samples)
    early = [rss for frame, rss in samples if 1000 <= frame < 3000]
    late = [rss for frame, rss in samples if frame >= 8000]
    check(early and late, "no samples early or late: %s" % samples)
    growth = max(late) - max(early)
    print("  resident memory: %d kB at frames 1000-3000, %d kB after 8000 (%+d kB)"
          % (max(early), max(late), growth))
    check(growth < 4096, "resident memory grew by %d kB over 7000 frames" % growth)


@test
def disk_full(tmp):
    """A full disk: a clear error, exit 1, no file claiming to be complete. On
    a 300 kB tmpfs when mounting is allowed, else under a 300 kB file size
    limit (the same write failure to the program)."""
    import resource
    import signal
    small = os.path.join(tmp, "small")
    os.mkdir(small)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=300k", "tmpfs", small],
                             capture_output=True).returncode == 0
    limit = None
    if not mounted:
        def limit():
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (300 * 1024, 300 * 1024))
    try:
        out = os.path.join(small, "out.mp4")
        p = subprocess.run([ARGS.clvid, "transcode", "-q", "-i", sample(), "-vf", "sharpen", "-o",
                            out], capture_output=True, text=True, preexec_fn=limit)
        print("  %s: exit %d: %s" % ("tmpfs" if mounted else "RLIMIT_FSIZE", p.returncode,
                                      p.stderr.strip()))
        check(p.returncode == 1, "exit %d, expected 1" % p.returncode)
        check("out.mp4" in p.stderr and ("No space left" in p.stderr or "too large" in p.stderr),
              "the message does not say the disk is full: %s" % p.stderr)
        check(os.listdir(small) == [], "left behind: %s" % os.listdir(small))
        # HLS: its muxer goes on past failed writes of its segments and
        # playlist (empty files, a 0 s playlist, exit 0 before); the run
        # fails naming the file, and what it made goes.
        out = os.path.join(small, "live.m3u8")
        p = subprocess.run([ARGS.clvid, "transcode", "-q", "-i", sample(), "-crf", "0",
                            "-hls_time", "1", "-o", out], capture_output=True, text=True,
                           preexec_fn=limit)
        print("  HLS: exit %d: %s" % (p.returncode, p.stderr.strip()))
        check(p.returncode == 1, "HLS: exit %d, expected 1" % p.returncode)
        check("No space left" in p.stderr or "too large" in p.stderr,
              "HLS: the message does not say the disk is full: %s" % p.stderr)
        check(os.listdir(small) == [], "HLS: left behind: %s" % os.listdir(small))
    finally:
        if mounted:
            subprocess.run(["umount", small])

# Per-chain checksums of the decoded ffv1 output (12 frames of the sample),
# recorded with the transcoder as it was before the pipeline became a
# library (src/pipeline): the same frames must come out of every later
# version. Every filter is exact, so these hold on every OpenCL device.
GOLDEN = [
    ("", "yuv420p", "032996c20443088d23a05b90f716cd19"),
    ("median,sharpen", "yuv420p", "121486109c7587f3a252df0e68f7f025"),
    ("equalize", "yuv420p", "fc1b455d3e3eb44ee1aa2e7251545d21"),
    ("quantize=colors=8:iterations=4", "yuv420p", "174065a95860b136c7ad222d2888b682"),
    ("noise=amount=0.1,prewitt", "yuv420p", "a9932f0a8e614623db2373e866bece6e"),
    ("erode=radius=2,emboss", "yuv420p", "2f4222053ed39c1189f5879f6445f51c"),
    ("median,sharpen", "bgr0", "5029c0d779813cbd161bd86a58010875"),
]


@test
def user_kernel_errors(tmp):
    """The opencl filter headless: a compile error is exit 2 with the
    compiler's message at the file's own line, and the output the user had
    is kept; a kernel that never finishes is stopped by the watchdog, named,
    with nothing written; a good kernel between built-in filters runs."""
    out = os.path.join(tmp, "out.mp4")
    with open(out, "w") as f:
        f.write("keep me")
    bad = os.path.join(tmp, "bad.cl")
    with open(bad, "w") as f:
        f.write("// @param int level = 3 [0, 9]\n\nkernel void k(CLV_ARGS, int level)\n{\n"
                "    WRITE(undeclared_thing + level);\n}\n")
    p = clvid("-i", sample(), "-vf", "median,opencl=file=%s,sharpen" % bad, "-o", out, "-y",
              expect=2)
    check("%s:5:" % bad in p.stderr and "undeclared_thing" in p.stderr,
          "no file:line in: %s" % p.stderr)
    check(open(out).read() == "keep me", "the existing output was touched")
    no_leftovers(tmp, out + ".")  # no partial file beside it
    p = clvid("-i", sample(), "-vf", "opencl=file=%s:level=12" % bad, "-o", out, "-y", expect=2)
    check("parameter 'level': 12 is out of range (allowed: 0 to 9)" in p.stderr, p.stderr)
    hang = os.path.join(tmp, "hang.cl")
    with open(hang, "w") as f:
        f.write("kernel void hang(CLV_ARGS)\n{\n    for (;;)\n        WRITE(READ(CLV_X, CLV_Y));\n}\n")
    os.remove(out)
    began = time.time()
    p = run([ARGS.clvid, "transcode", "-q", "-i", sample(), "-vf", "opencl=file=" + hang,
             "-o", out], expect=1, env=dict(os.environ, CLVID_WATCHDOG="2"), timeout=120)
    took = time.time() - began
    print("  endless kernel stopped after %.1f s: %s" % (took, p.stderr.strip().splitlines()[-1]))
    check("took more than 2 s" in p.stderr and "user kernel" in p.stderr, p.stderr)
    check(not os.path.exists(out), "a partial output was left")
    no_leftovers(tmp, out)
    good = os.path.join(ARGS.media, "..", "examples", "kernels", "pixelate.cl")
    clvid("-i", sample(), "-vf", "median,opencl=file=%s:block=9,sharpen" % good, "--frames", "3",
          "-o", out, "-y")
    check(probe(out)["streams"][0]["nb_read_frames"] == "3", "3 frames expected")


@test
def golden_ffv1(tmp):
    """The sample through several chains into ffv1: frame for frame the
    output recorded before the pipeline moved into its library, with the
    frames in memory shared with a CPU device and copied to device buffers
    (CLVID_STAGING=copy, the discrete GPUs' path); the summary says which."""
    import hashlib
    out = os.path.join(tmp, "out.mkv")
    for staging in ("", "copy"):
        env = dict(os.environ, CLVID_STAGING=staging)
        for chain, pix_fmt, want in GOLDEN:
            args = ["-i", sample(), "--frames", "12", "-c:v", "ffv1", "-o", out, "-y"]
            if chain:
                args += ["-vf", chain]
            if pix_fmt != "yuv420p":
                args += ["-pix_fmt", pix_fmt]
            p = run([ARGS.clvid, "transcode", *args], env=env)
            shared = "no upload or download" in p.stderr
            # PoCL's CPU devices share by default; GPUs always copy.
            expect = staging != "copy" and " on pthread-" in p.stderr
            check(shared == expect, "staging %r: the summary says %s:\n%s" % (
                staging or "default", "shared" if shared else "copied", p.stderr))
            p = run(["ffmpeg", "-v", "error", "-i", out, "-map", "0:v", "-f", "framemd5", "-"])
            lines = "".join(l + "\n" for l in p.stdout.splitlines() if not l.startswith("#"))
            got = hashlib.md5(lines.encode()).hexdigest()
            check(lines.count("\n") == 12, "%r: %d frames, expected 12" % (chain,
                                                                           lines.count("\n")))
            check(got == want, "%r (%s, staging %r): frames differ from the recorded output "
                  "(%s, expected %s)" % (chain, pix_fmt, staging or "default", got, want))


@test
def deinterlace_rates(tmp):
    """A deinterlacer's modes: send_field (bwdif's default) makes a frame per
    field, twice the frames at twice the rate over the same duration, with
    ffmpeg's timestamps (2 pts(n), pts(n) + pts(n + 1), the last one
    extrapolated); send_frame a frame per frame, the held one flushed at the
    end. The sound is copied and lasts as long. A clip of one frame gives
    two fields."""
    src = small_clip(tmp, extra=("-vf", "scale=320:180,tinterlace=interleave_top,setfield=tff"))
    want = probe(src)
    wv, wa = streams(want, "video")[0], streams(want, "audio")[0]
    n_in, rate = int(wv["nb_read_frames"]), Fraction(wv["r_frame_rate"])

    def times(path):
        p = run(["ffprobe", "-v", "error", "-select_streams", "v", "-show_entries",
                 "frame=pts_time", "-of", "csv=p=0", path])
        return [round(float(x), 3) for x in re.findall(r"[0-9]+\.[0-9]+", p.stdout)]

    def length(s):  # Matroska keeps a stream's duration in a tag
        h, m, sec = (s.get("tags", {}).get("DURATION") or "0:0:0").split(":")
        return duration(s) or int(h) * 3600 + int(m) * 60 + float(sec)
    for vf, per in (("bwdif", 2), ("yadif=send_field", 2), ("bwdif=send_frame", 1),
                    ("yadif", 1)):
        for ext in ("mp4", "mkv"):
            out = os.path.join(tmp, "out." + ext)
            clvid("-i", src, "-vf", vf, "-o", out, "-y")
            got = probe(out)
            gv, ga = streams(got, "video"), streams(got, "audio")
            check(len(gv) == 1 and len(ga) == 1, "%s: streams %s" % (vf, got["streams"]))
            check(int(gv[0]["nb_read_frames"]) == per * n_in, "%s .%s: %s frames, expected %d"
                  % (vf, ext, gv[0]["nb_read_frames"], per * n_in))
            check(Fraction(gv[0]["r_frame_rate"]) == per * rate, "%s .%s: rate %s, expected %s"
                  % (vf, ext, gv[0]["r_frame_rate"], per * rate))
            check(abs(length(gv[0]) - duration(wv)) < 0.05, "%s .%s: video lasts %s, input %s"
                  % (vf, ext, length(gv[0]), wv.get("duration")))
            check(abs(length(ga[0]) - duration(wa)) < 0.05, "%s .%s: audio lasts %s, input %s"
                  % (vf, ext, length(ga[0]), wa.get("duration")))
            check(ga[0]["codec_name"] == wa["codec_name"], "%s: audio re-encoded" % vf)
            if ext == "mkv":
                ref = os.path.join(tmp, "ffmpeg.mkv")
                ffmpeg("-i", src, "-vf", vf, "-an", ref)
                a, b = times(out), times(ref)  # from the first (the sound's start shifts both)
                a, b = [round(t - a[0], 3) for t in a], [round(t - b[0], 3) for t in b]
                check(a == b, "%s: frame times differ from ffmpeg's:\n got %s\nffmpeg %s"
                      % (vf, a[-6:], b[-6:]))
            decodes_cleanly(out)
        print("ok %s: %d frames of %d at %s fps" % (vf, per * n_in, n_in, per * rate))
    one, out = os.path.join(tmp, "one.mkv"), os.path.join(tmp, "one-out.mkv")
    ffmpeg("-i", src, "-frames:v", "1", "-an", "-c:v", "ffv1", one)
    clvid("-i", one, "-vf", "bwdif", "-o", out, "-y")
    check(len(times(out)) == 2, "one frame in: %d out, expected 2" % len(times(out)))


@test
def segment_frame_index(tmp):
    """A run that starts mid-video, told its first frame's index, equals the
    same frames of the whole run, noise included: how a segment of a longer
    job (a cluster) is made."""
    chain = "noise=amount=0.3:seed=5,sharpen"
    full, part = os.path.join(tmp, "full.mkv"), os.path.join(tmp, "part.mkv")
    clvid("-i", sample(), "--frames", "60", "-vf", chain, "-c:v", "ffv1", "-an", "-o", full)
    clvid("-i", sample(), "-ss", "0.99", "--frames", "30", "--frame-index", "30", "-vf", chain,
          "-c:v", "ffv1", "-an", "-o", part)

    def sums(path):
        p = run(["ffmpeg", "-v", "error", "-i", path, "-f", "framemd5", "-"])
        return [l.split(",")[-1].strip() for l in p.stdout.splitlines() if not l.startswith("#")]
    whole, seg = sums(full), sums(part)
    check(len(seg) == 30 and seg == whole[30:], "the segment's frames differ from frames 30-59")
    clvid("-i", sample(), "--frame-index", "-3", "-o", part, "-y", expect=2)


def partials(folder):
    return [n for n in os.listdir(folder) if ".partial-" in n]


def slow_run(tmp, out, extra=()):
    """A slow transcode into out (read at the clip's rate: 2 s, the CPU
    idle), returned once its first partial exists."""
    p = subprocess.Popen([ARGS.clvid, "transcode", "-q", "-re", "-i", sample(), "-t", "2", "-vf",
                          "sharpen", "-o", out, *extra], stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while time.time() < deadline and p.poll() is None and not partials(tmp):
        time.sleep(0.01)
    return p


@test
def output_appears_during_run(tmp):
    """Without -y, a file made at the output path while the run writes
    (the user's, or another run's) is kept: the run fails naming it, exit
    1, and leaves no partial; with -y it is replaced. A single picture's run
    replaces only its own earlier frames."""
    for out, extra in (("race.mp4", ()), ("race2.mkv", ("-f", "tee"))):
        target = os.path.join(tmp, out)
        spec = "%s|%s" % (os.path.join(tmp, "other.mkv"), target) if extra else target
        if os.path.exists(os.path.join(tmp, "other.mkv")):
            os.remove(os.path.join(tmp, "other.mkv"))
        p = slow_run(tmp, spec, extra)
        with open(target, "w") as f:
            f.write("precious")
        _, err = p.communicate(timeout=300)
        check(p.returncode == 1, "%s: exit %d\n%s" % (out, p.returncode, err))
        check("appeared while the run wrote it" in err and out in err, err)
        check(open(target).read() == "precious", "%s was replaced" % out)
        check(not partials(tmp), "partials left: %s" % partials(tmp))
    p = slow_run(tmp, os.path.join(tmp, "race.mp4"), ["-y"])
    _, err = p.communicate(timeout=300)
    check(p.returncode == 0, err)
    decodes_cleanly(os.path.join(tmp, "race.mp4"))
    # One picture is written again each frame: without -y the run replaces
    # the picture it put there itself (its second frame failed as if the
    # first were someone else's).
    png = os.path.join(tmp, "one.png")
    clvid("-i", sample(), "-t", "0.5", "-o", png)
    check(open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n", "one.png is not a PNG")
    check(not partials(tmp), "partials left: %s" % partials(tmp))


@test
def progress_file_rules(tmp):
    """--progress FILE follows the output's rules before anything is opened:
    an existing file needs -y, an input, a LUT the chain reads or the
    output is refused (exit 2, the file untouched); /dev/null passes, and
    /dev/stderr sent to a file."""
    out = os.path.join(tmp, "o.mp4")
    keep = os.path.join(tmp, "keep.txt")
    with open(keep, "w") as f:
        f.write("important")
    cube = os.path.join(tmp, "id.cube")
    shutil.copy(os.path.join(ARGS.media, "..", "tests", "data", "film9.cube"), cube)
    text = open(cube).read()
    p = clvid("-i", sample(), "-t", "0.2", "-o", out, "--progress", keep, expect=1)
    check("--progress" in p.stderr and "use -y" in p.stderr, p.stderr)
    check(open(keep).read() == "important", "keep.txt was truncated")
    p = clvid("-i", sample(), "-t", "0.2", "-vf", "lut3d=file=" + cube, "-o", out, "--progress",
              cube, "-y", expect=2)
    check(open(cube).read() == text and "--progress" in p.stderr, p.stderr)
    for path in (out, os.path.join(tmp, "x.mkv")):
        clvid("-i", sample(), "-t", "0.2", "-o", path, "--progress", path, "-y", expect=2)
    check(not os.path.exists(out), "the output was written")
    # -filter_complex_script's file is read by the run: never its output
    # or its progress file, even with -y.
    script = os.path.join(tmp, "g.txt")
    with open(script, "w") as f:
        f.write("[0]hflip")
    for args in (["-o", out, "--progress", script], ["-f", "matroska", "-o", script]):
        p = clvid("-i", sample(), "-t", "0.2", "-filter_complex_script", script, *args, "-y",
                  expect=2)
        check(open(script).read() == "[0]hflip" and "g.txt" in p.stderr, p.stderr)
    # A file the output's sequence will write, not there yet.
    seq = os.path.join(tmp, "seq")
    os.makedirs(seq)
    p = clvid("-i", sample(), "-t", "0.2", "-o", os.path.join(seq, "f_%03d.png"), "--progress",
              os.path.join(seq, ".", "f_002.png"), "-y", expect=2)
    check("--progress" in p.stderr and "output" in p.stderr and not os.listdir(seq), p.stderr)
    clvid("-i", sample(), "-t", "0.2", "-o", out, "--progress", "/dev/null")
    clvid("-i", sample(), "-t", "0.2", "-o", out, "--progress", keep, "-y")
    check("progress=end" in open(keep).read(), "no progress written with -y")
    # /dev/stderr with standard error sent to a file (2>log): the process's
    # own stream, written as it is, not a file that exists.
    log = os.path.join(tmp, "log.txt")
    with open(log, "w") as f:
        p = subprocess.run([ARGS.clvid, "transcode", "-q", "-i", sample(), "-t", "0.2", "-o", out,
                            "-y", "--progress", "/dev/stderr"], stderr=f, timeout=120)
    check(p.returncode == 0 and "progress=end" in open(log).read(),
          "--progress /dev/stderr 2>log: exit %d, %s" % (p.returncode, open(log).read()))
    check(not partials(tmp), "partials left: %s" % partials(tmp))


@test
def input_urls_are_inputs(tmp):
    """An input spelled as an FFmpeg URL, standard input, a concat list's
    file or a lavfi movie= source is the input still: -y never writes over
    it (exit 2)."""
    import hashlib
    clip = os.path.join(tmp, "in.mkv")
    ffmpeg("-i", sample(), "-t", "0.5", "-c", "copy", clip)
    digest = hashlib.sha256(open(clip, "rb").read()).hexdigest()
    lst = os.path.join(tmp, "list.txt")
    with open(lst, "w") as f:
        f.write("ffconcat version 1.0\nfile 'in.mkv'\n")
    cases = [["-i", "file:" + clip], ["-i", "file://" + clip], ["-i", "cache:" + clip],
             ["-i", "async:" + clip], ["-i", "concat:%s|%s" % (sample(), clip)],
             ["-i", "subfile,,start,0,end,0,,:" + clip], ["-f", "concat", "-safe", "0", "-i", lst],
             ["-f", "lavfi", "-i", "movie=" + clip]]
    for args in cases:
        p = clvid(*[a for a in args if a not in ("-safe", "0")], "-o", clip, "-y", expect=2)
        check("as well as the output" in p.stderr, "%s: %s" % (args, p.stderr))
    with open(clip, "rb") as stdin:
        p = clvid("-i", "-", "-o", clip, "-y", expect=2, stdin=stdin)
    check("standard input" in p.stderr, p.stderr)
    check(hashlib.sha256(open(clip, "rb").read()).hexdigest() == digest, "the input changed")


@test
def interrupt_early(tmp):
    """Ctrl-C as the partial is made (before the first frame) leaves no
    partial; a second Ctrl-C removes every output's partial (-f tee) and
    ends a run whose input blocks its open."""
    import signal
    p = slow_run(tmp, os.path.join(tmp, "s.mp4"))
    p.send_signal(signal.SIGINT)
    p.communicate(timeout=120)
    check(p.returncode == 130, "exit %d" % p.returncode)
    check(not partials(tmp), "partials left: %s" % partials(tmp))
    spec = "%s|%s" % (os.path.join(tmp, "t1.mkv"), os.path.join(tmp, "t2.mkv"))
    p = slow_run(tmp, spec, ["-f", "tee"])
    time.sleep(1)
    p.send_signal(signal.SIGINT)
    time.sleep(0.01)  # well within the first signal's finish (x264's frames held back)
    p.send_signal(signal.SIGINT)
    p.communicate(timeout=120)
    check(p.returncode == 130, "exit %d" % p.returncode)
    check(not partials(tmp), "partials left: %s" % partials(tmp))
    # The second signal ended the run: the outputs it stopped are not put
    # in place (a first signal alone finishes them).
    check(not os.path.exists(os.path.join(tmp, "t1.mkv")) and
          not os.path.exists(os.path.join(tmp, "t2.mkv")), "outputs put in place: %s"
          % os.listdir(tmp))
    # An input whose open blocks (a FIFO no one writes): a second Ctrl-C
    # still ends the run (in 2 s: it waited for START, which never came).
    fifo = os.path.join(tmp, "in.fifo")
    os.mkfifo(fifo)
    p = subprocess.Popen([ARGS.clvid, "transcode", "-q", "-i", fifo, "-o",
                          os.path.join(tmp, "f.mp4")], stderr=subprocess.PIPE, text=True)
    time.sleep(0.5)
    p.send_signal(signal.SIGINT)
    time.sleep(0.1)
    p.send_signal(signal.SIGINT)
    try:
        p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        raise Failure("two Ctrl-C did not end a run blocked opening its input")
    check(p.returncode == 130, "blocked open: exit %d" % p.returncode)


def main():
    global ARGS
    ARGS = harness.arguments("--clvid", "--ref", "--media")
    return harness.main(ARGS)


if __name__ == "__main__":
    sys.exit(main())
