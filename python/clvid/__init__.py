"""clvid for Python: clvid's exact OpenCL filters on NumPy arrays, a video's
filtered frames, and whole transcodes, over the installed libclvid and
libclvid-pipeline (ctypes; NumPy is the only dependency).

    import cv2, clvid
    chain = clvid.Chain("median=radius=2,sharpen", order="bgr")
    out = chain(cv2.imread("photo.jpg"))            # same channels and dtype

Threads: the library is called with the GIL released. A Chain holds one
device context and may be shared between threads (calls on one Chain are
serialized by its lock); for parallel work give each thread its own Chain.
filters(), devices(), reference() and transcode() share nothing.

Arguments are checked before the library sees them. Text (chains, parameter
names and values, device names, options) is a str, or bytes holding UTF-8
(decoded strictly, so a bad byte is a ValueError); file names are a str,
bytes (the name as it is) or os.PathLike. A NUL character in any of them is
a ValueError (C would cut the string there), another type a TypeError.
Pictures are at most 16384 pixels a side (the engine's limit), and a
Chain's frame must also fit the device's largest buffer (max_alloc of
devices()); a larger array is refused before anything is copied.
"""
from __future__ import annotations

import collections.abc
import contextlib
import ctypes
import ctypes.util
import glob
import math
import numbers
import operator
import os
import signal
import threading
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Tuple

import numpy as np

from .control import Control, ControlError  # noqa: E402 (the control socket's client)

__all__ = ["Chain", "Control", "ControlError", "Error", "Graph", "check_output", "devices",
           "filters", "frames", "graph_timing", "join", "probe", "reference", "reference_graph",
           "reference_stream", "temporal_filters", "transcode", "version", "cadence"]


class Error(Exception):
    """A failure reported by clvid, with its message (the file, filter,
    parameter, value or device at fault) and its negative error code."""

    def __init__(self, message: str, code: int = 0):
        super().__init__(message)
        self.code = code


# ---- The libraries -----------------------------------------------------------

# The libraries' ABI (their soname's number) these mirrors and signatures
# describe: a library of another ABI is not loaded.
_SOVERSION = 2


def _candidates(name: str) -> List[str]:
    """Where lib<name>.so.<_SOVERSION> is looked for: CLVID_LIBRARY_DIR,
    beside this installed package (PREFIX/lib/python3.X/dist-packages/clvid
    -> PREFIX/lib and PREFIX/lib/<multiarch>), then the system's search
    path."""
    soname = "lib%s.so.%d" % (name, _SOVERSION)
    out = []
    env = os.environ.get("CLVID_LIBRARY_DIR")
    if env:
        out.append(os.path.join(env, soname))
    here = os.path.dirname(os.path.abspath(__file__))
    prefix_lib = os.path.normpath(os.path.join(here, "..", "..", ".."))
    out.append(os.path.join(prefix_lib, soname))
    out += sorted(glob.glob(os.path.join(prefix_lib, "*", soname)))
    out.append(soname)  # the system's search path
    return out


def _load(name: str) -> Optional[ctypes.CDLL]:
    for path in _candidates(name):
        try:
            return ctypes.CDLL(path)  # CDLL: calls release the GIL
        except OSError:
            continue
    return None


_engine = _load("clvid")
if _engine is None:
    raise ImportError("clvid: libclvid.so.%d not found (install clvid with cmake --install, or "
                      "set CLVID_LIBRARY_DIR to the folder that has it)" % _SOVERSION)
_pipeline = _load("clvid-pipeline")


class _Msg(ctypes.Structure):
    _fields_ = [("text", ctypes.c_char * 1024)]

    def __str__(self) -> str:
        return self.text.decode(errors="replace")


_LOG = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p)


class _ContextOptions(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_size_t), ("device", ctypes.c_char_p), ("profiling", ctypes.c_int),
                ("shape", ctypes.c_int), ("cache_dir", ctypes.c_char_p),
                ("no_cache", ctypes.c_int), ("kernel_dir", ctypes.c_char_p),
                ("log_level", ctypes.c_int), ("log", _LOG), ("log_user", ctypes.c_void_p),
                ("watchdog_s", ctypes.c_double), ("staging", ctypes.c_int),
                ("cache_every_driver", ctypes.c_int)]


class _Image(ctypes.Structure):
    _fields_ = [("pixels", ctypes.c_void_p), ("width", ctypes.c_int), ("height", ctypes.c_int),
                ("stride", ctypes.c_size_t), ("depth", ctypes.c_int)]


class _Frame(ctypes.Structure):
    _fields_ = [("buffer", ctypes.c_void_p), ("width", ctypes.c_int), ("height", ctypes.c_int),
                ("stride", ctypes.c_int), ("depth", ctypes.c_int)]


class _Size(ctypes.Structure):
    _fields_ = [("width", ctypes.c_int), ("height", ctypes.c_int), ("sar_num", ctypes.c_int),
                ("sar_den", ctypes.c_int), ("transfer", ctypes.c_int), ("primaries", ctypes.c_int),
                ("peak", ctypes.c_int)]


class _Param(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("type", ctypes.c_int), ("default", ctypes.c_char_p),
                ("min", ctypes.c_double), ("max", ctypes.c_double), ("choices", ctypes.c_char_p),
                ("help", ctypes.c_char_p), ("step", ctypes.c_double)]


class _DeviceInfo(ctypes.Structure):
    _fields_ = [("index", ctypes.c_int), ("platform", ctypes.c_char * 128),
                ("name", ctypes.c_char * 128), ("driver", ctypes.c_char * 64),
                ("version", ctypes.c_char * 64), ("is_gpu", ctypes.c_int),
                ("is_cpu", ctypes.c_int), ("compute_units", ctypes.c_uint),
                ("global_mem", ctypes.c_uint64), ("local_mem", ctypes.c_uint64),
                ("max_alloc", ctypes.c_uint64), ("platform_id", ctypes.c_void_p),
                ("device_id", ctypes.c_void_p)]




_P, _I, _V = ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(_Msg)


