"""The Python package against the C references, the command line and
ffprobe: every filter exact on arrays of awkward sizes, channel orders and
strides, errors, frames() and transcode() with progress and stopping, and
no way through the public API to crash the interpreter (closed objects,
closing under running calls, bad arguments, huge arrays)."""
import copy
import ctypes
import os
import pickle
import shutil
import signal
import subprocess
import threading
import time

import numpy as np
import pytest

import clvid

MEDIA = os.environ.get("CLVID_MEDIA", os.path.join(os.path.dirname(__file__), "..", "..", "media"))
SAMPLE = os.path.join(MEDIA, "sample.mp4")
RNG = np.random.default_rng(7)
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")


def picture(h, w, c=4):
    return RNG.integers(0, 256, (h, w, c), dtype=np.uint8)


# One set of parameters per filter, every registered filter (a new filter
# without an entry here fails test_every_filter_has_a_case).
CASES = {
    "convolution": "convolution=matrix='1 2 1 2 4 2 1 2 1'",
    "sharpen": "sharpen", "emboss": "emboss", "prewitt": "prewitt=scale=1.5:delta=3",
    "median": "median=radius=2", "erode": "erode", "dilate": "dilate=radius=2",
    "threshold": "threshold=t=100", "gray": "gray", "equalize": "equalize",
    "noise": "noise=amount=0.2:seed=4", "quantize": "quantize=colors=6:iterations=4",
    "hflip": "hflip", "vflip": "vflip",
    "scale": "scale=iw*2+1:-1:flags=lanczos", "crop": "crop=iw/2+1:ih-1:0:1",
    "pad": "pad=iw+3:ih+2:1:2:0x00ff0080", "transpose": "transpose=cclock_flip",
    "rotate": "rotate=PI/7:ow=hypot(iw\\,ih):oh=ow:c=red",
    "eq": "eq=contrast=1.2:brightness=0.05:saturation=1.3:gamma=1.1",
    "hue": "hue=H=PI*n/4:s=1.2:b=0.5", "colorbalance": "colorbalance=rs=0.2:gm=-0.1:bh=0.3:pl=1",
    "vignette": "vignette=angle=PI/4:x0=w/3",
    "tonemap": "tonemap=hable:tin=smpte2084:peak=10",
    "sobel": "sobel=planes=5:scale=1.5:delta=-3.5", "roberts": "roberts=scale=2",
    "scharr": "scharr=planes=3:scale=2.5:delta=4", "kirsch": "kirsch=scale=0.5:delta=-10",
    "edgedetect": "edgedetect=mode=colormix:planes=r+g:high=0.3",
    "curves": "curves=preset=vintage:m='0/0 0.4/0.3 1/1':interp=pchip",
    "lut3d": "lut3d=file='%s':interp=trilinear" % os.path.join(DATA, "film9.cube"),
    "deband": "deband=range=8:blur=0",
    "gblur": "gblur=sigma=2.5:sigmaV=1", "boxblur": "boxblur=min(w\\,h)/8:2",
    "avgblur": "avgblur=sizeX=3:sizeY=5", "unsharp": "unsharp=7:5:-0.8",
    "hqdn3d": "hqdn3d=4:3:10:10", "bilateral": "bilateral=sigmaS=2:sigmaR=0.1",
    "nlmeans": "nlmeans=s=3:p=3:r=5",
    "yadif": "yadif=send_frame:tff", "bwdif": "bwdif=send_frame:bff",
    "colorkey": "colorkey=green:0.3:0.1", "chromakey": "chromakey=green:0.1:0.2",
    "despill": "despill=blue:0.2:0.3:alpha=1", "lumakey": "lumakey=0.3:0.05:0.2",
    "negate": "negate=components=r+b+a",
    "colorchannelmixer": "colorchannelmixer=.3:.4:.3:0:.3:.4:.3:0:.3:.4:.3:pc=lum:pa=0.5",
    "colorlevels": "colorlevels=rimin=0.1:gimax=-1:bomax=0.8:preserve=lum",
    "fade": "fade=in:0:3:c=0x204060",
    "lut": "lut=c0=negval:c3=val/2", "lutrgb": "lutrgb=g=gammaval(0.6):b=val*1.2",
    "drawbox": "drawbox=x=iw/4:y=ih/4:w=iw/2:h=ih/2:c=red@0.5:t=2",
    "drawgrid": "drawgrid=w=iw/5:h=ih/3:c=invert",
    "null": "null", "copy": "copy", "format": "format=yuv420p|nv12",
    "setsar": "setsar=16/9", "setdar": "setdar=dar=4/3:max=1000",
}

# What the filters that change the size make of W x H (the chain's sizes).
SIZES = {
    "scale": lambda w, h: (2 * w + 1, max(1, round(h * (2 * w + 1) / w))),
    "crop": lambda w, h: (round(w / 2 + 1), max(h - 1, 0)),  # lrint, as vf_crop
    "pad": lambda w, h: (w + 3, h + 2),
    "transpose": lambda w, h: (h, w),
}


# Filters that change the frame rate: clvid.transcode takes them; a Chain,
# run frame by frame, refuses them.
RATE_CASES = {"fps": "fps=24", "framestep": "framestep=5"}
RATE_FRAMES = {"fps": 48, "framestep": 12}  # 2 s of the sample (30 frames a second) out


def test_every_filter_has_a_case():
    names = [f["name"] for f in clvid.filters()]
    assert sorted(names) == sorted({**CASES, **RATE_CASES}), \
        "filters without a Python case: %s" % (set(names) ^ set(CASES) ^ set(RATE_CASES))


