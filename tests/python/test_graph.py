"""clvid.Graph and clvid.reference_graph: graphs of several inputs
(ffmpeg's -filter_complex) on arrays, on the device and by the C
references."""
import os
import shutil
import subprocess

import numpy as np
import pytest

import clvid


def _picture(h, w, c=3, seed=0, dtype=np.uint8):
    rng = np.random.default_rng(seed)
    top = 65536 if dtype == np.uint16 else 256
    return rng.integers(0, top, size=(h, w, c), dtype=np.int64).astype(dtype)


@pytest.mark.parametrize("text,shapes", [
    ("[0][1]hstack", [(9, 17), (9, 3)]),
    ("[0][1]vstack", [(2, 3), (5, 3)]),
    ("[0]split[a][b];[a]hflip[c];[b][c]hstack,gray", [(9, 17)]),
    ("[1]scale=8:6[s];[0][s]vstack=inputs=2", [(3, 8), (359, 641)]),
])
def test_graph_equals_reference(text, shapes):
    pics = [_picture(h, w, seed=i) for i, (h, w) in enumerate(shapes)]
    with clvid.Graph(text) as g:
        assert g.inputs == len(shapes)
        got = g(*pics)
    want = clvid.reference_graph(text, *pics)
    assert got.dtype == np.uint8 and got.shape == want.shape
    assert np.array_equal(got, want)


def test_hstack_places_inputs_side_by_side():
    a, b = _picture(4, 5, 4, 1), _picture(4, 2, 4, 2)
    out = clvid.Graph("[0][1]hstack")(a, b)
    assert out.shape == (4, 7, 4)
    assert np.array_equal(out[:, :5], a) and np.array_equal(out[:, 5:], b)


def test_graph_at_16_bits_and_bgr():
    a, b = _picture(9, 17, 3, 3, np.uint16), _picture(9, 4, 3, 4, np.uint16)
    g = clvid.Graph("[0][1]hstack,hflip", order="bgr")
    got = g(a, b)
    assert got.dtype == np.uint16
    assert np.array_equal(got, clvid.reference_graph("[0][1]hstack,hflip", a, b, order="bgr"))
    assert np.array_equal(got[:, ::-1][:, :17], a)


def test_graph_output_label_and_text():
    g = clvid.Graph("[0]split[a][b];[a][b]vstack[out]", output="out")
    assert "vstack" in g.text and g.inputs == 1
    assert g(_picture(3, 2)).shape == (6, 2, 3)
    g.close()
    with pytest.raises(ValueError):
        g(_picture(3, 2))
    assert "closed" in repr(g)


@pytest.mark.parametrize("text,inputs,words", [
    ("[0][1]hstak", 2, ["unknown filter 'hstak'", "hstack"]),
    ("[0][x]hstack", 2, ["unknown label '[x]'"]),
    ("[0]split[a][b];[a]hflip[c];[c][b]hstack;[b]vflip", 1, ["read twice"]),
])
def test_graph_errors_name_the_place(text, inputs, words):
    with pytest.raises(ValueError) as e:
        clvid.Graph(text)
    for w in words:
        assert w in str(e.value)


def test_graph_checks_the_pictures():
    g = clvid.Graph("[0][1]hstack")
    with pytest.raises(ValueError, match="reads 2 inputs"):
        g(_picture(3, 3))
    with pytest.raises(ValueError, match="heights must match"):
        g(_picture(3, 3), _picture(4, 3))
    with pytest.raises(ValueError, match="all be uint8 or all uint16"):
        g(_picture(3, 3), _picture(3, 3, dtype=np.uint16))
    with pytest.raises(TypeError):
        clvid.Graph(42)
    a = _picture(3, 3)
    for bad, kind, words in (("x", TypeError, "clvid: time must be a number, not str"),
                             (float("nan"), ValueError, "clvid: time must be finite, not nan")):
        with pytest.raises(kind, match=words):
            g(a, a, time=bad)
        with pytest.raises(kind, match=words):
            clvid.reference_graph("[0][1]hstack", a, a, time=bad)
    with pytest.raises(TypeError, match="clvid: rate must be a number, not str"):
        clvid.Graph("[0][1]hstack", rate="25")
    with pytest.raises(ValueError, match="clvid: rate must be positive"):
        clvid.reference_graph("[0][1]hstack", a, a, rate=0)