def _declare(lib, name, restype, *argtypes):
    f = getattr(lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


_strerror = _declare(_engine, "clv_strerror", ctypes.c_char_p, _I)
_version = _declare(_engine, "clv_version", ctypes.c_char_p)
_filter_count = _declare(_engine, "clv_filter_count", _I)
_filter_at = _declare(_engine, "clv_filter_at", _P, _I)
_filter_name = _declare(_engine, "clv_filter_name", ctypes.c_char_p, _P)
_filter_help = _declare(_engine, "clv_filter_help", ctypes.c_char_p, _P)
_filter_param_count = _declare(_engine, "clv_filter_param_count", _I, _P)
_filter_temporal = _declare(_engine, "clv_filter_temporal", _I, _P)
_filter_deep = _declare(_engine, "clv_filter_deep", _I, _P)
_filter_param = _declare(_engine, "clv_filter_param", ctypes.POINTER(_Param), _P, _I)
_device_list = _declare(_engine, "clv_device_list", _I, ctypes.POINTER(ctypes.POINTER(_DeviceInfo)),
                        _V)
_context_create = _declare(_engine, "clv_context_create", _I, ctypes.POINTER(_ContextOptions),
                           ctypes.POINTER(_P), _V)
_context_destroy = _declare(_engine, "clv_context_destroy", None, _P)
_context_device = _declare(_engine, "clv_context_device", ctypes.POINTER(_DeviceInfo), _P)
_chain_parse = _declare(_engine, "clv_chain_parse", _I, ctypes.c_char_p, ctypes.POINTER(_P), _V)
_desc_destroy = _declare(_engine, "clv_chain_desc_destroy", None, _P)
_desc_slice = _declare(_engine, "clv_chain_desc_slice", _P, _P, _I, _I)
_desc_count = _declare(_engine, "clv_chain_desc_count", _I, _P)
_desc_filter = _declare(_engine, "clv_chain_desc_filter", _P, _P, _I)
_chain_format = _declare(_engine, "clv_chain_format", None, _P, ctypes.c_char_p, ctypes.c_size_t)
_chain_create = _declare(_engine, "clv_chain_create", _I, _P, _P, ctypes.POINTER(_P), _V)
_chain_create_depth = _declare(_engine, "clv_chain_create_depth", _I, _P, _P, _I,
                               ctypes.POINTER(_P), _V)
_chain_destroy = _declare(_engine, "clv_chain_destroy", None, _P)
_chain_get_desc = _declare(_engine, "clv_chain_get_desc", _P, _P)
_chain_run = _declare(_engine, "clv_chain_run", _I, _P, ctypes.POINTER(_Frame),
                      ctypes.POINTER(_Frame), ctypes.c_uint64, _P, _P, _V)
_chain_cadence = _declare(_engine, "clv_chain_cadence", None, _P, ctypes.POINTER(_I),
                          ctypes.POINTER(_I))
_chain_end = _declare(_engine, "clv_chain_end", None, _P)
_chain_set_param = _declare(_engine, "clv_chain_set_param", _I, _P, _I, ctypes.c_char_p,
                            ctypes.c_char_p, _V)
_chain_output_size = _declare(_engine, "clv_chain_output_size", _I, _P, ctypes.POINTER(_Size),
                              ctypes.POINTER(_Size), _V)
_desc_output_size = _declare(_engine, "clv_chain_desc_output_size", _I, _P,
                             ctypes.POINTER(_Size), ctypes.POINTER(_Size), _V)
_frame_create = _declare(_engine, "clv_frame_create_depth", _I, _P, _I, _I, _I,
                         ctypes.POINTER(_Frame), _V)
_frame_destroy = _declare(_engine, "clv_frame_destroy", None, ctypes.POINTER(_Frame))
_frame_upload = _declare(_engine, "clv_frame_upload", _I, _P, ctypes.POINTER(_Frame),
                         ctypes.POINTER(_Image))
_frame_download = _declare(_engine, "clv_frame_download", _I, _P, ctypes.POINTER(_Frame),
                           ctypes.POINTER(_Image))
_ref_create = _declare(_engine, "clv_ref_chain_create", _I, _P, ctypes.POINTER(_P))
_ref_destroy = _declare(_engine, "clv_ref_chain_destroy", None, _P)
_ref_run = _declare(_engine, "clv_ref_chain_run", _I, _P, ctypes.POINTER(_Image),
                    ctypes.POINTER(_Image), ctypes.c_uint64)
_ref_end = _declare(_engine, "clv_ref_chain_end", None, _P)
_desc_cadence = _declare(_engine, "clv_chain_desc_cadence", _I, _P, ctypes.POINTER(_I),
                         ctypes.POINTER(_I), _V)


class _FpsSpec(ctypes.Structure):
    """clv_fps_spec."""
    _fields_ = [("rate", ctypes.c_double), ("rounding", _I), ("eof_pass", _I),
                ("has_start", _I), ("start_time", ctypes.c_double)]


_desc_fps = _declare(_engine, "clv_chain_desc_fps", _I, _P, ctypes.c_double,
                     ctypes.POINTER(_FpsSpec), _V)
_graph_parse = _declare(_engine, "clv_graph_parse", _I, ctypes.c_char_p, _I, ctypes.c_char_p,
                        ctypes.POINTER(_P), _V)
_graph_desc_destroy = _declare(_engine, "clv_graph_desc_destroy", None, _P)
_graph_desc_uses = _declare(_engine, "clv_graph_desc_uses", _I, _P, _I)


class _GraphSync(ctypes.Structure):
    """clv_graph_sync: an input's timing in a graph."""
    _fields_ = [("offset", ctypes.c_double), ("drive_from", ctypes.c_double),
                ("drive_until", ctypes.c_double), ("from_", ctypes.c_double),
                ("until", ctypes.c_double), ("eof_action", _I), ("wait_first", _I)]


_graph_desc_sync = _declare(_engine, "clv_graph_desc_sync", _I, _P, _I,
                            ctypes.POINTER(_GraphSync))
_graph_format = _declare(_engine, "clv_graph_format", None, _P, ctypes.c_char_p, ctypes.c_size_t)
_graph_desc_output_size = _declare(_engine, "clv_graph_desc_output_size", _I, _P,
                                   ctypes.POINTER(_Size), ctypes.POINTER(_Size), _V)
_graph_create = _declare(_engine, "clv_graph_create", _I, _P, _P, _I, ctypes.POINTER(_P), _V)
_graph_destroy = _declare(_engine, "clv_graph_destroy", None, _P)
_graph_output_size = _declare(_engine, "clv_graph_output_size", _I, _P, ctypes.POINTER(_Size),
                              ctypes.POINTER(_Size), _V)
_graph_run = _declare(_engine, "clv_graph_run", _I, _P, ctypes.POINTER(ctypes.POINTER(_Frame)),
                      ctypes.POINTER(_Frame), ctypes.c_uint64, ctypes.c_double, _P, _P, _V)
_ref_graph_create = _declare(_engine, "clv_ref_graph_create", _I, _P, ctypes.POINTER(_P))
_ref_graph_destroy = _declare(_engine, "clv_ref_graph_destroy", None, _P)
_ref_graph_run = _declare(_engine, "clv_ref_graph_run", _I, _P,
                          ctypes.POINTER(ctypes.POINTER(_Image)), ctypes.POINTER(_Image),
                          ctypes.c_uint64, ctypes.c_double)
_libc = ctypes.CDLL(None)
_free = _declare(_libc, "free", None, _P)

_EINVAL, _EPARSE, _ERANGE, _EOPTION, _EKERNEL, _EDEPTH = -1, -7, -8, -13, -14, -16


def _raise(code: int, msg: _Msg, usage: bool = False):
    text = str(msg) or _strerror(code).decode()
    if usage or code in (_EPARSE, _ERANGE, _EOPTION, _EKERNEL, _EDEPTH):
        raise ValueError(text)
    raise Error(text, code)


def _text(value: Any, what: str) -> bytes:
    """A str, or bytes holding UTF-8, as the NUL-terminated bytes the library
    reads; a NUL inside would silently cut the string short in C."""
    if isinstance(value, str):
        data = value.encode()
    elif isinstance(value, (bytes, bytearray)):
        data = bytes(value)
        data.decode()  # UnicodeDecodeError (a ValueError) names the bad byte
    else:
        raise TypeError("clvid: %s must be a str (or UTF-8 bytes), not %s"
                        % (what, type(value).__name__))
    if b"\0" in data:
        raise ValueError("clvid: %s contains a NUL character: %r" % (what, value))
    return data


def _path(value: Any, what: str) -> bytes:
    """A file name (str, bytes or os.PathLike) as the bytes the library opens."""
    try:
        data = os.fsencode(value)
    except TypeError:
        raise TypeError("clvid: %s must be a path (str, bytes or os.PathLike), not %s"
                        % (what, type(value).__name__)) from None
    if b"\0" in data:
        raise ValueError("clvid: %s contains a NUL character: %r" % (what, value))
    return data


def _integer(value: Any, what: str) -> int:
    """An integer argument; floats and strings are refused rather than
    truncated or parsed, as ctypes would wrap them silently, and so are
    True and False (an index of True is a slip, not filter 1)."""
    if isinstance(value, bool):
        raise TypeError("clvid: %s must be an integer, not bool" % what)
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError("clvid: %s must be an integer, not %s"
                        % (what, type(value).__name__)) from None


def _real(value: Any, what: str) -> float:
    """A finite number argument (seconds, a rate) as float; strings and
    bools are refused rather than parsed or taken as 0 and 1."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError("clvid: %s must be a number, not %s" % (what, type(value).__name__))
    number = float(value)
    if not math.isfinite(number):
        raise ValueError("clvid: %s must be finite, not %r" % (what, value))
    return number


_UINT64_MAX = (1 << 64) - 1


def _frame_index(value: Any) -> int:
    """frame_index as the library's uint64_t; ctypes would wrap -1 or 2**64
    to another frame's noise without a word."""
    n = _integer(value, "frame_index")
    if not 0 <= n <= _UINT64_MAX:
        raise ValueError("clvid: frame_index %d is out of range (0 to 2**64-1)" % n)
    return n


def _device_text(device: Any) -> Optional[bytes]:
    """A device as `clvid devices` picks one: its number or a part of its
    name; None for the default."""
    if device is None:
        return None
    if isinstance(device, numbers.Integral) and not isinstance(device, bool):
        return str(int(device)).encode()
    return _text(device, "device")


def version() -> str:
    """The library's version, "0.4.0"."""
    return _version().decode()


def _engine_options(device: Optional[str], keep: list) -> _ContextOptions:
    """The engine's settings as the clvid command has them: the device, and
    the kernel cache of CLVID_CACHE_DIR (else XDG_CACHE_HOME/clvid or
    ~/.cache/clvid) unless CLVID_NO_CACHE (on PoCL written when the context
    ends, or at the build when POCL_KERNEL_CACHE=0); CLVID_DEVICE when no
    device."""
    opt = _ContextOptions()
    opt.struct_size = ctypes.sizeof(_ContextOptions)
    device = device if device is not None else os.environ.get("CLVID_DEVICE") or None
    if device is not None:
        keep.append(_device_text(device))
        opt.device = keep[-1]
    cache = os.environ.get("CLVID_CACHE_DIR")
    if not cache:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        cache = os.path.join(base, "clvid")
    keep.append(cache.encode())
    opt.cache_dir = keep[-1]
    opt.no_cache = 1 if os.environ.get("CLVID_NO_CACHE", "0") not in ("", "0") else 0
    opt.cache_every_driver = 1 if os.environ.get("POCL_KERNEL_CACHE") == "0" else 0
    return opt


# ---- Facts -------------------------------------------------------------------

_TYPES = ("int", "real", "enum", "matrix", "expr", "color", "flags", "text", "file")


def filters() -> List[Dict[str, Any]]:
    """Every filter as `clvid filters` lists it: name, help, and parameters
    (name, type, default, min, max, choices, step, help)."""
    out = []
    for i in range(_filter_count()):
        f = _filter_at(i)
        params = []
        for k in range(_filter_param_count(f)):
            p = _filter_param(f, k).contents
            params.append({
                "name": p.name.decode(), "type": _TYPES[p.type],
                "default": p.default.decode() if p.default else None,
                "min": p.min, "max": p.max,
                "choices": p.choices.decode().split("|") if p.choices else None,
                "step": p.step, "help": p.help.decode() if p.help else "",
            })
        out.append({"name": _filter_name(f).decode(), "help": _filter_help(f).decode(),
                    "params": params, "deep": bool(_filter_deep(f))})
    return out


def devices() -> List[Dict[str, Any]]:
    """Every OpenCL device of every platform, numbered as `clvid devices`
    numbers them (the number or a part of the name picks one)."""
    lst = ctypes.POINTER(_DeviceInfo)()
    msg = _Msg()
    n = _device_list(ctypes.byref(lst), ctypes.byref(msg))
    if n < 0:
        _raise(n, msg)
    try:
        return [{"index": d.index, "name": d.name.decode(), "platform": d.platform.decode(),
                 "driver": d.driver.decode(), "version": d.version.decode(),
                 "gpu": bool(d.is_gpu), "cpu": bool(d.is_cpu),
                 "compute_units": d.compute_units, "global_mem": d.global_mem,
                 "max_alloc": d.max_alloc}
                for d in (lst[i] for i in range(n))]
    finally:
        _free(lst)


# ---- Arrays --------------------------------------------------------------------

# The largest side of a picture, as CLV__SIDE_MAX in src/core/frame.c (not in
# the public header): the kernels and the C references index pixels with int.
_SIDE_MAX = 16384


def _to_rgba(img: np.ndarray, order: str, max_bytes: int = 0,
             device: str = "") -> Tuple[np.ndarray, int]:
    """An H x W x 3|4 uint8 or uint16 array (any strides, RGB(A) or
    BGR(A)) as a C-contiguous RGBA array of the same dtype (the array itself
    when it is one; only read), and its channel count. uint16 runs the chain
    at 16 bits (0-65535). The size is checked before anything is copied (a
    broadcast view takes no memory, its copy could take all there is):
    sides at most _SIDE_MAX, and with max_bytes the device frame
    (rows padded to 16 pixels, as clv_frame_create pads them) at most that."""
    if not isinstance(img, np.ndarray):
        raise TypeError("clvid: expected a numpy.ndarray (H x W x 3 or H x W x 4, uint8 or "
                        "uint16), got %s" % type(img).__name__)
    if img.dtype not in (np.uint8, np.uint16) or img.ndim != 3 or img.shape[2] not in (3, 4):
        raise ValueError("clvid: expected an H x W x 3 or H x W x 4 uint8 or uint16 array, got "
                         "%s %s" % (img.dtype, img.shape))
    if img.dtype == np.uint16 and not img.dtype.isnative:
        img = img.astype(np.uint16)
    h, w, c = img.shape
    if h < 1 or w < 1:
        raise ValueError("clvid: empty picture %dx%d" % (w, h))
    if w > _SIDE_MAX or h > _SIDE_MAX:
        raise ValueError("clvid: picture size %dx%d: the largest side clvid takes is %d"
                         % (w, h, _SIDE_MAX))
    frame_bytes = ((w + 15) & ~15) * h * 4 * img.itemsize
    if max_bytes and frame_bytes > max_bytes:
        raise ValueError("clvid: picture size %dx%d needs %d MiB in one device buffer; %s allows "
                         "at most %d MiB (CL_DEVICE_MAX_MEM_ALLOC_SIZE)"
                         % (w, h, frame_bytes >> 20, device, max_bytes >> 20))
    if c == 4 and order == "rgb" and img.flags["C_CONTIGUOUS"]:
        return img, 4  # already the engine's layout: read in place, no copy
    rgba = np.empty((h, w, 4), img.dtype)
    src = img[..., [2, 1, 0]] if order == "bgr" else img[..., :3]
    rgba[..., :3] = src
    rgba[..., 3] = img[..., 3] if c == 4 else np.iinfo(img.dtype).max
    return rgba, c


def _shape(img: Any) -> Any:
    """What a stream's pictures must share to be one sequence: size,
    channels and bytes a sample (an array that is none is refused by the
    run itself)."""
    return (img.shape, img.dtype.itemsize) if isinstance(img, np.ndarray) else None


def _from_rgba(rgba: np.ndarray, channels: int, order: str) -> np.ndarray:
    out = rgba[..., [2, 1, 0, 3]] if order == "bgr" else rgba
    return np.ascontiguousarray(out[..., :channels])


def _image(a: np.ndarray) -> _Image:
    return _Image(a.ctypes.data, a.shape[1], a.shape[0], a.shape[1] * 4 * a.itemsize,
                  8 * a.itemsize)


class _Desc:
    """A parsed chain (clv_chain_desc, the library's): freed when collected."""

    def __init__(self, ptr: ctypes.c_void_p):
        self.ptr = ptr

    def __del__(self):
        if self.ptr:
            _desc_destroy(self.ptr)
            self.ptr = None


def _parse(text: Optional[str]) -> _Desc:
    """A chain's text (None or "" is the empty chain, the identity) parsed
    into a clv_chain_desc."""
    data = b"" if text is None else _text(text, "chain text")
    ptr = ctypes.c_void_p()
    msg = _Msg()
    err = _chain_parse(data, ctypes.byref(ptr), ctypes.byref(msg))
    if err:
        _raise(err, msg, usage=True)
    return _Desc(ptr)


def temporal_filters(text: Optional[str]) -> List[str]:
    """The filters of a chain whose output depends on the frames before
    (their descriptors say so: quantize's palette, a user kernel that reads
    prev), each written out as text; [] when every filter is a function of
    its frame and its index. A run cut into segments matches one run only
    then. ValueError for a bad chain."""
    desc = _parse(text)
    found = []
    for i in range(_desc_count(desc.ptr)):
        if _filter_temporal(_desc_filter(desc.ptr, i)):
            one = _Desc(ctypes.c_void_p(_desc_slice(desc.ptr, i, 1)))
            if not one.ptr:
                raise MemoryError("clvid: out of memory")
            buf = ctypes.create_string_buffer(16384)
            _chain_format(one.ptr, buf, len(buf))
            found.append(buf.value.decode(errors="replace"))
    return found


def frame_rate(text: Optional[str], source_fps: float = 25.0) -> Optional[float]:
    """The frame rate a chain's fps filter gives (its expression of
    source_fps, the rate of the frames into it), or None for a chain
    without fps. Such a chain is clvid.transcode's: a Chain refuses it.
    ValueError for a bad chain or a rate that is not more than 0."""
    desc = _parse(text)
    spec, msg = _FpsSpec(), _Msg()
    err = _desc_fps(desc.ptr, float(source_fps), ctypes.byref(spec), ctypes.byref(msg))
    if err:
        _raise(err, msg, usage=True)
    return spec.rate if spec.rate > 0 else None


def cadence(text: Optional[str]) -> Tuple[int, int]:
    """(delay, rate) of a chain's text, as clv_chain_desc_cadence: the frames
    in its output lags behind (a deinterlacer: 1, the frame after each one
    it reads) and the frames out per frame in (2: a frame per field);
    (0, 1) for a chain that holds no frame. A filter with a delay reads
    that many frames each side of each frame and no more: a run over a part
    of a video equals one run over the whole when it is given that many
    frames of context each side (transcode's lead_frames and keep_frames).
    ValueError for a bad chain or two filters that hold frames."""
    desc = _parse(text)
    delay, rate, msg = _I(), _I(), _Msg()
    err = _desc_cadence(desc.ptr, ctypes.byref(delay), ctypes.byref(rate), ctypes.byref(msg))
    if err:
        _raise(err, msg, usage=True)
    return delay.value, rate.value


def _check_order(order: str) -> str:
    if order not in ("rgb", "bgr"):
        raise ValueError("clvid: order must be 'rgb' or 'bgr', not %r" % (order,))
    return order


def _no_copy(self, *args):
    raise TypeError("clvid: a %s owns C objects and cannot be copied or pickled"
                    % type(self).__name__)


class _Owner:
    """An object owning C objects: close() frees them (also when it is
    collected); a copy would share the C pointers, and whichever went first
    would free them under the other, so copies and pickles are refused.
    Subclasses define close()."""

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    __copy__ = __deepcopy__ = __reduce__ = __reduce_ex__ = _no_copy


class Chain(_Owner):
    """A chain of filters built once on a device and run on arrays:
    chain(img) returns a new array (of the chain's output size: scale, crop,
    pad, transpose and rotate change it; the channels and dtype as given), exactly what
    `clvid transcode` gives for the same picture. order="bgr" takes and gives
    OpenCV's channel order. Alpha passes through unchanged.

    A chain with a deinterlacer (yadif, bwdif) makes each frame from the
    frames before and after it: chain(img) refuses it, and
    chain.stream(pictures) filters a sequence (frame for frame, or two per
    frame with mode send_field), the last frames given at its end.

    close() (or leaving a `with` block) frees the device objects; after it
    every method and property raises ValueError, and repr says closed. A
    Chain cannot be copied or pickled: make another from chain.text."""

    # A Chain whose __init__ failed or never ran reads as closed, so
    # __del__, close() and repr work on it.
    _lock: Optional[threading.Lock] = None
    _chain: Any = None

    def __init__(self, text: Optional[str], device: Optional[str] = None, order: str = "rgb"):
        if self._chain:  # __init__ again on a live chain: its objects go first
            self.close()
        self._order = _check_order(order)
        desc = _parse(text)
        keep: list = []
        opt = _engine_options(device, keep)  # the device is checked before anything is made
        self._lock = threading.Lock()
        self._keep = keep
        self._ctx = ctypes.c_void_p()
        self._chain = ctypes.c_void_p()
        self._src, self._dst = _Frame(), _Frame()
        self._size = (0, 0)
        self._chain16 = ctypes.c_void_p()  # made at the first uint16 picture
        self._frame_index = 0
        msg = _Msg()
        err = _context_create(ctypes.byref(opt), ctypes.byref(self._ctx), ctypes.byref(msg))
        if err:
            _raise(err, msg)
        # The device facts are fixed for the context's life: read once, so
        # that the size check needs no call into it.
        info = _context_device(self._ctx).contents
        self._device = info.name.decode(errors="replace")
        self._max_alloc = info.max_alloc
        err = _chain_create(self._ctx, desc.ptr, ctypes.byref(self._chain), ctypes.byref(msg))
        if err:
            self.close()
            _raise(err, msg)

    @contextlib.contextmanager
    def _open(self) -> Iterator[None]:
        """Holds the lock of an open chain. Open is checked under the lock:
        close() in another thread takes it too, so it waits for the call,
        and the calls after it see the chain closed."""
        if self._lock is None:
            raise ValueError("clvid: this Chain is closed")
        with self._lock:
            if not self._chain:
                raise ValueError("clvid: this Chain is closed")
            yield

    @property
    def text(self) -> str:
        """The chain as text, every parameter written out."""
        with self._open():
            desc = _chain_get_desc(self._chain)
            size = 4096
            while True:
                buf = ctypes.create_string_buffer(size)
                _chain_format(desc, buf, len(buf))
                # A full buffer may be a cut one (32 filters with 7x7
                # matrices or user kernels write more): format again, larger.
                if len(buf.value) < size - 1:
                    return buf.value.decode()
                size *= 4

    @property
    def device(self) -> str:
        """The name of the device the chain runs on."""
        with self._open():
            return self._device

    @property
    def order(self) -> str:
        """The channel order of the arrays, "rgb" or "bgr"."""
        with self._open():
            return self._order

    @order.setter
    def order(self, value: str) -> None:
        _check_order(value)
        with self._open():
            self._order = value

    @property
    def frame_index(self) -> int:
        """The frame index of the next call (0 to 2**64-1; after the last it
        wraps to 0, as the library's uint64_t does)."""
        with self._open():
            return self._frame_index

    @frame_index.setter
    def frame_index(self, value: int) -> None:
        n = _frame_index(value)
        with self._open():
            self._frame_index = n

    def _count(self) -> int:
        return _desc_count(_chain_get_desc(self._chain))

    def set(self, filter_index: int, param: str, value: Any) -> None:
        """Changes one parameter of filter `filter_index` (from 0) for the
        next call, without rebuilding; ValueError names the range. value is
        a number or the text the chain syntax takes (str or UTF-8 bytes)."""
        index = _integer(filter_index, "filter_index")
        name = _text(param, "parameter name")
        if isinstance(value, (str, bytes, bytearray)):
            text = _text(value, "value of %s" % name.decode())
        elif isinstance(value, numbers.Real):
            text = str(value).encode()
        else:
            raise TypeError("clvid: value of %s must be a number or a str, not %s"
                            % (name.decode(), type(value).__name__))
        msg = _Msg()
        with self._open():
            count = self._count()
            if not 0 <= index < count:
                raise ValueError("clvid: filter_index %d is out of range: the chain has %d "
                                 "filter%s (0 to %d)" % (index, count, "" if count == 1 else "s",
                                                         count - 1))
            err = _chain_set_param(self._chain, index, name, text, ctypes.byref(msg))
            if not err and self._chain16:
                err = _chain_set_param(self._chain16, index, name, text, ctypes.byref(msg))
        if err:
            _raise(err, msg, usage=True)

    @property
    def cadence(self) -> Tuple[int, int]:
        """(delay, rate): the frames the output lags behind (1 with a
        deinterlacer) and the frames out per frame in (2: send_field)."""
        delay, rate = _I(), _I()
        with self._open():
            _chain_cadence(self._chain, ctypes.byref(delay), ctypes.byref(rate))
        return delay.value, rate.value

    def __call__(self, img: np.ndarray, frame_index: Optional[int] = None) -> np.ndarray:
        """Filters one picture. frame_index (default: one more than the last
        call's) feeds the filters that vary per frame (noise)."""
        delay, rate = self.cadence
        if delay or rate != 1:
            raise ValueError("clvid: %s makes a frame from the ones before and after it (a "
                             "deinterlacer): filter a sequence with chain.stream(pictures)"
                             % self.text)
        return self._run(img, frame_index)

    def stream(self, pictures: Iterable[np.ndarray],
               frame_index: Optional[int] = None) -> Iterator[np.ndarray]:
        """Filters a sequence of pictures, yielding the frames out in order:
        one per picture, or with a deinterlacer's send_field two (one per
        field); a deinterlacer's output lags a picture behind, and the last
        comes once the sequence ends. Any chain streams (without a
        deinterlacer, as calls). frame_index: the first run's (default: as
        chain(img)); each run counts one. After a stream with a
        deinterlacer the chain starts afresh for the next. A picture of
        another size, channel count or dtype than the one before it ends
        the sequence so far (its last frames out at its own size and
        channels, as the GStreamer element drains on new caps) and starts
        a new one."""
        delay, rate = self.cadence
        index = None if frame_index is None else _frame_index(frame_index)
        runs, last, shape = 0, None, None
        for img in pictures:
            # A deinterlacer holds the picture before: were it run with the
            # next of another shape, the engine would start again at the new
            # size (or give the held frame the new channels) and the held
            # frame's place would take the new picture's first run.
            if delay and last is not None and _shape(img) != shape:
                yield from self._drain(last, delay * rate)
                runs = 0
            for _ in range(rate):
                out = self._run(img, index)
                index = None
                if runs >= delay * rate:
                    yield out
                runs += 1
            last, shape = img, _shape(img)
        if delay and last is not None:
            yield from self._drain(last, delay * rate)

    def _drain(self, last: np.ndarray, count: int) -> Iterator[np.ndarray]:
        """Ends the sequence whose last picture was `last`: the `count`
        frames the deinterlacer still holds, then the chain afresh."""
        with self._open():
            for chain in (self._chain, self._chain16):
                if chain:
                    _chain_end(chain)
        try:
            for _ in range(count):
                yield self._run(last, None)
        finally:
            self._restart()

    def _restart(self) -> None:
        """The chains again from their descriptions (the values set kept):
        what a deinterlacer held and its end are forgotten."""
        msg = _Msg()
        with self._open():
            for name in ("_chain", "_chain16"):
                old = getattr(self, name)
                if not old:
                    continue
                new = ctypes.c_void_p()
                depth = 16 if name == "_chain16" else 8
                err = _chain_create_depth(self._ctx, _chain_get_desc(old), depth,
                                          ctypes.byref(new), ctypes.byref(msg))
                if err:
                    _raise(err, msg)
                _chain_destroy(old)
                setattr(self, name, new)

    def _run(self, img: np.ndarray, frame_index: Optional[int]) -> np.ndarray:
        """One run of the chain on one picture."""
        index = None if frame_index is None else _frame_index(frame_index)
        with self._open():
            order = self._order
        rgba, channels = _to_rgba(img, order, self._max_alloc, self._device)
        h, w = rgba.shape[:2]
        depth = 8 * rgba.itemsize
        msg = _Msg()
        with self._open():  # again: close() may have run while the array was converted
            if depth == 16 and not self._chain16:
                # The same filters with their values now, built at 16 bits.
                err = _chain_create_depth(self._ctx, _chain_get_desc(self._chain), 16,
                                          ctypes.byref(self._chain16), ctypes.byref(msg))
                if err:
                    self._chain16 = ctypes.c_void_p()
                    _raise(err, msg)
            chain = self._chain16 if depth == 16 else self._chain
            if index is not None:
                self._frame_index = index
            # The chain's output size for this picture (scale, crop... change
            # it; a parameter set since may have too).
            size_in, size_out = _Size(w, h, 0, 1), _Size()
            err = _chain_output_size(chain, ctypes.byref(size_in), ctypes.byref(size_out),
                                     ctypes.byref(msg))
            if err:
                _raise(err, msg)
            ow, oh = size_out.width, size_out.height
            out = np.empty((oh, ow, 4), rgba.dtype)
            if self._size != (w, h, ow, oh, depth):
                _frame_destroy(ctypes.byref(self._src))
                _frame_destroy(ctypes.byref(self._dst))
                self._size = (0, 0)
                for f, (fw, fh) in ((self._src, (w, h)), (self._dst, (ow, oh))):
                    err = _frame_create(self._ctx, fw, fh, depth, ctypes.byref(f),
                                        ctypes.byref(msg))
                    if err:
                        _raise(err, msg)
                self._size = (w, h, ow, oh, depth)
            src_img, dst_img = _image(rgba), _image(out)
            err = _frame_upload(self._ctx, ctypes.byref(self._src), ctypes.byref(src_img))
            if not err:
                err = _chain_run(chain, ctypes.byref(self._src), ctypes.byref(self._dst),
                                 self._frame_index, None, None, ctypes.byref(msg))
            if not err:
                err = _frame_download(self._ctx, ctypes.byref(self._dst), ctypes.byref(dst_img))
            if err:
                _raise(err, msg)
            self._frame_index = (self._frame_index + 1) & _UINT64_MAX
        return _from_rgba(out, channels, order)

    def close(self) -> None:
        """Frees the device objects now (also done when collected). Waits for
        a call running in another thread; closing twice is fine."""
        if self._lock is None:
            return  # __init__ stopped before it made anything
        with self._lock:
            _frame_destroy(ctypes.byref(self._src))
            _frame_destroy(ctypes.byref(self._dst))
            self._size = (0, 0)
            if self._chain16:
                _chain_destroy(self._chain16)
                self._chain16 = ctypes.c_void_p()
            if self._chain:
                _chain_destroy(self._chain)
                self._chain = ctypes.c_void_p()
            if self._ctx:
                _context_destroy(self._ctx)
                self._ctx = ctypes.c_void_p()

    def __enter__(self) -> "Chain":
        with self._open():
            pass
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        try:
            return "clvid.Chain(%r) on %s" % (self.text, self.device)
        except ValueError:
            return "<clvid.Chain (closed)>"


def _reference_chain(desc, text: str) -> ctypes.c_void_p:
    """The C reference chain of a parsed chain (clv_ref_chain_create); a
    user kernel has none."""
    ref = ctypes.c_void_p()
    err = _ref_create(desc.ptr, ctypes.byref(ref))
    if err == _EINVAL:
        raise ValueError("clvid: %s has a user kernel (opencl=...), which has no C reference"
                         % text)
    if err:
        raise Error("clvid: cannot set up the reference chain")
    return ref


def reference(text: Optional[str], img: np.ndarray, frame_index: int = 0,
              order: str = "rgb") -> np.ndarray:
    """The chain by the C references (the definitions, on the host), for
    checking: Chain(text)(img) equals reference(text, img)."""
    _check_order(order)
    index = _frame_index(frame_index)
    desc = _parse(text)
    rgba, channels = _to_rgba(img, order)
    ref = _reference_chain(desc, text)
    try:
        msg = _Msg()
        size_in, size_out = _Size(rgba.shape[1], rgba.shape[0], 0, 1), _Size()
        err = _desc_output_size(desc.ptr, ctypes.byref(size_in), ctypes.byref(size_out),
                                ctypes.byref(msg))
        if err:
            _raise(err, msg)
        out = np.empty((size_out.height, size_out.width, 4), rgba.dtype)
        a, b = _image(rgba), _image(out)
        err = _ref_run(ref, ctypes.byref(a), ctypes.byref(b), index)
        if err == _EDEPTH:
            raise ValueError("clvid: %s has a filter that runs at 8 bits only; a uint16 picture "
                             "needs every filter at 16 bits" % text)
        if err:
            raise Error("clvid: out of memory in the reference chain")
        return _from_rgba(out, channels, order)
    finally:
        _ref_destroy(ref)



# ---- Graphs of several inputs (ffmpeg's -filter_complex) ---------------------

class _GraphDesc:
    """A parsed graph (clv_graph_desc), freed with the object, and how many
    inputs it reads (one more than the highest input index it names)."""

    def __init__(self, text: str, output: Optional[str]):
        if not isinstance(text, str):
            raise TypeError("clvid: a graph is a str, not %s" % type(text).__name__)
        label = None if output is None else _text(output, "output label")
        msg = _Msg()
        ptr = ctypes.c_void_p()
        # Parsed first for the most inputs a graph takes, to learn how many it
        # reads; then again for that many (what a caller must give).
        err = _graph_parse(_text(text, "graph"), _GRAPH_INPUTS, label, ctypes.byref(ptr),
                           ctypes.byref(msg))
        if err:
            _raise(err, msg, usage=True)
        self.inputs = 1 + max([i for i in range(_GRAPH_INPUTS) if _graph_desc_uses(ptr, i)],
                              default=0)
        _graph_desc_destroy(ptr)
        self.ptr = ctypes.c_void_p()
        err = _graph_parse(_text(text, "graph"), self.inputs, label, ctypes.byref(self.ptr),
                           ctypes.byref(msg))
        if err:
            _raise(err, msg, usage=True)

    def __del__(self):
        if getattr(self, "ptr", None):
            _graph_desc_destroy(self.ptr)
            self.ptr = None

    def text(self) -> str:
        buf = ctypes.create_string_buffer(65536)
        _graph_format(self.ptr, buf, len(buf))
        return buf.value.decode()


_GRAPH_INPUTS = 16


def graph_timing(text: str, inputs: int, output: Optional[str] = None) -> List[Optional[dict]]:
    """The timing of each of `inputs` inputs in graph `text`
    (clv_graph_desc_sync; None for an input it does not read): offset (s on
    the output's timeline where its time 0 lies), drive_from, drive_until
    (the output times its frames are the output's), from, until (the times
    it is read), eof_action ("repeat", "endall", "pass"), wait_first.
    ValueError for a bad graph, as clvid transcode's -filter_complex."""
    if not isinstance(inputs, int) or not 1 <= inputs <= _GRAPH_INPUTS:
        raise ValueError("clvid: inputs %r: expected 1 to %d" % (inputs, _GRAPH_INPUTS))
    label = None if output is None else _text(output.strip("[]"), "output label")
    msg, ptr = _Msg(), ctypes.c_void_p()
    err = _graph_parse(_text(text, "graph"), inputs, label, ctypes.byref(ptr), ctypes.byref(msg))
    if err:
        _raise(err, msg, usage=True)
    try:
        out: List[Optional[dict]] = []
        for i in range(inputs):
            s = _GraphSync()
            if not _graph_desc_uses(ptr, i) or _graph_desc_sync(ptr, i, ctypes.byref(s)):
                out.append(None)
                continue
            out.append({"offset": s.offset, "drive_from": s.drive_from,
                        "drive_until": s.drive_until, "from": s.from_, "until": s.until,
                        "eof_action": ("repeat", "endall", "pass")[s.eof_action],
                        "wait_first": bool(s.wait_first)})
        return out
    finally:
        _graph_desc_destroy(ptr)


def _graph_inputs(desc: _GraphDesc, pictures: Tuple[np.ndarray, ...], order: str,
                  max_bytes: int = 0, device: str = "") -> Tuple[list, int]:
    """The pictures as RGBA arrays of one dtype (the graph's depth), and the
    first one's channel count (the output's)."""
    if len(pictures) != desc.inputs:
        raise ValueError("clvid: the graph reads %d input%s (%s), got %d picture%s"
                         % (desc.inputs, "" if desc.inputs == 1 else "s",
                            ", ".join("[%d]" % i for i in range(desc.inputs)), len(pictures),
                            "" if len(pictures) == 1 else "s"))
    arrays = [_to_rgba(p, order, max_bytes, device) for p in pictures]
    dtypes = {a.dtype for a, _ in arrays}
    if len(dtypes) > 1:
        raise ValueError("clvid: the graph's pictures must all be uint8 or all uint16, got %s"
                         % ", ".join(str(a.dtype) for a, _ in arrays))
    return [a for a, _ in arrays], arrays[0][1]


def reference_graph(text: str, *pictures: np.ndarray, frame_index: int = 0,
                    time: Optional[float] = None, output: Optional[str] = None,
                    order: str = "rgb", rate: float = 25.0) -> np.ndarray:
    """The graph by the C references (on the host): Graph(text)(*pictures)
    equals reference_graph(text, *pictures). time defaults to frame_index /
    rate (overlay's t, xfade's progress)."""
    _check_order(order)
    index = _frame_index(frame_index)
    rate = _real(rate, "rate")
    if not rate > 0:
        raise ValueError("clvid: rate must be positive, got %r" % (rate,))
    when = index / rate if time is None else _real(time, "time")
    desc = _GraphDesc(text, output)
    arrays, channels = _graph_inputs(desc, pictures, order)
    sizes = (_Size * len(arrays))(*[_Size(a.shape[1], a.shape[0], 0, 1) for a in arrays])
    size_out, msg = _Size(), _Msg()
    err = _graph_desc_output_size(desc.ptr, sizes, ctypes.byref(size_out), ctypes.byref(msg))
    if err:
        _raise(err, msg, usage=True)
    out = np.empty((size_out.height, size_out.width, 4), arrays[0].dtype)
    images = [_image(a) for a in arrays]
    ptrs = (ctypes.POINTER(_Image) * len(images))(*[ctypes.pointer(i) for i in images])
    ref = ctypes.c_void_p()
    if _ref_graph_create(desc.ptr, ctypes.byref(ref)):
        raise Error("clvid: cannot set up the reference graph")
    try:
        dst = _image(out)
        err = _ref_graph_run(ref, ptrs, ctypes.byref(dst), index, when)
        if err == _EDEPTH:
            raise ValueError("clvid: %s has a filter that runs at 8 bits only; uint16 pictures "
                             "need every filter at 16 bits" % text)
        if err:
            raise Error("clvid: the reference graph failed (%d)" % err, err)
    finally:
        _ref_graph_destroy(ref)
    return _from_rgba(out, channels, order)


class Graph(_Owner):
    """A graph of several inputs (ffmpeg's -filter_complex syntax: "[0][1]
    overlay=W-w-10:10", "[0][1]hstack", "[0][1]xfade=transition=wipeleft:
    duration=1:offset=2") built once on a device and run on arrays:
    graph(*pictures) takes one picture per input the graph reads ([0],
    [1], ...; their sizes may differ) and returns the output array, with the
    first picture's channels (alpha kept when it has 4). frame_index (one
    more each call) and time (default frame_index / rate) are the output
    frame's n and t. order="bgr" takes and gives OpenCV's channel order.
    output: the label of the graph's output when it has several ("out" for
    "-map '[out]'"). Frames between the filters stay on the device; the
    result equals reference_graph(text, *pictures) bit for bit."""

    _lock: Optional[threading.Lock] = None
    _graphs: Dict[int, Any] = {}

    def __init__(self, text: str, device: Optional[str] = None, order: str = "rgb",
                 output: Optional[str] = None, rate: float = 25.0):
        self._order = _check_order(order)
        self._rate = _real(rate, "rate")
        if not self._rate > 0:
            raise ValueError("clvid: rate must be positive, got %r" % (rate,))
        self._desc = _GraphDesc(text, output)
        keep: list = []
        opt = _engine_options(device, keep)
        self._keep = keep
        self._ctx = ctypes.c_void_p()
        self._graphs = {}  # depth -> clv_graph, made at the first picture of that depth
        self._frames: Dict[Any, _Frame] = {}
        self._frame_index = 0
        msg = _Msg()
        err = _context_create(ctypes.byref(opt), ctypes.byref(self._ctx), ctypes.byref(msg))
        if err:
            _raise(err, msg)
        info = _context_device(self._ctx).contents
        self._device = info.name.decode(errors="replace")
        self._max_alloc = info.max_alloc
        self._lock = threading.Lock()

    @contextlib.contextmanager
    def _open(self) -> Iterator[None]:
        if self._lock is None:
            raise ValueError("clvid: this Graph is closed")
        with self._lock:
            if not self._ctx:
                raise ValueError("clvid: this Graph is closed")
            yield

    @property
    def text(self) -> str:
        """The graph as text, every parameter written out."""
        with self._open():
            return self._desc.text()

    @property
    def inputs(self) -> int:
        """How many pictures a call takes."""
        with self._open():
            return self._desc.inputs

    @property
    def device(self) -> str:
        with self._open():
            return self._device

    def _frame(self, key: Any, w: int, h: int, depth: int) -> _Frame:
        """The device frame kept under key, made again when its size changes."""
        f = self._frames.get(key)
        if f is not None and (f.width, f.height, f.depth) == (w, h, depth):
            return f
        if f is not None:
            _frame_destroy(ctypes.byref(f))
        f, msg = _Frame(), _Msg()
        err = _frame_create(self._ctx, w, h, depth, ctypes.byref(f), ctypes.byref(msg))
        if err:
            self._frames.pop(key, None)
            _raise(err, msg)
        self._frames[key] = f
        return f

    def __call__(self, *pictures: np.ndarray, frame_index: Optional[int] = None,
                 time: Optional[float] = None) -> np.ndarray:
        with self._open():
            order = self._order
        arrays, channels = _graph_inputs(self._desc, pictures, order, self._max_alloc,
                                         self._device)
        depth = 8 * arrays[0].itemsize
        msg = _Msg()
        with self._open():
            if frame_index is not None:
                self._frame_index = _frame_index(frame_index)
            index = self._frame_index
            when = index / self._rate if time is None else _real(time, "time")
            graph = self._graphs.get(depth)
            if graph is None:
                graph = ctypes.c_void_p()
                err = _graph_create(self._ctx, self._desc.ptr, depth, ctypes.byref(graph),
                                    ctypes.byref(msg))
                if err:
                    _raise(err, msg)
                self._graphs[depth] = graph
            sizes = (_Size * len(arrays))(*[_Size(a.shape[1], a.shape[0], 0, 1)
                                            for a in arrays])
            size_out = _Size()
            err = _graph_output_size(graph, sizes, ctypes.byref(size_out), ctypes.byref(msg))
            if err:
                _raise(err, msg, usage=True)
            frames = []
            for i, a in enumerate(arrays):
                f = self._frame(i, a.shape[1], a.shape[0], depth)
                img = _image(a)
                err = _frame_upload(self._ctx, ctypes.byref(f), ctypes.byref(img))
                if err:
                    _raise(err, msg)
                frames.append(f)
            dst = self._frame("out", size_out.width, size_out.height, depth)
            out = np.empty((size_out.height, size_out.width, 4), arrays[0].dtype)
            ptrs = (ctypes.POINTER(_Frame) * len(frames))(*[ctypes.pointer(f) for f in frames])
            err = _graph_run(graph, ptrs, ctypes.byref(dst), index, when, None, None,
                             ctypes.byref(msg))
            if not err:
                dst_img = _image(out)
                err = _frame_download(self._ctx, ctypes.byref(dst), ctypes.byref(dst_img))
            if err:
                _raise(err, msg)
            self._frame_index = (index + 1) & _UINT64_MAX
        return _from_rgba(out, channels, order)

    def close(self) -> None:
        """Frees the device objects now (also done when collected)."""
        if self._lock is None:
            return
        with self._lock:
            for f in self._frames.values():
                _frame_destroy(ctypes.byref(f))
            self._frames = {}
            for g in self._graphs.values():
                _graph_destroy(g)
            self._graphs = {}
            if self._ctx:
                _context_destroy(self._ctx)
                self._ctx = ctypes.c_void_p()

    def __del__(self):
        self.close()

    def __enter__(self) -> "Graph":
        with self._open():
            pass
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        try:
            return "clvid.Graph(%r) on %s" % (self.text, self.device)
        except ValueError:
            return "<clvid.Graph (closed)>"

# ---- Files ---------------------------------------------------------------------

def _need_pipeline():
    if _pipeline is None:
        raise Error("clvid: libclvid-pipeline.so not found (clvid was built without FFmpeg)")


# Python keyword -> the command line's option name.
_OPTIONS = {
    "codec": "c:v", "vcodec": "c:v", "audio_codec": "c:a", "acodec": "c:a", "crf": "crf",
    "preset": "preset", "bitrate": "b:v", "pix_fmt": "pix_fmt", "aspect": "aspect",
    "r": "r", "frame_rate": "r",
    "ss": "ss", "start": "ss", "t": "t", "duration": "t", "frames": "frames",
    "device": "device", "overwrite": "y", "y": "y", "no_audio": "an", "an": "an",
    "no_subtitles": "sn", "sn": "sn", "live": "live", "no_autorotate": "no-autorotate",
    "input_format": "input_format", "output_format": "output_format", "format": "output_format",
    "quiet": "q", "first_frame_index": "frame-index", "frame_index": "frame-index",
    "ipc": "ipc", "filter_complex": "filter_complex", "lavfi": "filter_complex", "map": "map",
}


class _TranscodeInput(ctypes.Structure):
    """clv_transcode_input: an input after the first."""
    _fields_ = [("path", ctypes.c_char_p), ("format", ctypes.c_char_p),
                ("start_us", ctypes.c_int64), ("duration_us", ctypes.c_int64),
                ("offset_us", ctypes.c_int64)]


def _microseconds(value: Any, what: str, signed: bool = False) -> int:
    """Seconds (a number, or the command line's text) as microseconds."""
    if isinstance(value, (str, bytes)):
        text = value.decode() if isinstance(value, bytes) else value
        neg = signed and text.startswith("-")
        us = _parse_time(_text(text[1:] if neg else text, what))
        if us < 0:
            raise ValueError("clvid: %s %r: expected seconds or [hh:]mm:ss" % (what, value))
        return -us if neg else us
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        if value < 0 and not signed:
            raise ValueError("clvid: %s %r: expected seconds, 0 or more" % (what, value))
        return int(round(value * 1e6))
    raise TypeError("clvid: %s must be seconds (a number or a str), not %s"
                    % (what, type(value).__name__))


def _more_inputs(inputs: Any) -> Any:
    """The inputs after the first as a ctypes array of clv_transcode_input
    (and what it borrows): each a path, or a dict of path and the options
    given before its -i: ss, t, format, itsoffset."""
    if isinstance(inputs, (str, bytes, os.PathLike)):
        raise TypeError("clvid: inputs is a list of inputs after the first, not one path")
    items = list(inputs)
    array = (_TranscodeInput * max(1, len(items)))()
    keep = [array]
    for k, item in enumerate(items):
        spec = {"path": item} if not isinstance(item, dict) else dict(item)
        unknown = set(spec) - {"path", "ss", "t", "format", "itsoffset"}
        if unknown or "path" not in spec:
            raise TypeError("clvid: input %d: a path, or a dict of path, ss, t, format, "
                            "itsoffset (%s)" % (k + 1, ", ".join(sorted(unknown)) or "no path"))
        path = _path(spec["path"], "input %d" % (k + 1))
        keep.append(path)
        array[k].path = path
        if spec.get("format"):
            fmt = _text(spec["format"], "input %d's format" % (k + 1))
            keep.append(fmt)
            array[k].format = fmt
        if spec.get("ss") is not None:
            array[k].start_us = _microseconds(spec["ss"], "input %d's ss" % (k + 1))
        if spec.get("t") is not None:
            array[k].duration_us = _microseconds(spec["t"], "input %d's t" % (k + 1))
        if spec.get("itsoffset") is not None:
            array[k].offset_us = _microseconds(spec["itsoffset"], "input %d's itsoffset"
                                               % (k + 1), signed=True)
    return array, len(items), keep


class _TranscodeStatus(ctypes.Structure):
    _fields_ = [("event", ctypes.c_int), ("input", ctypes.c_char_p), ("output", ctypes.c_char_p),
                ("width", ctypes.c_int), ("height", ctypes.c_int), ("rotation", ctypes.c_int),
                ("input_pix_fmt", ctypes.c_char_p), ("matrix", ctypes.c_char_p),
                ("full_range", ctypes.c_int), ("chain", ctypes.c_char_p),
                ("device", ctypes.c_char_p), ("codec", ctypes.c_char_p),
                ("output_pix_fmt", ctypes.c_char_p), ("partial_path", ctypes.c_char_p),
                ("total_seconds", ctypes.c_double), ("frames", ctypes.c_int64),
                ("out_seconds", ctypes.c_double), ("elapsed", ctypes.c_double),
                ("stopped", ctypes.c_int), ("decode_s", ctypes.c_double),
                ("upload_s", ctypes.c_double), ("kernels_s", ctypes.c_double),
                ("download_s", ctypes.c_double), ("encode_s", ctypes.c_double),
                ("device_shares", ctypes.c_char_p), ("first_frame_s", ctypes.c_double),
                ("shared_staging", ctypes.c_int), ("corrupt_packets", ctypes.c_int64),
                ("corrupt_frames", ctypes.c_int64), ("latency_p50_ms", ctypes.c_double),
                ("latency_p99_ms", ctypes.c_double), ("latency_max_ms", ctypes.c_double),
                ("latency_mean_ms", ctypes.c_double), ("encoder_p50_ms", ctypes.c_double),
                ("encoder_p99_ms", ctypes.c_double), ("decode", ctypes.c_char_p),
                ("partial_paths", ctypes.POINTER(ctypes.c_char_p))]


_CALLBACK = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(_TranscodeStatus), ctypes.c_void_p)
_EVENTS = ("start", "progress", "end")