@pytest.mark.parametrize("name", sorted(RATE_CASES))
def test_rate_filter_refused_frame_by_frame(name, tmp_path):
    with pytest.raises(ValueError, match="'%s' .*changes the frame rate" % name):
        clvid.Chain(RATE_CASES[name])
    with pytest.raises(ValueError, match="changes the frame rate"):
        clvid.Chain("hflip," + RATE_CASES[name] + ",vflip")
    assert clvid.frame_rate(RATE_CASES[name], source_fps=30) == {"fps": 24, "framestep": 6}[name]
    assert clvid.frame_rate("hflip") is None
    assert clvid.frame_rate("fps=source_fps/2", source_fps=30) == 15
    with pytest.raises(ValueError, match="is 0 frames a second"):
        clvid.frame_rate("fps=source_fps-30", source_fps=30)
    # clvid.transcode takes it
    out = tmp_path / "rate.mkv"
    clvid.transcode(SAMPLE, str(out), vf="hflip," + RATE_CASES[name], t=2, no_audio=True,
                    quiet=True)
    probe = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v", "-count_frames",
                            "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", str(out)],
                           capture_output=True, text=True, check=True)
    assert probe.stdout.split() == [str(RATE_FRAMES[name])], probe.stdout


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("size", [(1, 1), (2, 3), (9, 17), (359, 641)])
def test_filter_equals_reference(name, size):
    chain = clvid.Chain(CASES[name])
    img = picture(*size)
    if name == "crop" and size[0] == 1:
        pytest.skip("crop=ih-1 of one row is an empty picture (tested as an error)")
    if chain.cadence != (0, 1):  # a deinterlacer: over a sequence (test_deinterlacer_stream)
        seq = [img, picture(*size), picture(*size)]
        assert all(np.array_equal(a, b) for a, b in
                   zip(list(chain.stream(seq)), clvid.reference_stream(CASES[name], seq)))
        return
    got = chain(img)
    want_hw = img.shape[:2]
    if name in SIZES:
        w, h = SIZES[name](size[1], size[0])
        want_hw = (h, w)
    assert got.shape[:2] == want_hw or name == "rotate", (name, size, got.shape)
    assert got.shape[2] == img.shape[2] and got.dtype == np.uint8
    assert np.array_equal(got, clvid.reference(CASES[name], img)), \
        "%s on %s differs from the C reference" % (name, size)
    # Per-frame variation follows the frame index (noise's hash).
    again = chain(img, frame_index=3)
    assert np.array_equal(again, clvid.reference(CASES[name], img, frame_index=3)) \
        or name in ("quantize", "hqdn3d", "yadif", "bwdif")  # they carry state over: the previous palette, frame


def picture16(h, w, c=4):
    return RNG.integers(0, 65536, (h, w, c), dtype=np.uint16)


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("size", [(1, 1), (9, 17), (359, 641)])
def test_filter_at_16_bits(name, size):
    """A uint16 picture runs the chain at 16 bits and comes back uint16,
    equal to the 16-bit reference; the same Chain still takes uint8. A
    filter without a 16-bit path is a ValueError that names it."""
    deep = {f["name"]: f["deep"] for f in clvid.filters()}
    if name == "crop" and size[0] == 1:
        pytest.skip("crop=ih-1 of one row is an empty picture (tested as an error)")
    chain = clvid.Chain(CASES[name])
    img = picture16(*size, c=3 if size[0] == 9 else 4)
    if not deep[name]:
        with pytest.raises(ValueError, match="'%s'.*8 bits only" % name):
            chain(img)
        return
    if chain.cadence != (0, 1):  # a deinterlacer: over a sequence
        seq = [img, picture16(*size, c=img.shape[2])]
        got = list(chain.stream(seq, frame_index=5))
        assert all(g.dtype == np.uint16 for g in got) and len(got) == 2 * chain.cadence[1]
        assert all(np.array_equal(a, b) for a, b in
                   zip(got, clvid.reference_stream(CASES[name], seq, frame_index=5)))
        return
    got = chain(img, frame_index=5)
    assert got.dtype == np.uint16 and got.shape[2] == img.shape[2], (got.dtype, got.shape)
    assert np.array_equal(got, clvid.reference(CASES[name], img, frame_index=5)) \
        or name == "quantize", "%s on %s at 16 bits differs from the C reference" % (name, size)
    small = picture(*size)
    assert chain(small, frame_index=2).dtype == np.uint8


def test_bgr_rgb_and_strides():
    rgb = picture(48, 64, 3)
    chain = clvid.Chain("emboss,median")
    want = chain(rgb)
    bgr = np.ascontiguousarray(rgb[..., ::-1])
    got = clvid.Chain("emboss,median", order="bgr")(bgr)
    assert got.shape == (48, 64, 3)
    assert np.array_equal(got[..., ::-1], want)
    big = picture(96, 128, 3)
    view = big[::2, ::2]  # not contiguous
    assert not view.flags["C_CONTIGUOUS"]
    assert np.array_equal(chain(view), chain(np.ascontiguousarray(view)))
    rgba = picture(10, 12, 4)
    out = clvid.Chain("sharpen")(rgba)
    assert np.array_equal(out[..., 3], rgba[..., 3]), "alpha changed"


def test_same_as_transcode(tmp_path):
    """The array path gives what clvid transcode gives for the same PNG."""
    clvid_bin = os.environ.get("CLVID_BIN")
    if not clvid_bin or not shutil.which("ffmpeg"):
        pytest.skip("needs CLVID_BIN and ffmpeg")
    img = picture(37, 53, 4)
    src, out = tmp_path / "in.png", tmp_path / "out.png"
    subprocess.run(["ffmpeg", "-v", "error", "-f", "rawvideo", "-pix_fmt", "rgba", "-s", "53x37",
                    "-i", "-", str(src)], input=img.tobytes(), check=True)
    subprocess.run([clvid_bin, "transcode", "-q", "-i", str(src), "-vf", "median,prewitt", "-o",
                    str(out)], check=True)
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", str(out), "-f", "rawvideo", "-pix_fmt",
                          "rgba", "-"], capture_output=True, check=True).stdout
    want = np.frombuffer(raw, np.uint8).reshape(37, 53, 4)
    assert np.array_equal(clvid.Chain("median,prewitt")(img), want)


