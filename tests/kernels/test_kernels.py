"""examples/kernels through `clvid transcode` (PNG frames in, PNG frames
out) and through clvid.Chain at awkward sizes, each against a NumPy
computation of the same formula, written from the kernel's comment, not from
clvid: equal byte for byte (the kernels are integer arithmetic, and the one
float product is IEEE single precision on both sides). The examples are
depth-generic, so the same formulas on 0-65535 (maxv; parameters of the
8-bit scale times 257) are checked at 16 bits too."""
import os
import subprocess

import numpy as np
import pytest

import clvid

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
KERNELS = os.path.join(ROOT, "examples", "kernels")
MEDIA = os.environ.get("CLVID_MEDIA", os.path.join(ROOT, "media"))
CLVID = os.environ.get("CLVID_BIN", "clvid")
RNG = np.random.default_rng(11)


def kernel(name):
    return os.path.join(KERNELS, name + ".cl")


# ---- The formulas, in NumPy ------------------------------------------------


def at(img, ys, xs):
    """Pixels at (ys, xs) with the borders repeated (clamp to edge)."""
    h, w = img.shape[:2]
    return img[np.clip(ys, 0, h - 1)[:, None], np.clip(xs, 0, w - 1)[None, :]]


def gray(img):
    p = img.astype(np.int64)
    return (9798 * p[..., 0] + 19235 * p[..., 1] + 3735 * p[..., 2] + 16384) >> 15


def grid(img):
    h, w = img.shape[:2]
    return np.arange(h), np.arange(w)


def c_div(a, b):
    """C's integer division (toward zero)."""
    q = np.abs(a) // np.abs(b)
    return np.where((a < 0) != (b < 0), -q, q)


def vignette(img, strength=70, **_):
    h, w = img.shape[:2]
    y, x = grid(img)
    dx, dy = 2 * x - (w - 1), 2 * y - (h - 1)
    d2 = dy[:, None].astype(np.int64) ** 2 + dx[None, :].astype(np.int64) ** 2
    r2 = max((w - 1) ** 2 + (h - 1) ** 2, 1)
    f = 10000 - strength * 100 * d2 // r2
    out = img.copy()
    out[..., :3] = (img[..., :3].astype(np.int64) * f[..., None] + 5000) // 10000
    return out


def chromatic(img, shift=4, **_):
    h, w = img.shape[:2]
    y, x = grid(img)
    s = c_div(shift * (2 * x - (w - 1)), np.full_like(x, max(w - 1, 1)))
    out = img.copy()
    out[..., 0] = at(img, y, x + s)[..., 0]
    out[..., 2] = at(img, y, x - s)[..., 2]
    return out