if _pipeline is not None:
    _opts_create = _declare(_pipeline, "clv_transcode_options_create", _P)
    _opts_destroy = _declare(_pipeline, "clv_transcode_options_destroy", None, _P)
    _opts_set = _declare(_pipeline, "clv_transcode_options_set", _I, _P, ctypes.c_char_p,
                         ctypes.c_char_p, _V)
    _opts_set_inputs = _declare(_pipeline, "clv_transcode_options_set_inputs", _I, _P,
                                ctypes.c_void_p, _I, _V)
    _parse_time = _declare(_pipeline, "clv_parse_time", ctypes.c_int64, ctypes.c_char_p)
    _transcode_run = _declare(_pipeline, "clv_transcode_run", _I, _P, _CALLBACK, _P, _P, _V)
    _reader_open = _declare(_pipeline, "clv_reader_open", _I, _P, ctypes.POINTER(_P), _V)
    _reader_size = _declare(_pipeline, "clv_reader_size", None, _P, ctypes.POINTER(_I),
                            ctypes.POINTER(_I))
    _reader_next = _declare(_pipeline, "clv_reader_next", _I, _P,
                            ctypes.POINTER(ctypes.POINTER(ctypes.c_uint8)),
                            ctypes.POINTER(ctypes.c_double), _V)
    _reader_close = _declare(_pipeline, "clv_reader_close", None, _P)
    _probe = _declare(_pipeline, "clv_probe", _I, ctypes.c_char_p, _P, _V)
    _join = _declare(_pipeline, "clv_join", _I, ctypes.POINTER(ctypes.c_char_p), _I,
                     ctypes.c_char_p, ctypes.c_char_p, _I, _V)
    _check_output = _declare(_pipeline, "clv_transcode_check_output", _I,
                             ctypes.POINTER(ctypes.c_char_p), _I, ctypes.c_char_p,
                             ctypes.c_char_p, _I, _V)