def test_set_param_without_rebuild():
    img = picture(30, 40)
    chain = clvid.Chain("median")
    chain.set(0, "radius", 3)
    assert chain.text == "median=radius=3"
    assert np.array_equal(chain(img), clvid.reference("median=radius=3", img))
    with pytest.raises(ValueError, match="1 to 7"):
        chain.set(0, "radius", 99)
    with pytest.raises(TypeError, match="clvid: filter_index must be an integer, not bool"):
        chain.set(True, "radius", 2)  # not filter 1
    with pytest.raises(TypeError, match="clvid: frame_index must be an integer, not bool"):
        chain(img, frame_index=False)
    assert chain.text == "median=radius=3"


def test_errors():
    with pytest.raises(ValueError, match="medain"):
        clvid.Chain("medain")
    with pytest.raises(ValueError, match="radius.*99.*1 to 7"):
        clvid.Chain("median=radius=99")
    with pytest.raises(ValueError, match="order"):
        clvid.Chain("gray", order="yuv")
    with pytest.raises(clvid.Error):
        clvid.Chain("gray", device="no such device")
    chain = clvid.Chain("gray")
    with pytest.raises(ValueError, match="uint8"):
        chain(np.zeros((4, 4, 3), np.float32))
    with pytest.raises(ValueError, match="H x W"):
        chain(np.zeros((4, 4), np.uint8))
    with pytest.raises(clvid.Error, match="nosuch.mp4"):
        list(clvid.frames("nosuch.mp4"))
    with pytest.raises(TypeError, match="unknown option"):
        clvid.transcode(SAMPLE, "x.mkv", crff=3)


def test_facts():
    fs = {f["name"]: f for f in clvid.filters()}
    radius = fs["median"]["params"][0]
    assert radius["name"] == "radius" and radius["min"] == 1 and radius["max"] == 7
    assert radius["step"] == 1
    assert fs["equalize"]["params"][0]["choices"] == ["luma", "gray"]
    ds = clvid.devices()
    assert ds and all({"index", "name", "platform", "gpu"} <= set(d) for d in ds)
    assert clvid.version().count(".") == 2


def test_threads_share_nothing_wrong():
    img = picture(64, 64)
    want = clvid.reference("sharpen", img)
    chain = clvid.Chain("sharpen")
    results = []

    def work():
        for _ in range(5):
            results.append(np.array_equal(chain(img, frame_index=0), want))
    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results and all(results)


def test_frames():
    got = list(clvid.frames(SAMPLE, vf="gray", frames=5))
    assert len(got) == 5
    pts = [p for _, p in got]
    assert pts == sorted(pts) and abs(pts[1] - pts[0] - 1 / 30) < 1e-3
    img = got[0][0]
    assert img.shape == (720, 1280, 3) and img.dtype == np.uint8
    assert np.array_equal(img[..., 0], img[..., 1]), "gray frames are not gray"
    rgba = next(clvid.frames(SAMPLE, alpha=True, frames=1))[0]
    assert rgba.shape == (720, 1280, 4)


@pytest.mark.parametrize("vf, rate", [("bwdif", 2), ("yadif=send_field:bff", 2),
                                      ("bwdif=send_frame", 1), ("yadif", 1), ("gray", 1)])
@pytest.mark.parametrize("size", [(1, 1), (3, 2), (17, 9), (360, 641)])
def test_deinterlacer_stream(vf, rate, size):
    """Chain.stream over a sequence: a deinterlacer's frames come in order
    and none is lost (rate per picture, the last at the end), equal to the
    C references run the same way; the chain starts afresh for the next
    stream; chain(img) refuses a deinterlacer and says to stream."""
    chain = clvid.Chain(vf)
    assert chain.cadence == ((0 if vf == "gray" else 1), rate)
    seq = [picture(*size, c=3) for _ in range(4)]
    got = list(chain.stream(seq))
    want = clvid.reference_stream(vf, seq)
    assert len(got) == len(want) == rate * len(seq)
    assert all(np.array_equal(a, b) for a, b in zip(got, want)), vf
    again = list(chain.stream(iter(seq)))
    assert all(np.array_equal(a, b) for a, b in zip(again, got)), "the second stream differs"
    assert list(chain.stream([])) == []
    one = list(chain.stream(seq[:1]))
    assert len(one) == rate
    if vf != "gray":
        with pytest.raises(ValueError, match="stream"):
            chain(seq[0])
        # The deinterlaced frame keeps the rows of its field (here the top,
        # parity auto) and interpolates the others.
        field = got[0 if vf != "yadif=send_field:bff" else 1]
        assert np.array_equal(field[0::2], seq[0][0::2])


@pytest.mark.parametrize("vf", ["yadif=mode=send_frame", "bwdif"])
def test_deinterlacer_stream_shape_change(vf):
    """A picture of another size, channel count or dtype mid-stream: the
    frame the deinterlacer holds comes out at its own size and channels
    (as if each run of one shape were its own stream), not as the new
    picture's warm-up; the C references do the same."""
    tiny, big = picture(2, 2, c=3), picture(720, 1280, c=3)
    four, three = picture(4, 4, c=4), picture(4, 4, c=3)
    wide = RNG.integers(0, 65536, (4, 4, 3), dtype=np.uint16)
    for runs in ([[tiny], [big]], [[four], [three, three]], [[three, three], [four]],
                 [[three], [wide], [three]]):
        seq = [p for run in runs for p in run]
        want = [f for run in runs for f in clvid.reference_stream(vf, run)]
        with clvid.Chain(vf) as chain:
            got = list(chain.stream(seq))
            assert [g.shape for g in got] == [w.shape for w in want], vf
            assert all(np.array_equal(a, b) for a, b in zip(got, want)), vf
            for run in runs:  # the chain started afresh for each run
                single = list(chain.stream(run))
                assert all(np.array_equal(a, b) for a, b in zip(single, got[:len(single)]))
                got = got[len(single):]
        ref = clvid.reference_stream(vf, seq)
        assert len(ref) == len(want) and all(np.array_equal(a, b) for a, b in zip(ref, want))


