"""The Python package against the C references, the command line and
ffprobe: every filter exact on arrays of awkward sizes, channel orders and
strides, errors, frames() and transcode() with progress and stopping."""
import os
import shutil
import signal
import subprocess
import threading

import numpy as np
import pytest

import clvid

MEDIA = os.environ.get("CLVID_MEDIA", os.path.join(os.path.dirname(__file__), "..", "..", "media"))
SAMPLE = os.path.join(MEDIA, "sample.mp4")
RNG = np.random.default_rng(7)


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
}


def test_every_filter_has_a_case():
    names = [f["name"] for f in clvid.filters()]
    assert sorted(names) == sorted(CASES), "filters without a Python case: %s" % (
        set(names) ^ set(CASES))


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("size", [(1, 1), (2, 3), (9, 17), (359, 641)])
def test_filter_equals_reference(name, size):
    chain = clvid.Chain(CASES[name])
    img = picture(*size)
    got = chain(img)
    assert got.shape == img.shape and got.dtype == np.uint8
    assert np.array_equal(got, clvid.reference(CASES[name], img)), \
        "%s on %s differs from the C reference" % (name, size)
    # Per-frame variation follows the frame index (noise's hash).
    again = chain(img, frame_index=3)
    assert np.array_equal(again, clvid.reference(CASES[name], img, frame_index=3)) \
        or name == "quantize"  # quantize starts from the previous palette: the chain's state


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


def test_transcode_progress_and_stop(tmp_path):
    out = tmp_path / "out.mp4"
    events = []
    last = clvid.transcode(SAMPLE, str(out), vf="sharpen", progress=events.append, frames=60,
                           crf=30)
    assert events[0]["event"] == "start" and events[-1]["event"] == "end"
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


def framemd5(path):
    p = subprocess.run(["ffmpeg", "-v", "error", "-i", str(path), "-map", "0:v", "-f", "framemd5",
                        "-"], capture_output=True, text=True, check=True)
    return [l.split(",")[-1].strip() for l in p.stdout.splitlines() if not l.startswith("#")]


def test_segments_joined_equal_one_run(tmp_path):
    """The sample in 4 segments (-ss between two frames, --frame-index for
    noise), joined without re-encoding with the input's sound: frame for
    frame the one-run output (ffv1), sound kept."""
    if not shutil.which("ffmpeg"):
        pytest.skip("needs ffmpeg")
    chain = "noise=amount=0.2:seed=9,median"
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


def _c_fields(header, struct):
    """The member names of `typedef struct struct {...} struct;` in header,
    in order (one declaration may name several)."""
    import re
    with open(header) as f:
        text = f.read()
    body = re.search(r"typedef struct %s \{(.*?)\} %s;" % (struct, struct), text, re.S).group(1)
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
    names = []
    for decl in body.split(";"):
        decl = decl.strip()
        if not decl:
            continue
        for part in decl.split(","):
            # the last identifier of each declarator: "const char *device" -> device
            names.append(re.findall(r"[A-Za-z_]\w*", part)[-1])
    return names


def test_ctypes_mirrors_match_the_header():
    # A field missing in a mirror makes the library read past Python's struct.
    header = os.path.join(os.path.dirname(__file__), "..", "..", "include", "clvid", "clvid.h")
    for struct, mirror in [("clv_context_options", clvid._ContextOptions),
                           ("clv_device_info", clvid._DeviceInfo),
                           ("clv_image", clvid._Image), ("clv_frame", clvid._Frame),
                           ("clv_param", clvid._Param)]:
        got = [f[0] for f in mirror._fields_]
        want = _c_fields(header, struct)
        assert got == want or (struct == "clv_param" and got == [w if w != "def" else "default"
                                                                  for w in want]), (struct, got, want)