# The flags of clv_transcode_options_set, by every name it knows them by:
# they take no value (True sets one), the other options take one.
_FLAGS = {"y", "overwrite", "an", "no_audio", "sn", "no_subtitles", "live", "no-autorotate",
          "no_autorotate", "q", "quiet"}
# The options that name files, given as paths (str, bytes, os.PathLike).
_PATHS = {"i", "input", "o", "output", "ipc"}


def _option_pairs(pairs: Dict[str, Any],
                  device: Any) -> List[Tuple[str, bytes, Optional[bytes]]]:
    """Keyword options as (keyword, command-line name, value) for
    clv_transcode_options_set, checked here: a value is a str (or UTF-8
    bytes), a number, a path for the file options, or True/False for a
    flag; None (and False) leave an option unset."""
    if device is None and os.environ.get("CLVID_DEVICE"):
        device = os.environ["CLVID_DEVICE"]
    if device is not None:
        pairs = dict(pairs, device=device)
    out = []
    for key, value in pairs.items():
        name = _OPTIONS.get(key, key)
        bare = name.lstrip("-")
        if value is None:
            continue
        if isinstance(value, bool):
            if bare not in _FLAGS:
                raise TypeError("clvid: option %r takes a value, not %r" % (key, value))
            if value:
                out.append((key, _text(name, "option name"), None))
            continue
        if bare in _PATHS:
            text = _path(value, key)
        elif bare == "device":
            text = _device_text(value)
        elif isinstance(value, (str, bytes, bytearray)):
            text = _text(value, "option %s" % key)
        elif isinstance(value, numbers.Real):
            text = str(value).encode()
        else:
            raise TypeError("clvid: option %r must be a str or a number, not %s"
                            % (key, type(value).__name__))
        out.append((key, _text(name, "option name"), text))
    return out