def test_frames_deinterlaced(tmp_path):
    """frames() with a deinterlacer: every frame out, two per frame with
    send_field, at the times of the fields (twice the rate)."""
    clip = str(tmp_path / "inter.mkv")
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", SAMPLE, "-frames:v", "8", "-vf",
                    "scale=160:90,tinterlace=interleave_top", "-an", "-c:v", "ffv1", clip],
                   check=True)
    plain = list(clvid.frames(clip))
    for vf, rate in (("bwdif", 2), ("yadif", 1)):
        got = list(clvid.frames(clip, vf=vf))
        assert len(got) == rate * len(plain), (vf, len(got))
        times = [t for _, t in got]
        step = (plain[1][1] - plain[0][1]) / rate
        assert all(abs(b - a - step) < 2e-3 for a, b in zip(times, times[1:])), (vf, times)
        assert abs(times[0] - plain[0][1]) < 1e-6


def test_transcode_output_rate(tmp_path):
    """r= is the command line's -r: the output at that rate, with ffmpeg's
    frame count; a rate that is not one is a ValueError naming it."""
    out = tmp_path / "r.mkv"
    clvid.transcode(SAMPLE, str(out), vf="hflip", r="15", t=2, no_audio=True, quiet=True)
    probe = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v", "-count_frames",
                            "-show_entries", "stream=r_frame_rate,nb_read_frames", "-of",
                            "csv=p=0", str(out)], capture_output=True, text=True, check=True)
    # ffmpeg -t 2 -i SAMPLE -vf hflip -r 15 r.mkv: 31 (the last tick's drop)
    assert probe.stdout.split() == ["15/1,31"], probe.stdout
    with pytest.raises(ValueError, match="frame rate is clvid.transcode's"):
        next(clvid.frames(SAMPLE, r=10))
    with pytest.raises(ValueError, match="changes the frame rate"):
        next(clvid.frames(SAMPLE, vf="fps=10"))
    with pytest.raises(ValueError, match="-r fast: expected"):
        clvid.transcode(SAMPLE, str(tmp_path / "bad.mkv"), frame_rate="fast")
    assert not (tmp_path / "bad.mkv").exists()


def test_transcode_progress_and_stop(tmp_path):
    out = tmp_path / "out.mp4"
    events = []
    last = clvid.transcode(SAMPLE, str(out), vf="sharpen", progress=events.append, frames=60,
                           crf=30)
    assert events[0]["event"] == "start" and events[-1]["event"] == "end"
    # The temporary files as a list of str (a C array copied out), the
    # first one partial_path.
    paths = events[0]["partial_paths"]
    assert isinstance(paths, list) and all(isinstance(p, str) for p in paths)
    assert paths[:1] == ([events[0]["partial_path"]] if events[0]["partial_path"] else [])
    assert all(isinstance(e["partial_paths"], list) for e in events)
    assert last["frames"] == 60 and last["codec"] == "libx264"
    # Stopping from the callback finishes a valid, shorter file.
    out2 = tmp_path / "stopped.mkv"
    last = clvid.transcode(SAMPLE, str(out2), vf="median=radius=3",
                           progress=lambda s: s["frames"] >= 10)
    assert last["stopped"] and 10 <= last["frames"] < 270
    if shutil.which("ffprobe"):
        n = subprocess.run(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v",
                            "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", str(out2)],
                           capture_output=True, text=True, check=True).stdout.strip()
        assert int(n) == last["frames"]
    with pytest.raises(ValueError, match="crf"):
        clvid.transcode(SAMPLE, str(tmp_path / "x.mp4"), crf=99)


def test_hwaccel_keyword(tmp_path):
    """hwaccel= as the command line's -hwaccel: auto decodes in software here
    and the status says so, with the frames of a run without it; a named
    method without its hardware is a clvid.Error naming it with nothing
    written; an unknown word a ValueError listing the methods; frames()
    takes it too."""
    plain, auto = tmp_path / "plain.mkv", tmp_path / "auto.mkv"
    clvid.transcode(SAMPLE, str(plain), vf="sharpen", codec="ffv1", frames=10, no_audio=True)
    last = clvid.transcode(SAMPLE, str(auto), vf="sharpen", codec="ffv1", frames=10,
                           no_audio=True, hwaccel="auto")
    if not last["decode"].startswith("software"):
        pytest.skip("a hardware decoder works here: %s" % last["decode"])
    assert last["decode"].startswith("software (-hwaccel auto:")
    if shutil.which("ffmpeg"):
        assert framemd5(auto) == framemd5(plain)
    for method in ("cuda", "vaapi"):
        out = tmp_path / ("%s.mkv" % method)
        with pytest.raises(clvid.Error, match="-hwaccel %s" % method):
            clvid.transcode(SAMPLE, str(out), frames=5, hwaccel=method)
        assert not out.exists()
    with pytest.raises(ValueError, match="cuda, vaapi"):
        clvid.transcode(SAMPLE, str(tmp_path / "x.mkv"), hwaccel="bogus")
    got = list(clvid.frames(SAMPLE, vf="sharpen", frames=3, hwaccel="auto"))
    want = list(clvid.frames(SAMPLE, vf="sharpen", frames=3))
    assert len(got) == 3 and all(np.array_equal(a[0], b[0]) for a, b in zip(got, want))
    with pytest.raises(clvid.Error, match="-hwaccel cuda"):
        next(clvid.frames(SAMPLE, frames=1, hwaccel="cuda"))


def framemd5(path):
    p = subprocess.run(["ffmpeg", "-v", "error", "-i", str(path), "-map", "0:v", "-f", "framemd5",
                        "-"], capture_output=True, text=True, check=True)
    return [l.split(",")[-1].strip() for l in p.stdout.splitlines() if not l.startswith("#")]


