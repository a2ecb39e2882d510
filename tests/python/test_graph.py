"""clvid.Graph and clvid.reference_graph: graphs of several inputs
(ffmpeg's -filter_complex) on arrays, on the device and by the C
references."""
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