class _Options(_Owner):
    """clv_transcode_options on the heap, set by name; the strings are kept
    alive as long as this object. `ptr` raises ValueError once closed, so a
    closed one never reaches the library."""

    _ptr = None

    def __init__(self, pairs: Dict[str, Any], device: Optional[str], inputs: Any = None):
        more = _more_inputs(inputs) if inputs else None
        checked = _option_pairs(pairs, device)  # before anything is allocated
        self.keep: list = []
        self._ptr = _opts_create()
        if not self._ptr:
            raise MemoryError("clvid: transcode options")
        if more is not None:
            self.keep.append(more[2])
            msg = _Msg()
            err = _opts_set_inputs(self._ptr, more[0], more[1], ctypes.byref(msg))
            if err:
                self.close()
                _raise(err, msg, usage=True)
        for key, name, text in checked:
            self.keep.append(text)
            msg = _Msg()
            err = _opts_set(self._ptr, name, text, ctypes.byref(msg))
            if err:
                self.close()
                if "unknown transcode option" in str(msg):
                    raise TypeError("clvid: unknown option %r (known: %s)"
                                    % (key, ", ".join(sorted(_OPTIONS))))
                _raise(err, msg, usage=True)

    @property
    def ptr(self) -> int:
        if not self._ptr:
            raise ValueError("clvid: these transcode options are closed")
        return self._ptr

    def close(self):
        if self._ptr:
            _opts_destroy(self._ptr)
            self._ptr = None