def test_segments_joined_equal_one_run(tmp_path):
    """The sample in 4 segments (-ss between two frames, --frame-index for
    noise), joined without re-encoding with the input's sound: frame for
    frame the one-run output (ffv1), sound kept. At 320x180 (scale first):
    the segments' frames are the subject, not the size."""
    if not shutil.which("ffmpeg"):
        pytest.skip("needs ffmpeg")
    chain = "scale=320:180,noise=amount=0.2:seed=9,median"
    whole = tmp_path / "whole.mkv"
    clvid.transcode(SAMPLE, str(whole), vf=chain, codec="ffv1", no_audio=True, frames=120)
    parts = []
    for k in range(4):
        part = tmp_path / ("part%d.mkv" % k)
        first = k * 30
        clvid.transcode(SAMPLE, str(part), vf=chain, codec="ffv1", no_audio=True,
                        ss=max(0, (first - 0.5) / 30), frames=30, frame_index=first)
        parts.append(str(part))
    joined = tmp_path / "joined.mkv"
    clvid.join(parts, str(joined), streams_from=SAMPLE)
    sums = framemd5(joined)
    assert len(sums) == 120 and sums == framemd5(whole)
    p = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "stream=codec_type", "-of",
                        "csv=p=0", str(joined)], capture_output=True, text=True, check=True)
    assert p.stdout.split() == ["video", "audio"]
    with pytest.raises(clvid.Error, match="already exists"):
        clvid.join(parts, str(joined), streams_from=SAMPLE)
    with pytest.raises(clvid.Error, match="nosuch"):
        clvid.join([parts[0], "nosuch.mkv"], str(tmp_path / "x.mkv"))
    assert not (tmp_path / "x.mkv").exists()


def test_join_refuses_segments_encoded_otherwise(tmp_path):
    """Segments of one codec and size but encoded with other settings (an
    H.264 profile: another SPS; another pixel format) are not joined: their
    packets would decode with the first's setup. Nothing is written."""
    if not shutil.which("ffmpeg"):
        pytest.skip("needs ffmpeg")

    def segment(name, *options):
        path = tmp_path / name
        subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i",
                        "testsrc=size=160x120:rate=25:duration=0.4", "-c:v", "libx264",
                        *options, str(path)], check=True)
        return str(path)
    base = segment("a.mp4", "-profile:v", "baseline", "-pix_fmt", "yuv420p")
    same = segment("b.mp4", "-profile:v", "baseline", "-pix_fmt", "yuv420p")
    clvid.join([base, same], str(tmp_path / "ok.mp4"))
    assert (tmp_path / "ok.mp4").stat().st_size > 0
    for other in (segment("c.mp4", "-profile:v", "high", "-pix_fmt", "yuv420p"),
                  segment("d.mp4", "-pix_fmt", "yuv444p")):
        with pytest.raises(clvid.Error, match="other settings"):
            clvid.join([base, other], str(tmp_path / "x.mp4"))
        assert not (tmp_path / "x.mp4").exists()


def test_segments_with_context_equal_one_run(tmp_path):
    """bwdif (a frame per field) in 3 segments, each decoding the frame
    before and after it as context (lead_frames, keep_frames, frames):
    joined, field for field and timestamp for timestamp the one-run output.
    At 320x180 (scale first; ffv1 of 240 fields at 1280x720 made this the
    slowest test of the package's, 170 s under load)."""
    if not shutil.which("ffmpeg"):
        pytest.skip("needs ffmpeg")
    chain = "scale=320:180,noise=amount=0.2:seed=9,bwdif"
    assert clvid.cadence(chain) == (1, 2) and clvid.cadence("median") == (0, 1)
    with pytest.raises(ValueError, match="medain"):
        clvid.cadence("medain")

    def timed(path):
        p = subprocess.run(["ffmpeg", "-v", "error", "-i", str(path), "-map", "0:v", "-f",
                            "framemd5", "-"], capture_output=True, text=True, check=True)
        return [(l.split(",")[2].strip(), l.split(",")[-1].strip())
                for l in p.stdout.splitlines() if not l.startswith("#")]
    whole = tmp_path / "whole.mkv"
    clvid.transcode(SAMPLE, str(whole), vf=chain, codec="ffv1", no_audio=True, frames=120)
    parts = []
    for k in range(3):
        first, lead = k * 40, 1 if k else 0
        part = tmp_path / ("part%d.mkv" % k)
        clvid.transcode(SAMPLE, str(part), vf=chain, codec="ffv1", no_audio=True,
                        ss=max(0, (first - lead - 0.5) / 30), frames=lead + 40 + (k < 2),
                        frame_index=first - lead, lead_frames=lead, keep_frames=40)
        parts.append(str(part))
    joined = tmp_path / "joined.mkv"
    clvid.join(parts, str(joined))
    want = timed(whole)
    assert len(want) == 240 and timed(joined) == want
    with pytest.raises(ValueError, match="lead-frames -1"):
        clvid.transcode(SAMPLE, str(tmp_path / "x.mkv"), lead_frames=-1)


def test_transcode_ctrl_c(tmp_path):
    """Ctrl-C (SIGINT) during a transcode: the output is finished up to the
    stop, then KeyboardInterrupt."""
    out = tmp_path / "cut.mkv"
    timer = threading.Timer(1.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        clvid.transcode(SAMPLE, str(out), vf="median=radius=4")
    timer.cancel()
    assert out.exists(), "no output after Ctrl-C"
    if shutil.which("ffprobe"):
        p = subprocess.run(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v",
                            "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", str(out)],
                           capture_output=True, text=True)
        assert p.returncode == 0 and int(p.stdout.strip()) > 0