def test_closed_graph_raises_value_error():
    """As a Chain's: after close() every method and property raises."""
    g = clvid.Graph("[0][1]hstack")
    assert g.inputs == 2
    g.close()
    for use in (lambda: g.inputs, lambda: g.text, lambda: g.device,
                lambda: g(_picture(3, 3), _picture(3, 3))):
        with pytest.raises(ValueError, match="clvid: this Graph is closed"):
            use()


def test_graph_timing():
    """Each input's clv_graph_desc_sync: xfade's second input lies at its
    offset and drives after the transition; an input not read is None."""
    t = clvid.graph_timing("[0][1]xfade=offset=2:duration=1", 3)
    assert t[2] is None
    assert t[0]["drive_until"] == 3 and t[1]["offset"] == 2 and t[1]["drive_from"] == 3
    o = clvid.graph_timing("[0][1]overlay=eof_action=pass[out]", 2, "[out]")
    assert o[1]["eof_action"] == "pass" and not o[1]["wait_first"] and o[1]["offset"] == 0
    with pytest.raises(ValueError, match="no input 2"):
        clvid.graph_timing("[0][2]overlay", 2)
    with pytest.raises(ValueError):
        clvid.graph_timing("[0]hflip", 0)


def test_transcode_inputs_are_checked(tmp_path):
    """transcode's inputs: a list of paths or dicts; mistakes before any
    work (nothing written)."""
    if not hasattr(clvid, "_opts_set_inputs"):
        pytest.skip("no pipeline library")
    out = tmp_path / "o.mkv"
    with pytest.raises(TypeError, match="not one path"):
        clvid.transcode("a.mp4", str(out), inputs="b.mp4", filter_complex="[0][1]hstack")
    with pytest.raises(TypeError, match="bogus"):
        clvid.transcode("a.mp4", str(out), inputs=[{"path": "b.mp4", "bogus": 1}],
                        filter_complex="[0][1]hstack")
    with pytest.raises(ValueError, match="itsoffset"):
        clvid.transcode("a.mp4", str(out), inputs=[{"path": "b.mp4", "itsoffset": "x"}],
                        filter_complex="[0][1]hstack")
    with pytest.raises(ValueError):
        clvid.transcode("a.mp4", str(out), inputs=["b.mp4"] * 16, filter_complex="[0][1]hstack")
    assert not out.exists()


# ---- frames() over several inputs --------------------------------------------

@pytest.fixture(scope="module")
def media(tmp_path_factory):
    """Small inputs: a 10-frame clip, a 6-frame clip of another width, a
    16x12 logo with an alpha ramp."""
    if not hasattr(clvid, "_reader_open") or not shutil.which("ffmpeg"):
        pytest.skip("no pipeline library or no ffmpeg")
    d = tmp_path_factory.mktemp("frames_graph")
    made = {"clip": ("testsrc2=size=64x48:rate=25:duration=0.4", "ffv1"),
            "short": ("testsrc2=size=40x48:rate=25:duration=0.24", "ffv1"),
            "logo": ("color=c=red:size=16x12,format=rgba,"
                     "geq=r=255:g='X*16':b='Y*20':a='X*16'", "png")}
    paths = {}
    for name, (src, codec) in made.items():
        paths[name] = str(d / (name + (".png" if codec == "png" else ".mkv")))
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", src] +
                       (["-frames:v", "1"] if codec == "png" else ["-c:v", codec]) +
                       [paths[name]], check=True)
    paths["dir"] = str(d)
    return paths


def _transcoded(media, graph, more, name, **options):
    """The same graph through a transcode to raw RGBA: its frames and times."""
    out = os.path.join(media["dir"], name + ".nut")
    clvid.transcode(media["clip"], out, inputs=more, filter_complex=graph, codec="rawvideo",
                    pix_fmt="rgba", overwrite=True, **options)
    probe = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v", "-show_entries",
                            "stream=width,height:frame=pts_time", "-of", "csv=p=0", out],
                           capture_output=True, text=True, check=True).stdout.split()
    w, h = (int(v) for v in probe[-1].split(","))
    times = [float(t) for t in probe[:-1]]
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", out, "-f", "rawvideo", "-pix_fmt",
                          "rgba", "-"], capture_output=True, check=True).stdout
    return np.frombuffer(raw, np.uint8).reshape(-1, h, w, 4), times