def transcode(input: str, output: str, vf: Optional[str] = None,
              progress: Optional[Callable[[Dict[str, Any]], Any]] = None,
              device: Optional[str] = None, inputs: Any = None,
              **options: Any) -> Dict[str, Any]:
    """Runs `clvid transcode -i input -vf vf -o output` in this process.
    Several inputs: inputs=[path, {"path": p, "ss": 5, "t": 2, "itsoffset":
    -0.1, "format": "lavfi"}, ...] (inputs 1 .., each with what its -i
    takes before it) and filter_complex=GRAPH (map="[out]" for a labelled
    output), as `clvid transcode -i input -i ... -filter_complex`.
    options are the command line's: codec, crf, preset, bitrate, pix_fmt,
    audio_codec, aspect, r (frame_rate: the output's, as -r), ss, t, frames, overwrite, no_audio, no_subtitles,
    no_autorotate, output_format, ipc (a control socket's path: clvid.Control
    drives the run from another thread), hwaccel ("auto", "cuda", "vaapi",
    "none": hardware decoding; the status's "decode" says which was used),
    hwaccel_device, ... (values: str, numbers; True
    for the flags; None leaves one unset). progress(status) is called with a dict
    (event start|progress|end, frames, out_seconds, total_seconds, elapsed,
    ...); returning True stops the run. Ctrl-C stops it cleanly (the output
    is finished up to there) and then raises KeyboardInterrupt. Returns the
    last status."""
    _need_pipeline()
    if progress is not None and not callable(progress):
        raise TypeError("clvid: progress must be callable, not %s" % type(progress).__name__)
    pairs = dict(options, input=_path(input, "input"), output=_path(output, "output"), chain=vf)
    if isinstance(pairs.get("map"), str):  # '[out]': the label, without its brackets
        pairs["map"] = pairs["map"].strip("[]")
    opts = _Options(pairs, device, inputs)
    state: Dict[str, Any] = {"status": {}, "raised": None}

    def relay(status_ptr, user):
        try:
            s = status_ptr.contents
            d = {name: getattr(s, name) for name, _ in _TranscodeStatus._fields_}
            for k, v in list(d.items()):
                if isinstance(v, bytes):
                    d[k] = v.decode(errors="replace")
            # A NULL-terminated array of the temporary files, valid during
            # the call only: copied out as a list of str.
            paths, n = [], 0
            while s.partial_paths and s.partial_paths[n] is not None:
                paths.append(s.partial_paths[n].decode(errors="replace"))
                n += 1
            d["partial_paths"] = paths
            d["event"] = _EVENTS[s.event]
            state["status"] = d
            if progress is not None and progress(d):
                return 1
            return 0
        except BaseException as e:  # KeyboardInterrupt, or the callback's own error
            state["raised"] = e
            return 1

    callback = _CALLBACK(relay)
    msg = _Msg()
    # Ctrl-C: Python runs its handler when the callback next runs; this one
    # only sets the run's cancel flag, so the output is finished cleanly,
    # and KeyboardInterrupt comes after.
    cancel = ctypes.c_int(0)
    interrupted = []

    def on_sigint(signum, frame):
        cancel.value = 1
        interrupted.append(signum)

    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGINT, on_sigint)
    try:
        err = _transcode_run(opts.ptr, callback, None, ctypes.byref(cancel), ctypes.byref(msg))
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
        opts.close()
    if state["raised"] is not None:
        raise state["raised"]
    if err and not interrupted:
        _raise(err, msg)
    if interrupted:
        raise KeyboardInterrupt("clvid transcode stopped%s" % (
            "; %s" % msg if err else ": '%s' holds the frames before the stop" % output))
    return state["status"]