def test_control_socket(tmp_path):
    """clvid.Control drives an in-process transcode (ipc=PATH) from another
    thread: the chain set and read back, an event, a refused chain (the
    running one unchanged), stats, and quit finishing the output."""
    sock, out = str(tmp_path / "ctl.sock"), tmp_path / "out.mkv"
    result = {}

    def run():
        try:
            # Ten minutes of input: the run lasts until quit.
            result["status"] = clvid.transcode("testsrc=size=320x240:rate=25:duration=600",
                                               str(out), vf="median", ipc=sock,
                                               input_format="lavfi")
        except BaseException as e:  # seen by the assertions below
            result["error"] = e

    worker = threading.Thread(target=run)
    worker.start()
    try:
        with clvid.Control(sock, timeout=60) as c:
            assert c.get("chain") == "median=radius=1"
            assert c.set_chain("gray") == "gray"
            assert c.wait_event("chain-changed", timeout=60)["chain"] == "gray"
            with pytest.raises(clvid.ControlError, match="unknown filter 'nosuch'"):
                c.set_chain("nosuch")
            assert c.get("chain") == "gray"
            with pytest.raises(clvid.ControlError, match="not available in transcode"):
                c.seek(1)
            # quit once a frame is out: a run stopped before its first frame
            # writes nothing and ends in an error (a loaded machine's start
            # can take that long).
            deadline = time.monotonic() + 60
            while c.stats()["frames"] == 0 and time.monotonic() < deadline:
                time.sleep(0.05)
            assert c.stats()["frames"] > 0
            c.quit()
            assert c.wait_event("end", timeout=60)["reason"] == "quit"
    finally:
        worker.join(120)
    assert "error" not in result, result
    assert result["status"]["stopped"] and out.exists()
    assert not os.path.exists(sock)


def test_ctypes_mirrors_match_the_header():
    """Each ctypes mirror has the C struct's size and every member at the C
    offset (tests/abi_layout prints them as the compiler lays them out): a
    member missing, moved or of another size would make the library read
    the wrong bytes."""
    import json
    layout_tool = os.environ.get("CLVID_ABI_LAYOUT")
    if not layout_tool:
        pytest.skip("CLVID_ABI_LAYOUT (the built tests/abi_layout) is not set")
    layout = json.loads(subprocess.run([layout_tool], capture_output=True, text=True,
                                       check=True).stdout)
    mirrors = {"clv_msg": clvid._Msg, "clv_context_options": clvid._ContextOptions,
               "clv_device_info": clvid._DeviceInfo, "clv_image": clvid._Image,
               "clv_frame": clvid._Frame, "clv_param": clvid._Param, "clv_size": clvid._Size,
               "clv_transcode_status": clvid._TranscodeStatus,
               "clv_media_info": clvid._MediaInfo,
               "clv_transcode_input": clvid._TranscodeInput,
               "clv_graph_sync": clvid._GraphSync}
    assert sorted(mirrors) == sorted(layout)
    for struct, mirror in mirrors.items():
        want = layout[struct]
        assert ctypes.sizeof(mirror) == want["size"], (struct, ctypes.sizeof(mirror), want)
        got = {name: getattr(mirror, name).offset for name, _ in mirror._fields_}
        names = {"def": "default", "from": "from_"}  # Python keywords in the mirrors
        got_c = {({v: k for k, v in names.items()}.get(k, k)): v for k, v in got.items()}
        assert got_c == want["offsets"], (struct, got_c, want["offsets"])


# ---- Never a crash: closed objects, threads, arguments, sizes ----------------

def _closed_uses(chain, img):
    """Every method and property of a Chain, as calls."""
    def set_order():
        chain.order = "bgr"

    def set_frame_index():
        chain.frame_index = 1
    return {"call": lambda: chain(img), "set": lambda: chain.set(0, "radius", 2),
            "text": lambda: chain.text, "device": lambda: chain.device,
            "order": lambda: chain.order, "set order": set_order,
            "frame_index": lambda: chain.frame_index, "set frame_index": set_frame_index,
            "with": lambda: chain.__enter__()}


def test_closed_chain_raises_value_error():
    img = picture(8, 8)
    closed = clvid.Chain("median")
    closed.close()
    closed.close()  # twice is fine
    with clvid.Chain("median") as exited:
        assert np.array_equal(exited(img), clvid.reference("median", img))
    for chain in (closed, exited):
        for name, use in _closed_uses(chain, img).items():
            with pytest.raises(ValueError, match="this Chain is closed"):
                use()
        assert "closed" in repr(chain)
        chain.close()


def test_chain_that_never_opened_reads_closed():
    # A Chain whose __init__ failed (or never ran) is collected, closed and
    # printed without touching the library.
    with pytest.raises(ValueError):
        clvid.Chain("medain")
    bare = clvid.Chain.__new__(clvid.Chain)
    assert "closed" in repr(bare)
    bare.close()
    with pytest.raises(ValueError, match="closed"):
        bare(picture(2, 2))


def test_chain_cannot_be_copied_or_pickled():
    # A copy would share the C pointers: closing one freed them under the other.
    chain = clvid.Chain("sharpen")
    for make in (copy.copy, copy.deepcopy, pickle.dumps):
        with pytest.raises(TypeError, match="cannot be copied"):
            make(chain)
    img = picture(5, 6)
    assert np.array_equal(chain(img), clvid.reference("sharpen", img))


def test_close_while_threads_call():
    """4 threads call one chain on a 1080p frame while another closes it:
    every call gives the exact result or ValueError, and close() waits for
    the call in progress."""
    img = picture(1080, 1920, 3)
    want = clvid.reference("sharpen", img)
    chain = clvid.Chain("sharpen")
    first = threading.Event()
    outcomes = [[] for _ in range(4)]

    def work(mine):
        for _ in range(200):
            try:
                got = chain(img, frame_index=0)
            except ValueError as e:
                mine.append(str(e))
                return
            mine.append(np.array_equal(got, want))
            first.set()

    def closer():
        first.wait(60)
        chain.close()
        chain.close()
    threads = [threading.Thread(target=work, args=(o,)) for o in outcomes]
    threads.append(threading.Thread(target=closer))
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not any(t.is_alive() for t in threads)
    for mine in outcomes:
        assert mine[-1] == "clvid: this Chain is closed", "a thread ran on after close()"
        assert all(r is True for r in mine[:-1]), "a call gave a wrong result"
    assert any(r is True for mine in outcomes for r in mine)