@pytest.mark.parametrize("graph,more", [
    ("[0][1]overlay=W-w-3:2", ["logo"]),
    ("[0][1]hstack", ["short"]),                        # the short clip's last frame repeats
    ("[0][1]overlay=x=5:y=4:eof_action=endall", ["short"]),  # ends with the short clip
    ("[1]hflip[f];[0][f]hstack,vflip", ["short"]),
])
def test_frames_of_a_graph_equal_the_transcode(media, graph, more):
    """frames([clip, ...], filter_complex=GRAPH): every frame, its pixels and
    its time, equal to a transcode of the same graph to raw RGBA."""
    paths = [media[m] for m in more]
    got = list(clvid.frames([media["clip"]] + paths, filter_complex=graph, alpha=True))
    want, times = _transcoded(media, graph, paths, "want")
    assert len(got) == len(want) > 0
    assert [round(t, 6) for _, t in got] == pytest.approx(times, abs=1e-6)
    for (img, _), ref in zip(got, want):
        assert np.array_equal(img, ref)
    if "endall" in graph:
        assert len(got) == 6
    elif "hstack" in graph:
        assert len(got) == 10


def test_frames_of_a_graph_options(media):
    """vf is the chain after the graph; map picks a labelled output; a graph
    over one path; input dicts as transcode's; bgr order."""
    g = "[0][1]hstack[out]"
    plain = list(clvid.frames([media["clip"], media["short"]], filter_complex=g, map="[out]"))
    assert plain[0][0].shape == (48, 104, 3)
    flipped = list(clvid.frames([media["clip"], media["short"]], filter_complex=g, map="out",
                                vf="hflip", order="bgr"))
    assert len(flipped) == len(plain)
    assert np.array_equal(flipped[3][0], plain[3][0][:, ::-1, ::-1])
    one = list(clvid.frames(media["clip"], filter_complex="[0]split[a][b];[a][b]vstack"))
    assert len(one) == 10 and one[0][0].shape == (96, 64, 3)
    assert np.array_equal(one[0][0][:48], one[0][0][48:])
    chain = list(clvid.frames([media["clip"]], filter_complex="hflip"))
    assert np.array_equal(chain[2][0], list(clvid.frames(media["clip"], vf="hflip"))[2][0])
    later = list(clvid.frames([{"path": media["clip"], "ss": 0.2},
                               {"path": media["short"], "ss": 0.08}],
                              filter_complex="[0][1]hstack"))
    assert len(later) == 5
    assert np.array_equal(later[0][0][:, 64:], plain[2][0][:, 64:])
    assert np.array_equal(later[0][0][:, :64], plain[5][0][:, :64])


def test_frames_of_a_graph_errors(media):
    clip, short = media["clip"], media["short"]
    with pytest.raises(ValueError, match="2 inputs and no filter_complex"):
        clvid.frames([clip, short])
    with pytest.raises(ValueError, match="unknown filter 'hstak'"):
        next(clvid.frames([clip, short], filter_complex="[0][1]hstak"))
    with pytest.raises(ValueError, match="no input 2"):
        next(clvid.frames([clip, short], filter_complex="[0][2]hstack"))
    with pytest.raises(ValueError, match="heights"):
        next(clvid.frames([clip, media["logo"]], filter_complex="[0][1]hstack"))
    with pytest.raises(ValueError, match="-vf"):
        next(clvid.frames([clip, short], filter_complex="[0][1]hstack", vf="nosuch"))
    with pytest.raises(clvid.Error, match="missing.mkv"):
        next(clvid.frames([clip, os.path.join(media["dir"], "missing.mkv")],
                          filter_complex="[0][1]hstack"))
    with pytest.raises(TypeError, match="bogus"):
        clvid.frames([clip, {"path": short, "bogus": 1}], filter_complex="[0][1]hstack")
    with pytest.raises(TypeError, match="not both"):
        clvid.frames([clip], inputs=[short], filter_complex="[0][1]hstack")
    with pytest.raises(ValueError, match="no input"):
        clvid.frames([])