class _MediaInfo(ctypes.Structure):
    _fields_ = [("width", ctypes.c_int), ("height", ctypes.c_int), ("rate_num", ctypes.c_int),
                ("rate_den", ctypes.c_int), ("duration", ctypes.c_double),
                ("frames", ctypes.c_int64), ("audio_streams", ctypes.c_int)]


def probe(path: str) -> Dict[str, Any]:
    """What a file holds, as its container says: width, height, rate (frames
    per second, 0 unknown), duration (s), frames (0 unknown), audio_streams."""
    _need_pipeline()
    info, msg = _MediaInfo(), _Msg()
    err = _probe(_path(path, "path"), ctypes.byref(info), ctypes.byref(msg))
    if err:
        _raise(err, msg)
    rate = info.rate_num / info.rate_den if info.rate_den else 0.0
    return {"width": info.width, "height": info.height, "rate": rate,
            "duration": info.duration, "frames": info.frames,
            "audio_streams": info.audio_streams}


def join(segments: List[str], output: str, streams_from: Optional[str] = None,
         overwrite: bool = False) -> None:
    """Joins segments (transcodes of consecutive parts of one input, same
    encoder settings) into output without re-encoding, with the sound and
    subtitles of streams_from copied beside them."""
    _need_pipeline()
    # One path is a sequence too (of characters): refused, not joined.
    if isinstance(segments, (str, bytes, bytearray, os.PathLike)):
        raise TypeError("clvid: segments must be a list of paths, not one %s"
                        % type(segments).__name__)
    names = [_path(s, "segment") for s in segments]
    paths = (ctypes.c_char_p * len(names))(*names)
    side = _path(streams_from, "streams_from") if streams_from else None
    msg = _Msg()
    err = _join(paths, len(names), side, _path(output, "output"), 1 if overwrite else 0,
                ctypes.byref(msg))
    if err:
        _raise(err, msg)