def test_filter_and_frame_index_checked():
    img = picture(6, 7)
    chain = clvid.Chain("median,gray")
    for bad in (-1, 2, 2 ** 32, -2 ** 31 - 1):
        with pytest.raises(ValueError, match=r"filter_index .* 2 filters \(0 to 1\)"):
            chain.set(bad, "radius", 2)
    for bad in (0.0, "0", None):
        with pytest.raises(TypeError, match="filter_index must be an integer"):
            chain.set(bad, "radius", 2)
    chain.set(np.int64(0), "radius", 2)  # numpy integers are integers
    assert chain.text == "median=radius=2,gray"
    for bad in (-1, 2 ** 64):
        with pytest.raises(ValueError, match="frame_index"):
            chain(img, frame_index=bad)
        with pytest.raises(ValueError, match="frame_index"):
            chain.frame_index = bad
        with pytest.raises(ValueError, match="frame_index"):
            clvid.reference("noise", img, frame_index=bad)
    with pytest.raises(TypeError, match="frame_index must be an integer"):
        chain(img, frame_index=1.5)
    with pytest.raises(ValueError, match="order"):
        chain.order = "yuv"
    # The last uint64 frame index runs, and the next wraps to 0 as in C.
    noise = clvid.Chain("noise=amount=0.5")
    got = noise(img, frame_index=2 ** 64 - 1)
    assert np.array_equal(got, clvid.reference("noise=amount=0.5", img, frame_index=2 ** 64 - 1))
    assert noise.frame_index == 0


def test_strings_checked(tmp_path):
    """NUL in any string is a ValueError (C would cut the string there);
    bytes are taken as UTF-8 text, or as file names as they are."""
    img = picture(4, 5)
    chain = clvid.Chain("median")
    nul = [lambda: clvid.Chain("gray\0median"), lambda: clvid.Chain(b"gray\0median"),
           lambda: clvid.Chain("gray", device="cpu\0"),
           lambda: chain.set(0, "radius\0x", 2), lambda: chain.set(0, "radius", "2\0"),
           lambda: clvid.reference("gray\0median", img),
           lambda: clvid.transcode(SAMPLE + "\0x", str(tmp_path / "o.mkv")),
           lambda: clvid.transcode(SAMPLE, str(tmp_path / "o.mkv\0")),
           lambda: clvid.transcode(SAMPLE, str(tmp_path / "o.mkv"), vf="gray\0"),
           lambda: clvid.transcode(SAMPLE, str(tmp_path / "o.mkv"), codec="ffv1\0"),
           lambda: clvid.transcode(SAMPLE, str(tmp_path / "o.mkv"), device="x\0"),
           lambda: clvid.probe(SAMPLE + "\0x"), lambda: clvid.probe(os.fsencode(SAMPLE) + b"\0"),
           lambda: clvid.join([SAMPLE + "\0"], str(tmp_path / "j.mkv")),
           lambda: clvid.join([SAMPLE], str(tmp_path / "j.mkv"), streams_from=SAMPLE + "\0"),
           lambda: clvid.frames(SAMPLE + "\0x"), lambda: clvid.frames(SAMPLE, vf="gray\0")]
    for use in nul:
        with pytest.raises(ValueError, match="NUL"):
            use()
    assert clvid.Chain(b"median=radius=2").text == "median=radius=2"
    chain.set(0, b"radius", b"3")
    assert chain.text == "median=radius=3"
    assert np.array_equal(clvid.reference(b"gray", img), clvid.reference("gray", img))
    assert clvid.probe(os.fsencode(SAMPLE))["width"] == 1280
    with pytest.raises(ValueError):  # UnicodeDecodeError: not UTF-8
        clvid.Chain(b"gray\xff")
    wrong = [lambda: clvid.Chain(5), lambda: chain.set(0, 3, 2), lambda: chain.set(0, "radius", [3]),
             lambda: clvid.Chain("gray", device=1.5), lambda: clvid.probe(None),
             lambda: clvid.transcode(None, str(tmp_path / "o.mkv")),
             lambda: clvid.join(SAMPLE, str(tmp_path / "j.mkv"))]
    for use in wrong:
        with pytest.raises(TypeError):
            use()


def test_arrays_checked():
    chain = clvid.Chain("gray")
    for use in (chain, lambda a: clvid.reference("gray", a)):
        with pytest.raises(TypeError, match="numpy.ndarray"):
            use([[[0, 0, 0]]])
        with pytest.raises(ValueError, match="uint8 or uint16"):
            use(np.zeros((4, 4, 3), np.int16))
        with pytest.raises(ValueError, match="H x W x 3"):
            use(np.zeros((4, 4, 2), np.uint8))
        with pytest.raises(ValueError, match="H x W x 3"):
            use(np.zeros((2, 4, 4, 3), np.uint8))
        with pytest.raises(ValueError, match="empty"):
            use(np.zeros((0, 4, 3), np.uint8))


def test_huge_array_refused_before_copy():
    # 100000 x 100000 x 4 is a view of 4 bytes; its copy would be 37 GiB.
    huge = np.broadcast_to(np.zeros(4, np.uint8), (100000, 100000, 4))
    chain = clvid.Chain("gray")
    with pytest.raises(ValueError, match="100000x100000.*16384"):
        chain(huge)
    with pytest.raises(ValueError, match="100000x100000.*16384"):
        clvid.reference("gray", huge)
    with pytest.raises(ValueError, match="16385x1.*16384"):
        chain(np.broadcast_to(np.zeros(3, np.uint8), (1, 16385, 3)))
    # The device's largest buffer is checked too; PoCL's is larger than the
    # largest frame, so a smaller limit stands in for a small device's.
    assert clvid.devices()[0]["max_alloc"] > 0
    chain._max_alloc = 1 << 20
    with pytest.raises(ValueError, match=r"1024x1024 needs 4 MiB.*at most 1 MiB"):
        chain(np.broadcast_to(np.zeros(4, np.uint8), (1024, 1024, 4)))