def pixelate(img, block=12, **_):
    y, x = grid(img)
    return at(img, y // block * block + block // 2, x // block * block + block // 2)


def motion(img, prev, threshold=12, maxv=255, **_):
    g = gray(img)
    d = np.abs(g - gray(prev))
    moved = d > threshold * (maxv // 255)
    out = np.empty_like(img)
    out[..., 0] = np.where(moved, maxv, g // 3)
    out[..., 1] = np.where(moved, g // 4, g // 3)
    out[..., 2] = out[..., 1]
    out[..., 3] = img[..., 3]
    return out


def nightvision(img, frame=0, gain=1.3, grain=24, maxv=255, **_):
    y, x = grid(img)
    with np.errstate(over="ignore"):
        h = ((x[None, :].astype(np.uint32) * np.uint32(0x9E3779B1))
             ^ (y[:, None].astype(np.uint32) * np.uint32(0x85EBCA77))
             ^ (np.uint32(frame) * np.uint32(0xC2B2AE3D)))
        h ^= h >> np.uint32(15)
        h *= np.uint32(0x2C1B3C6D)
        h ^= h >> np.uint32(12)
    n = ((h & 255).astype(np.int64) * grain // 255 - grain // 2) * (maxv // 255)
    amplified = (gray(img).astype(np.float32) * np.float32(gain)).astype(np.int64)
    v = np.clip(amplified + n, 0, maxv)
    v[1::2] = v[1::2] * 3 // 4
    out = np.empty_like(img)
    out[..., 0], out[..., 1], out[..., 2] = v // 5, v, v // 4
    out[..., 3] = img[..., 3]
    return out


def sobel_glow(img, strength=300, hue=0, maxv=255, **_):
    y, x = grid(img)
    g = gray(img)
    def n(dy, dx):
        return at(g[..., None], y + dy, x + dx)[..., 0]
    gx = (n(-1, 1) + 2 * n(0, 1) + n(1, 1)) - (n(-1, -1) + 2 * n(0, -1) + n(1, -1))
    gy = (n(1, -1) + 2 * n(1, 0) + n(1, 1)) - (n(-1, -1) + 2 * n(-1, 0) + n(-1, 1))
    e = np.minimum((np.abs(gx) + np.abs(gy)) * strength // 400, maxv)
    tint = np.array([(0, 255, 255), (255, 0, 255), (255, 176, 0)][hue])
    out = img.copy()
    out[..., :3] = np.minimum(img[..., :3] + tint * e[..., None] // 255, maxv)
    return out


# name -> (formula, parameters for a second run, a temporal kernel)
FORMULAS = {
    "vignette": (vignette, {"strength": 95}),
    "chromatic": (chromatic, {"shift": 9}),
    "pixelate": (pixelate, {"block": 7}),
    "motion": (motion, {"threshold": 30}),
    "nightvision": (nightvision, {"gain": 2.3, "grain": 60}),
    "sobel_glow": (sobel_glow, {"strength": 520, "hue": 2}),
}


def expected(name, frames, params):
    fn = FORMULAS[name][0]
    maxv = 65535 if frames[0].dtype == np.uint16 else 255
    extra = {"maxv": maxv} if name in ("motion", "nightvision", "sobel_glow") else {}
    out = []
    for i, f in enumerate(frames):
        prev = frames[i - 1] if i else f  # the first frame's previous is itself
        out.append(fn(f, prev=prev, frame=i, **params, **extra)
                   if name in ("motion", "nightvision") else fn(f, **params, **extra))
    return out


def test_every_example_has_a_formula():
    files = sorted(f[:-3] for f in os.listdir(KERNELS) if f.endswith(".cl"))
    assert files == sorted(FORMULAS), "kernels without a formula: %s" % (set(files) ^ set(FORMULAS))


# ---- Through transcode ---------------------------------------------------------


def run(*cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    assert p.returncode == 0, "%s\n%s" % (" ".join(cmd), p.stderr)
    return p


def read_png(path):
    p = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "stream=width,height", "-of",
                        "csv=p=0", path], capture_output=True, text=True, check=True)
    w, h = map(int, p.stdout.strip().split(","))
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt",
                          "rgba", "-"], capture_output=True, check=True).stdout
    return np.frombuffer(raw, np.uint8).reshape(h, w, 4)


@pytest.fixture(scope="module")
def frames(tmp_path_factory):
    """Five natural frames of the sample at an awkward size, as PNGs."""
    d = tmp_path_factory.mktemp("frames")
    pattern = str(d / "in_%03d.png")
    run("ffmpeg", "-v", "error", "-i", os.path.join(MEDIA, "sample.mp4"), "-vf",
        "scale=641:359", "-frames:v", "5", pattern)
    return pattern, [read_png(pattern % (i + 1)) for i in range(5)]


def param_text(params):
    return "".join(":%s=%s" % kv for kv in params.items())


@pytest.mark.parametrize("name", sorted(FORMULAS))
@pytest.mark.parametrize("second", [False, True], ids=["defaults", "params"])
def test_transcode_equals_formula(name, second, frames, tmp_path):
    pattern, pictures = frames
    params = FORMULAS[name][1] if second else {}
    out = str(tmp_path / "out_%03d.png")
    run(CLVID, "transcode", "-q", "-i", pattern, "-vf",
        "opencl=file=%s%s" % (kernel(name), param_text(params)), "-o", out, "-y")
    want = expected(name, pictures, params)
    for i, w in enumerate(want):
        got = read_png(out % (i + 1))
        assert got.shape == w.shape
        bad = np.argwhere(np.any(got != w, axis=2))
        assert len(bad) == 0, "%s frame %d: %d pixels differ, first at (y, x) %s: got %s want %s" % (
            name, i, len(bad), bad[0], got[tuple(bad[0])], w[tuple(bad[0])])


# ---- Through clvid.Chain, awkward sizes, alpha kept ------------------------------


@pytest.mark.parametrize("name", sorted(FORMULAS))
@pytest.mark.parametrize("size", [(1, 1), (2, 3), (9, 17), (359, 641), (1081, 1921)])
def test_chain_equals_formula(name, size):
    params = FORMULAS[name][1]
    chain = clvid.Chain("opencl=file=%s%s" % (kernel(name), param_text(params)))
    pics = [RNG.integers(0, 256, size + (4,), dtype=np.uint8) for _ in range(2)]
    want = expected(name, pics, params)
    for i, p in enumerate(pics):
        got = chain(p, frame_index=i)
        assert np.array_equal(got, want[i]), "%s at %s, frame %d" % (name, size, i)


def test_listed_with_parameters():
    p = run(CLVID, "filters", "--file", kernel("nightvision"))
    assert "light amplification" in p.stdout and "number 0.5..4, default 1.3, step 0.1" in p.stdout
    assert "grain" in p.stdout and "integer 0..64, default 24, step 4" in p.stdout


def test_no_reference_for_user_kernels():
    with pytest.raises(ValueError, match="no C reference"):
        clvid.reference("opencl=file=%s" % kernel("pixelate"), np.zeros((2, 2, 4), np.uint8))


@pytest.mark.parametrize("name", sorted(FORMULAS))
@pytest.mark.parametrize("size", [(1, 1), (2, 3), (9, 17), (359, 641)])
def test_chain_equals_formula_at_16_bits(name, size):
    """uint16 pictures run the chain at 16 bits: the examples are
    depth-generic (`clvid filters --file` says 8 and 16)."""
    assert "8 and 16 bits" in run(CLVID, "filters", "--file", kernel(name)).stdout
    params = FORMULAS[name][1]
    chain = clvid.Chain("opencl=file=%s%s" % (kernel(name), param_text(params)))
    pics = [RNG.integers(0, 65536, size + (4,), dtype=np.uint16) for _ in range(2)]
    want = expected(name, pics, params)
    for i, p in enumerate(pics):
        got = chain(p, frame_index=i)
        assert got.dtype == np.uint16
        assert np.array_equal(got, want[i]), "%s at %s, frame %d at 16 bits" % (name, size, i)