def check_output(inputs: List[str], output: str, overwrite: bool = False,
                 format: Optional[str] = None) -> None:
    """The checks clvid transcode makes before it writes anything: ValueError
    when output (any file of an output sequence, "out_%04d.png") is one of
    the inputs' files (by inode) or a folder, with or without overwrite;
    Error (code -12) when it exists and overwrite is False. format is -f."""
    _need_pipeline()
    if isinstance(inputs, (str, bytes, bytearray, os.PathLike)):
        inputs = [inputs]
    elif not isinstance(inputs, collections.abc.Iterable):
        raise TypeError("clvid: check_output's inputs must be a path or a list of paths, not %s"
                        % type(inputs).__name__)
    names = [_path(p, "input") for p in inputs]
    paths = (ctypes.c_char_p * max(1, len(names)))(*names)
    msg = _Msg()
    err = _check_output(paths, len(names), _path(output, "output"),
                        _text(format, "format") if format else None, 1 if overwrite else 0,
                        ctypes.byref(msg))
    if err:
        _raise(err, msg)


def reference_stream(text: Optional[str], pictures: Iterable[np.ndarray], frame_index: int = 0,
                     order: str = "rgb") -> List[np.ndarray]:
    """The C references over a sequence, as Chain(text).stream(pictures)
    runs the chain (a deinterlacer's lag, its fields and its end, and a
    new sequence at each change of size, channels or dtype)."""
    _check_order(order)
    index = _frame_index(frame_index)
    desc = _parse(text)
    delay, rate, msg = _I(), _I(), _Msg()
    err = _desc_cadence(desc.ptr, ctypes.byref(delay), ctypes.byref(rate), ctypes.byref(msg))
    if err:
        _raise(err, msg)
    ref = _reference_chain(desc, text)
    outs: List[np.ndarray] = []

    def run(rgba, channels):
        nonlocal index
        size_in, size_out = _Size(rgba.shape[1], rgba.shape[0], 0, 1), _Size()
        e = _desc_output_size(desc.ptr, ctypes.byref(size_in), ctypes.byref(size_out),
                              ctypes.byref(msg))
        if e:
            _raise(e, msg)
        out = np.empty((size_out.height, size_out.width, 4), rgba.dtype)
        a, b = _image(rgba), _image(out)
        if _ref_run(ref, ctypes.byref(a), ctypes.byref(b), index):
            raise Error("clvid: the reference chain failed on a %dx%d picture"
                        % (rgba.shape[1], rgba.shape[0]))
        index = (index + 1) & _UINT64_MAX
        return _from_rgba(out, channels, order)
    def drain(last, again):
        """The frames the sequence still holds; again: a fresh chain for
        the next sequence."""
        nonlocal ref
        _ref_end(ref)
        for _ in range(delay.value * rate.value):
            outs.append(run(*last))
        _ref_destroy(ref)
        ref = None
        if again:
            ref = _reference_chain(desc, text)
    try:
        runs, last, shape = 0, None, None
        for img in pictures:
            rgba = _to_rgba(img, order)
            if delay.value and last is not None and _shape(img) != shape:
                drain(last, True)  # as Chain.stream: the held frame at its own shape
                runs = 0
            last, shape = rgba, _shape(img)
            for _ in range(rate.value):
                out = run(*last)
                if runs >= delay.value * rate.value:
                    outs.append(out)
                runs += 1
        if delay.value and last is not None:
            drain(last, False)
        return outs
    finally:
        if ref is not None:
            _ref_destroy(ref)


def frames(path: Any, vf: Optional[str] = None, device: Optional[str] = None,
           order: str = "rgb", alpha: bool = False, filter_complex: Optional[str] = None,
           map: Optional[str] = None, inputs: Any = None,
           **options: Any) -> Iterator[Tuple[np.ndarray, float]]:
    """The filtered frames of a video (or picture, or image sequence), decoded
    by clvid's own pipeline: yields (H x W x 3 array, or x 4 with alpha=True,
    pts in seconds). options: ss, t, frames, input_format, no_autorotate,
    hwaccel ("auto", "cuda", "vaapi", "none"), hwaccel_device.
    Several inputs: path is a list, [input0, input1, ...], the inputs after
    the first each a path or a dict of path, ss, t, format, itsoffset (as
    transcode's inputs=; input 0 may be such a dict too, without itsoffset),
    and filter_complex=GRAPH (map="[out]" for a labelled output) joins them,
    as `clvid transcode -i A -i B -filter_complex GRAPH`: the frames are the
    graph's output at input 0's times, then vf (the chain after the graph).
    A graph over one path is fine; several paths without one is a ValueError.
    The arguments are checked at the call; the files are opened at the first
    frame."""
    _need_pipeline()
    _check_order(order)
    more = inputs
    if isinstance(path, (list, tuple)):
        if not path:
            raise ValueError("clvid: frames([]): no input given")
        if inputs is not None:
            raise TypeError("clvid: frames: a list of paths or inputs=, not both")
        path, more = path[0], list(path[1:])
        if isinstance(path, dict):
            first = dict(path)
            unknown = set(first) - {"path", "ss", "t", "format"}
            if unknown or "path" not in first:
                raise TypeError("clvid: input 0: a path, or a dict of path, ss, t, format (%s)"
                                % (", ".join(sorted(unknown)) or "no path"))
            path = first.pop("path")
            for key, name in (("ss", "ss"), ("t", "t"), ("format", "input_format")):
                if first.get(key) is not None:
                    if options.get(name) is not None:
                        raise TypeError("clvid: input 0's %s given twice" % key)
                    options[name] = first[key]
    if more is not None:
        _more_inputs(more)  # checked at the call
        more = list(more) or None
    if more and not filter_complex:
        raise ValueError("clvid: %d inputs and no filter_complex: a graph says how they join "
                         "(filter_complex='[0][1]overlay', ...)" % (1 + len(more)))
    if isinstance(map, str):  # '[out]': the label, without its brackets
        map = map.strip("[]")
    for name in ("r", "frame_rate"):  # the encoder's (transcode); frames come as they are
        if options.get(name) is not None:
            raise ValueError("clvid: frames(%s=...): the output's frame rate is "
                             "clvid.transcode's; frames() gives every frame at its time" % name)
    pairs = dict(options, input=_path(path, "path"), chain=vf, filter_complex=filter_complex,
                 map=map)
    _option_pairs(pairs, device)
    return _frames(pairs, device, order, alpha, more)


def _frames(pairs: Dict[str, Any], device: Optional[str], order: str, alpha: bool,
            inputs: Any = None) -> Iterator[Tuple[np.ndarray, float]]:
    """frames() after its checks: a generator, so the reader opens at the
    first frame and closes when the generator ends or is collected."""
    opts = _Options(pairs, device, inputs)
    reader = ctypes.c_void_p()
    msg = _Msg()
    err = _reader_open(opts.ptr, ctypes.byref(reader), ctypes.byref(msg))
    if err:
        opts.close()
        _raise(err, msg)
    try:
        w, h = _I(), _I()
        _reader_size(reader, ctypes.byref(w), ctypes.byref(h))
        pixels = ctypes.POINTER(ctypes.c_uint8)()
        seconds = ctypes.c_double()
        while True:
            r = _reader_next(reader, ctypes.byref(pixels), ctypes.byref(seconds),
                             ctypes.byref(msg))
            if r < 0:
                _raise(r, msg)
            if r == 0:
                return
            rgba = np.ctypeslib.as_array(pixels, shape=(h.value, w.value, 4)).copy()
            yield _from_rgba(rgba, 4 if alpha else 3, order), seconds.value
    finally:
        _reader_close(reader)
        opts.close()