def test_options_checked(tmp_path):
    out = str(tmp_path / "o.mkv")
    for kwargs in ({"crf": [1]}, {"crf": object()}, {"codec": True}, {"vf": True},
                   {"ss": False}, {"progress": 5}):
        with pytest.raises(TypeError):
            clvid.transcode(SAMPLE, out, **kwargs)
    with pytest.raises(TypeError):  # at the call, not at the first frame
        clvid.frames(SAMPLE, frames=[1])
    with pytest.raises(clvid.Error, match="directory"):
        clvid.probe(str(tmp_path))
    with pytest.raises(clvid.Error, match="directory"):
        clvid.transcode(str(tmp_path), out)
    # bytes, numpy numbers and os.PathLike are fine.
    last = clvid.transcode(SAMPLE, tmp_path / "b.mkv", codec=b"ffv1", frames=np.int64(2),
                           no_audio=True, overwrite=False)
    assert last["frames"] == 2 and last["codec"] == "ffv1"


def test_closed_options_raise():
    opts = clvid._Options({"crf": 20}, None)
    assert opts.ptr
    with pytest.raises(TypeError, match="cannot be copied"):
        copy.copy(opts)
    opts.close()
    opts.close()
    with pytest.raises(ValueError, match="closed"):
        opts.ptr


def test_long_chain_text_not_cut():
    # 32 filters with 7x7 matrices write about 9 KB, more than one 4 KiB try.
    matrix = " ".join(["-100"] * 49)
    chain = clvid.Chain(",".join(["convolution=matrix='%s'" % matrix] * 32))
    text = chain.text
    assert text.count("convolution") == 32 and len(text) > 4096
    assert clvid.Chain(text).text == text


def test_temporal_filters_by_descriptor(tmp_path):
    """Which filters carry state, as their descriptors say; a kernel file's
    name means nothing."""
    root = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "kernels")
    motion = os.path.join(root, "motion.cl")
    look = tmp_path / "quantize_look.cl"
    look.write_text(open(os.path.join(root, "vignette.cl")).read())
    assert clvid.temporal_filters("") == []
    assert clvid.temporal_filters("noise,median,opencl=file=%s" % look) == []
    found = clvid.temporal_filters("quantize=8,sharpen,opencl=file=%s" % motion)
    assert len(found) == 2 and found[0].startswith("quantize=colors=8")
    assert found[1].startswith("opencl=file=%s" % motion)
    with pytest.raises(ValueError):
        clvid.temporal_filters("medain")


def test_check_output_is_the_commands(tmp_path):
    sample = os.path.join(MEDIA, "sample.mp4")
    clvid.check_output([sample], str(tmp_path / "new.mp4"))
    with pytest.raises(ValueError, match="input"):
        clvid.check_output([sample], sample, overwrite=True)
    (tmp_path / "f_001.png").write_bytes(b"x")
    with pytest.raises(clvid.Error, match="already exists") as e:
        clvid.check_output([sample], str(tmp_path / "f_%03d.png"))
    assert e.value.code == -12
    clvid.check_output([sample], str(tmp_path / "f_%03d.png"), overwrite=True)
    with pytest.raises(ValueError, match="input"):
        clvid.check_output([str(tmp_path / "f_%03d.png")], str(tmp_path / "f_001.png"),
                           overwrite=True)
    with pytest.raises(TypeError, match="clvid: check_output's inputs must be a path or a "
                                        "list of paths, not NoneType"):
        clvid.check_output(None, str(tmp_path / "x.mkv"))


def test_flips_mirror_the_array():
    """hflip and vflip are numpy's fliplr and flipud of the picture."""
    img = picture(9, 17)
    with clvid.Chain("hflip,vflip") as both:
        assert np.array_equal(both(img), img[::-1, ::-1])
    with clvid.Chain("hflip") as h:
        assert np.array_equal(h(img[..., :3]), img[:, ::-1, :3])


def test_huge_frame_count_and_init_again(tmp_path):
    """A frame count past 64 bits is refused, not run to the end; __init__
    on a live Chain frees its objects first and builds the new chain."""
    with pytest.raises(ValueError, match="--frames"):
        clvid.transcode(SAMPLE, str(tmp_path / "x.mkv"), frames=2**70)
    chain = clvid.Chain("gray")
    chain.__init__("median")
    assert chain.text.startswith("median")
    chain.close()


def test_new_shapes():
    """A chain that changes the size gives arrays of its size, in the
    channels and order given (3 stays 3, BGR stays BGR); a parameter that
    changes the size changes the next result's; frames() yields the new
    shape; a size the chain can't make is a ValueError naming it."""
    img = picture(48, 64, 3)
    with clvid.Chain("crop=32:20:4:2,transpose=clock", order="bgr") as chain:
        got = chain(img)
        assert got.shape == (32, 20, 3)
        assert np.array_equal(got, clvid.reference("crop=32:20:4:2,transpose=clock", img,
                                                   order="bgr"))
        assert np.array_equal(got, np.rot90(img[2:22, 4:36], k=-1))
        chain.set(0, "w", "16")
        assert chain(img).shape == (16, 20, 3)
        with pytest.raises(ValueError, match="crop"):
            chain(picture(8, 8, 3))  # a 16-wide crop of an 8-wide picture
        assert chain(img).shape == (16, 20, 3)  # and it goes on
    with clvid.Chain("pad=iw+10:ih+4:5:2:white") as pad:
        out = pad(picture(9, 17))
        assert out.shape == (13, 27, 4)
        assert (out[0, 0] == 255).all() and (out[12, 26] == 255).all()
    shapes = {f.shape for f, _ in clvid.frames(SAMPLE, vf="crop=iw/4:ih/4,transpose=clock",
                                                frames=3)}
    assert shapes == {(320, 180, 3)}, shapes
