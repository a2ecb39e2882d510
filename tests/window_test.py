#!/usr/bin/env python3
"""window_test.py - clvid play under Xvfb (started here, on a display of its
own): the picture equals the transcode path's frame, the HUD is drawn, the
split view shows the original on the left, replayed keys change chains and
parameters, and pause/step/seek land on the expected frames. One test per
run, by name (--list names them), as ctest runs them. Skips (77) without Xvfb."""
import contextlib
import json
import os
import signal
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Failure, check, test  # noqa: E402
import harness  # noqa: E402

ARGS = None
ENV = None


def forget_stats(cmd, cwd=None):
    """The tests write their stats file (stats*.txt) at one path run after
    run: the one before goes first, as without -y play and webcam refuse a
    file that is there."""
    if "--stats" in cmd[:-1]:
        path = os.path.join(cwd or "", cmd[cmd.index("--stats") + 1])
        if os.path.basename(path).startswith("stats") and os.path.isfile(path):
            os.remove(path)
    return cmd


def run(cmd, expect=0, env=None, cwd=None):
    return harness.run(forget_stats(cmd, cwd), expect, env=env or ENV, cwd=cwd, timeout=300)


def play(*args, expect=0, cwd=None):
    # The screenshot too, written at one path run after run.
    if "--screenshot" in args:
        path = os.path.join(cwd or "", args[args.index("--screenshot") + 1])
        if os.path.isfile(path):
            os.remove(path)
    return run([ARGS.clvid, "play", *args], expect=expect, cwd=cwd)


def stats(path):
    out = {}
    with open(path) as f:
        for line in f:
            k, _, v = line.rstrip("\n").partition("=")
            out[k] = v
    return out


def rgba(path):
    p = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "rgba",
                        "-"], capture_output=True)
    check(p.returncode == 0, "cannot decode %s: %s" % (path, p.stderr.decode()))
    return p.stdout


def size(path):
    p = run(["ffprobe", "-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0",
             path])
    w, h = p.stdout.strip().split(",")
    return int(w), int(h)


def max_diff(a, b, w, x0, x1, y0, y1):
    """Largest R, G or B difference over columns x0..x1-1 and rows y0..y1-1."""
    worst = 0
    for y in range(y0, y1):
        ra = a[(y * w + x0) * 4:(y * w + x1) * 4]
        rb = b[(y * w + x0) * 4:(y * w + x1) * 4]
        if ra == rb:
            continue
        for i in range(0, len(ra), 4):
            for c in range(3):
                d = abs(ra[i + c] - rb[i + c])
                if d > worst:
                    worst = d
    return worst


def sample():
    return os.path.join(ARGS.media, "sample.mp4")


def frame_png(tmp, chain, index, name):
    """Frame `index` (from 0) of the sample through `chain`, as the transcode
    path computes it, as a PNG."""
    pattern = os.path.join(tmp, name + "_%03d.png")
    run([ARGS.clvid, "transcode", "-q", "-i", sample(), "-vf", chain, "--frames", str(index + 1),
         "-o", pattern, "-y"])
    return pattern % (index + 1)


def counting_clip(tmp, seconds=20, rate=25):
    """A clip whose frame n is shown at n / rate seconds, keyframe every 2 s."""
    path = os.path.join(tmp, "count.mp4")
    run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i",
         "testsrc=size=160x120:rate=%d:duration=%d" % (rate, seconds), "-c:v", "libx264",
         "-preset", "ultrafast", "-g", str(2 * rate), "-pix_fmt", "yuv420p", path])
    return path


# The tolerance of the presenter: a 1:1 picture is sampled texel for texel,
# so it is exact; allow one level for drivers that dither.
TOLERANCE = 1


@test
def picture_matches_transcode(tmp):
    shot, st = os.path.join(tmp, "shot.png"), os.path.join(tmp, "stats.txt")
    play(sample(), "-vf", "median", "--untimed", "--no-hud", "--size", "1280x720",
         "--exit-after-frames", "10", "--screenshot", shot, "--stats", st)
    s = stats(st)
    check(s["frames_shown"] == "10" and s["last_frame"] == "9" and s["frames_dropped"] == "0",
          "shown/last/dropped: %s" % s)
    check(size(shot) == (1280, 720), "screenshot is %s" % (size(shot),))
    want = rgba(frame_png(tmp, "median", 9, "ref"))
    got = rgba(shot)
    d = max_diff(got, want, 1280, 0, 1280, 0, 720)
    print("  largest difference from the transcode path's frame 9: %d" % d)
    check(d <= TOLERANCE, "the window differs from the transcoded frame by %d levels" % d)


@test
def rotated_upright(tmp):
    """A phone video (display matrix, 90 degrees) is shown upright: the
    window's picture is the transcode path's upright frame; with
    --no-autorotate it is the stored frame."""
    rot = os.path.join(tmp, "rot.mp4")
    run(["ffmpeg", "-v", "error", "-y", "-i", sample(), "-t", "1", "-an", "-c", "copy",
         "-metadata:s:v:0", "rotate=90", rot])
    shot, st = os.path.join(tmp, "shot.png"), os.path.join(tmp, "stats.txt")
    play(rot, "-vf", "emboss", "--untimed", "--no-hud", "--size", "720x1280",
         "--exit-after-frames", "3", "--screenshot", shot, "--stats", st)
    s = stats(st)
    check((s["width"], s["height"]) == ("720", "1280"), "shown as %sx%s" % (s["width"], s["height"]))
    check(size(shot) == (720, 1280), "screenshot is %s" % (size(shot),))
    pattern = os.path.join(tmp, "ref_%03d.png")
    run([ARGS.clvid, "transcode", "-q", "-i", rot, "-vf", "emboss", "--frames", "3", "-o",
         pattern, "-y"])
    d = max_diff(rgba(shot), rgba(pattern % 3), 720, 0, 720, 0, 1280)
    print("  upright 720x1280; largest difference from the transcode path's frame: %d" % d)
    check(d <= TOLERANCE, "the window differs from the upright transcoded frame by %d levels" % d)
    play(rot, "--untimed", "--no-hud", "--no-autorotate", "--size", "640x360",
         "--exit-after-frames", "2", "--stats", st)
    s = stats(st)
    check((s["width"], s["height"]) == ("1280", "720"), "--no-autorotate: %sx%s"
          % (s["width"], s["height"]))


@test
def hdr_tonemapped(tmp):
    """A 10-bit PQ source is filtered at 16 bits and shown tone-mapped for
    the SDR display (the chain shown ends with tonemap, the HUD says so); t
    shows it as it is (the washed-out PQ signal: brighter darks, duller
    colours); an SDR source has nothing to tone-map."""
    pq = os.path.join(tmp, "pq.mkv")
    run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=320x180:d=1",
         "-vf", "format=gbrpf32le,zscale=t=smpte2084:p=bt2020:m=bt2020nc:npl=100:tin=bt709:"
         "pin=bt709:min=bt709:r=tv,format=yuv420p10le", "-color_trc", "smpte2084",
         "-color_primaries", "bt2020", "-colorspace", "bt2020nc", "-c:v", "ffv1", pq])
    shots = {}
    for keys in ("", "t"):
        shot, st = os.path.join(tmp, "hdr%s.png" % keys), os.path.join(tmp, "st%s.txt" % keys)
        extra = ["--keys", keys] if keys else []
        play(pq, "-vf", "hflip", "--untimed", "--size", "320x180", "--exit-after-frames", "6",
             *extra, "--screenshot", shot, "--stats", st)
        s = stats(st)
        on = not keys
        check(s["hdr"] == "1" and s["depth"] == "16" and s["tonemap"] == ("1" if on else "0"),
              "hdr/depth/tonemap: %s" % s)
        check(s["chain"].endswith("tonemap=tonemap=bt2390:param=0:desat=2:peak=0:"
                                  "transferin=auto:primariesin=auto") == on,
              "the chain shown: %s" % s["chain"])
        shots[keys] = rgba(shot)
    # The bottom half, below the HUD: PQ shown as it is lifts the darks and
    # flattens the colours; tone-mapped it spreads them.
    def spread(px):
        half = px[len(px) // 2:]
        sat = [max(half[i:i + 3]) - min(half[i:i + 3]) for i in range(0, len(half), 4 * 7)]
        return sum(sat) / len(sat)
    a, b = spread(shots[""]), spread(shots["t"])
    print("  mean saturation tone-mapped %.1f, as it is %.1f" % (a, b))
    check(a > b + 20, "tone-mapped %.1f is not more colourful than PQ as it is %.1f" % (a, b))
    st = os.path.join(tmp, "sdr.txt")
    play(sample(), "--untimed", "--no-hud", "--size", "320x180", "--exit-after-frames", "3",
         "--keys", "t", "--stats", st)
    s = stats(st)
    check(s["hdr"] == "0" and s["tonemap"] == "0" and s["depth"] == "8", "SDR: %s" % s)


@test
def hud_drawn(tmp):
    a, b = os.path.join(tmp, "plain.png"), os.path.join(tmp, "hud.png")
    common = [sample(), "-vf", "sharpen", "--untimed", "--size", "1280x720",
              "--exit-after-frames", "5"]
    play(*common, "--no-hud", "--screenshot", a)
    play(*common, "--screenshot", b)
    pa, pb = rgba(a), rgba(b)
    # The HUD is a dark panel with light text in the top left corner only.
    check(max_diff(pa, pb, 1280, 0, 1280, 300, 720) == 0, "the HUD drew outside its corner")
    darker = lighter = 0
    for y in range(10, 120):
        for x in range(10, 500):
            i = (y * 1280 + x) * 4
            la, lb = sum(pa[i:i + 3]), sum(pb[i:i + 3])
            darker += lb < la - 30
            lighter += lb > 600 and lb > la + 30
    print("  HUD corner: %d pixels darkened (panel), %d lit (text)" % (darker, lighter))
    check(darker > 5000 and lighter > 500, "no HUD panel with text in the corner")


@test
def split_view(tmp):
    shot, st = os.path.join(tmp, "shot.png"), os.path.join(tmp, "stats.txt")
    play(sample(), "-vf", "prewitt", "--untimed", "--no-hud", "--size", "1280x720",
         "--keys", "c", "--exit-after-frames", "8", "--screenshot", shot, "--stats", st)
    s = stats(st)
    check(s["compare"] == "1", "compare view is off: %s" % s)
    n = int(s["last_frame"])
    got = rgba(shot)
    filtered = rgba(frame_png(tmp, "prewitt", n, "filtered"))
    # The identity convolution runs the same conversions without changing a pixel.
    original = rgba(frame_png(tmp, "convolution", n, "original"))
    left = max_diff(got, original, 1280, 0, 638, 0, 720)
    right = max_diff(got, filtered, 1280, 642, 1280, 0, 720)
    print("  frame %d: left vs original %d, right vs filtered %d" % (n, left, right))
    check(left <= TOLERANCE, "left half is not the original (differs by %d)" % left)
    check(right <= TOLERANCE, "right half is not the filtered frame (differs by %d)" % right)
    divider = got[(360 * 1280 + 640) * 4:(360 * 1280 + 640) * 4 + 3]
    check(min(divider) >= 250 or min(got[(360 * 1280 + 639) * 4:(360 * 1280 + 639) * 4 + 3]) >= 250,
          "no divider line at the middle")


@test
def keys_change_chain(tmp):
    st = os.path.join(tmp, "stats.txt")
    cases = [
        ("5 up up", "median=radius=3", "5"),
        ("6 down", "threshold=t=120,erode=radius=1:iterations=1", "6"),
        ("5 up 1 5", "median=radius=2", "5"),  # parameters stay with their preset
        ("7 up", "equalize=mode=gray", "7"),
        ("9 down down", "quantize=colors=6:iterations=10", "9"),
        ("w", "prewitt=scale=1:delta=0", "0"),  # -vf chains in turn, from the first
        ("w w", "sharpen", "0"),
        ("2 w", "sharpen", "0"),  # from a preset, back to the first -vf chain
        # One step of the parameter's descriptor (prewitt scale: 0.25), the
        # same in a -vf chain as in the preset.
        ("w up", "prewitt=scale=1.25:delta=0", "0"),
        ("4 up up", "prewitt=scale=1.5:delta=0", "4"),
        ("w w up", "sharpen", "0"),  # no parameter: nothing changes
    ]
    for keys, chain, preset in cases:
        play(sample(), "-vf", "sharpen", "-vf", "prewitt", "--untimed", "--size", "320x180",
             "--keys", keys, "--exit-after-frames", "8", "--stats", st)
        s = stats(st)
        check(s["chain"] == chain and s["preset"] == preset,
              "keys '%s': chain '%s' preset %s, expected '%s' preset %s"
              % (keys, s["chain"], s["preset"], chain, preset))
    play(sample(), "--untimed", "--size", "320x180", "--keys", "i h m - - c", "--exit-after-frames",
         "10", "--stats", st)
    s = stats(st)
    check(s["hud"] == "0" and s["help"] == "1" and s["muted"] == "1" and s["volume"] == "0.80"
          and s["compare"] == "1", "toggles: %s" % s)


@test
def keys_second_bank(tmp):
    """shift+1..9 pick the second bank of presets (blur, denoise, colour),
    1..9 stay the first: the chain shown, the preset's number and key, its
    parameter stepped, and the picture is the transcode path's frame through
    the bank's chain."""
    st = os.path.join(tmp, "stats.txt")
    cases = [
        ("shift+1", "gblur=sigma=2:steps=1:planes=15:sigmaV=-1", "10", "shift+1"),
        ("shift+1 up", "gblur=sigma=2.5:steps=1:planes=15:sigmaV=-1", "10", "shift+1"),
        ("shift+5 down", "nlmeans=s=2.5:p=3:pc=0:r=7:rc=0", "14", "shift+5"),
        ("shift+8 up", "curves=preset=lighter:", "17", "shift+8"),  # ffmpeg's next curve
        ("shift+9", "bwdif=mode=send_field:parity=auto:deint=all", "18", "shift+9"),
        ("shift+9 up", "bwdif=mode=send_field:parity=tff:deint=all", "18", "shift+9"),
        ("shift+9 5", "median=radius=1", "5", "5"),  # back to the first bank
        ("shift+2 w", "sharpen", "0", ""),  # and to the -vf chain
    ]
    for keys, chain, preset, key in cases:
        play(sample(), "-vf", "sharpen", "--untimed", "--size", "320x180", "--keys", keys,
             "--exit-after-frames", "8", "--stats", st)
        s = stats(st)
        same = s["chain"] == chain or chain.endswith(":") and s["chain"].startswith(chain)
        check(same and (s["preset"], s["preset_key"]) == (preset, key),
              "keys '%s': chain '%s' preset %s (%s), expected '%s' preset %s (%s)"
              % (keys, s["chain"], s["preset"], s["preset_key"], chain, preset, key))
    # Every preset of the bank builds and runs (a typo in the table would
    # fail here, not in a user's window).
    play(sample(), "--untimed", "--size", "320x180", "--keys",
         " ".join("shift+%d" % n for n in range(1, 10)), "--exit-after-frames", "12", "--stats",
         st)
    check(stats(st)["preset_key"] == "shift+9", "the bank's last preset: %s" % stats(st))
    shot = os.path.join(tmp, "shot.png")
    play(sample(), "--untimed", "--no-hud", "--size", "1280x720", "--keys", "shift+1",
         "--exit-after-frames", "8", "--screenshot", shot, "--stats", st)
    want = rgba(frame_png(tmp, "gblur=sigma=2", int(stats(st)["last_frame"]), "ref"))
    d = max_diff(rgba(shot), want, 1280, 0, 1280, 0, 720)
    print("  shift+1: the window differs from the transcoded gblur=sigma=2 frame by %d" % d)
    check(d <= TOLERANCE, "shift+1's picture differs from gblur=sigma=2 by %d levels" % d)


def x_keyboard():
    """Xlib and XTest through ctypes, to press keys in the window as a user
    does (SDL_KEYDOWN with its keycode and modifiers), or None without
    libXtst."""
    import ctypes
    import ctypes.util
    try:
        x11 = ctypes.CDLL(ctypes.util.find_library("X11") or "libX11.so.6")
        xtst = ctypes.CDLL(ctypes.util.find_library("Xtst") or "libXtst.so.6")
    except OSError:
        return None
    x11.XOpenDisplay.restype = ctypes.c_void_p
    x11.XOpenDisplay.argtypes = [ctypes.c_char_p]
    x11.XDefaultRootWindow.restype = ctypes.c_ulong
    x11.XDefaultRootWindow.argtypes = [ctypes.c_void_p]
    x11.XQueryTree.argtypes = [ctypes.c_void_p, ctypes.c_ulong] + [ctypes.c_void_p] * 4
    x11.XFetchName.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_void_p]
    x11.XFree.argtypes = [ctypes.c_void_p]
    x11.XKeysymToKeycode.restype = ctypes.c_ubyte
    x11.XKeysymToKeycode.argtypes = [ctypes.c_void_p, ctypes.c_ulong]
    x11.XStringToKeysym.restype = ctypes.c_ulong
    x11.XStringToKeysym.argtypes = [ctypes.c_char_p]
    x11.XSetInputFocus.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int, ctypes.c_ulong]
    # Xlib's own error handler exits the process: a window that closes
    # between XQueryTree and XFetchName (another test's, going away) gave
    # BadWindow and ended this script while the player it had started
    # looped on, holding ctest until its timeout. Errors are ignored: the
    # search goes on, and the player is always ended below.
    handler = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)
    x_keyboard.ignore = handler(lambda display, event: 0)  # kept alive with the function
    x11.XSetErrorHandler.argtypes = [handler]
    x11.XSetErrorHandler(x_keyboard.ignore)
    x11.XSync.argtypes = [ctypes.c_void_p, ctypes.c_int]
    xtst.XTestFakeKeyEvent.argtypes = [ctypes.c_void_p, ctypes.c_uint, ctypes.c_int,
                                       ctypes.c_ulong]
    return ctypes, x11, xtst


def press_keys(tmp, keys, remap=None):
    """Plays the sample in a window, presses keys in it through XTest (each
    a list of X key names held together, the last pressed first released),
    then q; returns the stats file's values. remap: {key: (unshifted,
    shifted)} gives the key that types `key` those two keysyms meanwhile, as
    another layout does (Xvfb takes no setxkbmap)."""
    xk = x_keyboard()
    if not xk:
        raise harness.Skip("no libXtst to press keys with")
    ctypes, x11, xtst = xk
    dpy = x11.XOpenDisplay(ENV["DISPLAY"].encode())
    check(dpy, "cannot open the display %s" % ENV["DISPLAY"])
    st = os.path.join(tmp, "stats.txt")

    def keysyms(code, names):
        syms = (ctypes.c_ulong * 2)(*[x11.XStringToKeysym(n.encode()) for n in names])
        x11.XChangeKeyboardMapping(dpy, code, 2, syms, 1)
        x11.XSync(dpy, 0)
    x11.XKeycodeToKeysym.restype = ctypes.c_ulong
    x11.XKeycodeToKeysym.argtypes = [ctypes.c_void_p, ctypes.c_ubyte, ctypes.c_int]
    x11.XKeysymToString.restype = ctypes.c_char_p
    x11.XChangeKeyboardMapping.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int,
                                           ctypes.POINTER(ctypes.c_ulong), ctypes.c_int]
    restore = []
    for name, pair in (remap or {}).items():
        code = x11.XKeysymToKeycode(dpy, x11.XStringToKeysym(name.encode()))
        restore.append((code, [x11.XKeysymToString(x11.XKeycodeToKeysym(dpy, code, i)).decode()
                               for i in (0, 1)]))
        keysyms(code, pair)
    p = subprocess.Popen(forget_stats([ARGS.clvid, "play", sample(), "--loop", "--size",
                                       "320x180", "--stats", st]), env=ENV, stderr=subprocess.PIPE, text=True)
    try:
        # The window, found by its title once it is mapped (SDL names it).
        window, deadline = 0, time.time() + 120
        while not window and time.time() < deadline and p.poll() is None:
            root, parent = ctypes.c_ulong(), ctypes.c_ulong()
            children, count = ctypes.POINTER(ctypes.c_ulong)(), ctypes.c_uint()
            x11.XQueryTree(dpy, x11.XDefaultRootWindow(dpy), ctypes.byref(root),
                           ctypes.byref(parent), ctypes.byref(children), ctypes.byref(count))
            for i in range(count.value):
                name = ctypes.c_char_p()
                if x11.XFetchName(dpy, children[i], ctypes.byref(name)) and name.value:
                    if name.value.startswith(b"clvid"):
                        window = children[i]
                    x11.XFree(name)
            if count.value:
                x11.XFree(children)
            time.sleep(0.2)
        check(window, "no clvid window appeared")
        time.sleep(2)  # mapped and playing (a focus on an unmapped window is an X error)
        x11.XSetInputFocus(dpy, window, 2, 0)  # RevertToParent, CurrentTime

        def key(name, down):
            code = x11.XKeysymToKeycode(dpy, x11.XStringToKeysym(name.encode()))
            xtst.XTestFakeKeyEvent(dpy, code, down, 0)
            x11.XSync(dpy, 0)
            time.sleep(0.1)
        for held in keys + [["q"]]:
            for name in held:
                key(name, 1)
            for name in reversed(held):
                key(name, 0)
            time.sleep(1)
        _, err = p.communicate(timeout=60)
        check(p.returncode == 0, "clvid play exited %d: %s" % (p.returncode, err))
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        for code, names in restore:
            keysyms(code, names)
    return stats(st)


@test
def shift_digit_pressed(tmp):
    """A real shift+1 (Shift_L held, the 1 key pressed, through XTest) picks
    the second bank's first preset: the window keys on the keycode and the
    shift modifier, not on the text typed ('!')."""
    s = press_keys(tmp, [["Shift_L", "1"]])
    print("  shift+1 pressed: preset %s (%s), chain %s" % (s["preset"], s["preset_key"],
                                                         s["chain"]))
    check(s["preset_key"] == "shift+1" and s["chain"].startswith("gblur=sigma=2:"),
          "shift+1 pressed: preset %s (%s), chain %s" % (s["preset"], s["preset_key"],
                                                        s["chain"]))


@test
def azerty_digit_row(tmp):
    """On a French (AZERTY) layout the top row's keys type & é " ... unshifted
    and the digits shifted; the presets go by the key's place: the 3 key
    alone picks preset 3, with shift the second bank's third."""
    azerty = {"3": ("quotedbl", "3")}  # the key of 3: " unshifted, 3 shifted
    s = press_keys(tmp, [["3"]], remap=azerty)
    check(s["preset_key"] == "3", "the 3 key on AZERTY: preset %s (%s)"
          % (s["preset"], s["preset_key"]))
    s = press_keys(tmp, [["Shift_L", "3"]], remap=azerty)
    check(s["preset_key"] == "shift+3", "shift and the 3 key on AZERTY: preset %s (%s)"
          % (s["preset"], s["preset_key"]))


@test
def pause_step_seek(tmp):
    clip = counting_clip(tmp)
    st = os.path.join(tmp, "stats.txt")
    cases = [
        ("p . . . q", 3, "1"),           # pause on 0, three steps
        ("right q", 125, "0"),           # +5 s
        ("right right left q", 125, "0"),
        ("right . q", 126, "1"),         # a step pauses
        ("shift+right q", 475, "0"),     # past the end: the last second
        ("p right q", 125, "1"),         # a seek while paused shows the frame sought
        ("right shift+left q", 0, "0"),  # before the start: the start
    ]
    for keys, frame, paused in cases:
        play(clip, "--untimed", "--size", "320x240", "--keys", keys, "--stats", st)
        s = stats(st)
        check(s["last_frame"] == str(frame) and s["paused"] == paused,
              "keys '%s': frame %s paused %s, expected frame %d paused %s"
              % (keys, s["last_frame"], s["paused"], frame, paused))


@test
def loop_and_end(tmp):
    clip = counting_clip(tmp, seconds=1)
    st = os.path.join(tmp, "stats.txt")
    play(clip, "--untimed", "--loop", "--exit-after-frames", "40", "--stats", st)
    s = stats(st)
    check(s["last_frame"] == "14", "after 40 frames of a 25-frame loop: frame %s" % s["last_frame"])
    play(clip, "--untimed", "--autoexit", "--stats", st)
    s = stats(st)
    check(s["frames_shown"] == "25" and s["last_frame"] == "24", "autoexit: %s" % s)
    # -ss past the end: nothing to show is an error, as in transcode (was
    # exit 0 in silence); -map with no graph is refused before the window.
    p = play(clip, "-ss", "1000", "--autoexit", expect=1)
    check("no video frame to show (is -ss past the end?)" in p.stderr, p.stderr)
    p = play(clip, "-map", "[x]", "--autoexit", expect=2)
    check("-map '[x]': no -filter_complex has a label x" in p.stderr, p.stderr)


@test
def deinterlacer_frames(tmp):
    """A deinterlacer in the window: send_frame shows every frame once, the
    last given at the end of the input, each at its own time (its frame n
    comes with frame n + 1); send_field shows two frames of each (2N for N
    in), the second field's halfway to the next frame, a step being one
    frame out; a seek lands on the frame sought's first field; a recording
    has transcode's frames and timestamps; the HUD's rate counts the
    frames shown."""
    clip = counting_clip(tmp, seconds=1)
    st = os.path.join(tmp, "stats.txt")
    for vf in ("yadif", "bwdif=send_frame", "sharpen,yadif=send_frame:bff"):
        play(clip, "-vf", vf, "--untimed", "--autoexit", "--stats", st)
        s = stats(st)
        check(s["frames_shown"] == "25" and s["last_frame"] == "24", "%s: %s" % (vf, s))
    for vf in ("bwdif", "yadif=send_field", "sharpen,bwdif=parity=bff"):
        play(clip, "-vf", vf, "--untimed", "--autoexit", "--stats", st)
        s = stats(st)
        check(s["frames_shown"] == "50" and s["last_frame"] == "24" and s["last_field"] == "1"
              and abs(float(s["last_time"]) - 24.5 / 25) < 1e-3, "%s: %s" % (vf, s))
    # Steps and seeks, one frame out each (a 20 s clip).
    os.makedirs(os.path.join(tmp, "long"), exist_ok=True)
    long_clip = counting_clip(os.path.join(tmp, "long"))
    for keys, frame, field, paused in (("p . . . q", 1, "1", "1"), ("p . . . . q", 2, "0", "1"),
                                       ("right q", 125, "0", "0"),
                                       ("p right . q", 125, "1", "1"),
                                       ("right . q", 125, "1", "1")):
        play(long_clip, "-vf", "bwdif", "--untimed", "--size", "320x240", "--keys", keys,
             "--stats", st)
        s = stats(st)
        check(s["last_frame"] == str(frame) and s["last_field"] == field and
              s["paused"] == paused, "bwdif, keys '%s': frame %s field %s paused %s, expected "
              "%d %s %s" % (keys, s["last_frame"], s["last_field"], s["paused"], frame, field,
                            paused))
    # Timed: the 25 frames take a second, each frame's two fields shown (50),
    # the HUD's rate ~50 fps. On a loaded machine (the sanitizer builds
    # beside other tests) a frame decoded late is dropped before the
    # deinterlacer, as a player drops it, and its two fields with it.
    play(clip, "-vf", "bwdif", "--autoexit", "--stats", st)
    s = stats(st)
    shown, dropped = int(s["frames_shown"]), int(s["frames_dropped"])
    check(shown == 2 * (25 - dropped) and shown >= 40 and 30 < float(s["shown_fps"]) < 70 and
          0.8 < float(s["elapsed"]) < 3, "timed bwdif: %s" % s)
    # A recording (a live source, newer frames taken for stale ones): each
    # frame shown is recorded, in time order, the fields' between frames.
    rec = os.path.join(tmp, "rec.mkv")
    run([ARGS.clvid, "webcam", *CAMERA, "testsrc=size=160x120:rate=25", "-vf", "bwdif", "-o", rec,
         "-y", "--exit-after-frames", "40"])
    p = run(["ffprobe", "-v", "error", "-select_streams", "v", "-show_entries",
             "frame=pts_time", "-of", "csv=p=0", rec])
    got = [float(t.strip(",")) for t in p.stdout.split() if t.strip(",")]
    check(len(got) == 40 and all(a < b for a, b in zip(got, got[1:])),
          "recorded %d frames at %s" % (len(got), got))


def deint_outputs(tmp, clip, vf, name):
    """Every frame out of clip through vf, as the transcode path makes them
    (bytes, in order)."""
    pattern = os.path.join(tmp, name + "_%03d.png")
    run([ARGS.clvid, "transcode", "-q", "-i", clip, "-vf", vf, "-o", pattern, "-y"])
    out, n = [], 1
    while os.path.exists(pattern % n):
        out.append(rgba(pattern % n))
        n += 1
    return out


def shown_picture(tmp, clip, vf, *args):
    """The picture play leaves at exit (160x120 shown 1:1) and its stats."""
    shot, st = os.path.join(tmp, "shot.png"), os.path.join(tmp, "stats.txt")
    play(clip, "-vf", vf, "--untimed", "--no-hud", "--size", "160x120", *args, "--screenshot",
         shot, "--stats", st)
    return rgba(shot), stats(st)


@test
def deinterlacer_restarts(tmp):
    """A deinterlacer's frames start afresh where the input does: after a
    seek the first frame out is made as a stream's first (the frames before
    the seek are not its previous), and so after --loop goes back to the
    start; at the end the chain is ended as transcode ends it (bwdif's last
    field spatial only), so the last frame shown is transcode's last; a
    pause alone (no change) leaves the frames held as they were."""
    clip = counting_clip(tmp, seconds=1)
    want = deint_outputs(tmp, clip, "bwdif", "ref")
    check(len(want) == 50, "transcode made %d frames of 25 at send_field" % len(want))
    got, s = shown_picture(tmp, clip, "bwdif", "--autoexit")
    check(s["frames_shown"] == "50" and got == want[49],
          "the last frame shown at the end is not transcode's last (%s, largest difference %d)"
          % (s["frames_shown"], max_diff(got, want[49], 160, 0, 160, 0, 120)))
    for frames, out in (("51", 0), ("52", 1)):
        got, s = shown_picture(tmp, clip, "bwdif", "--loop", "--exit-after-frames", frames)
        check(got == want[out], "--loop, frame %s shown: not transcode's output %d of a stream "
              "(largest difference %d)" % (frames, out, max_diff(got, want[out], 160, 0, 160, 0,
                                                                   120)))
    # A pause and play again: the frames go on as if none had been.
    got, s = shown_picture(tmp, clip, "bwdif", "--keys", "p p p p q")
    at = 2 * int(s["last_frame"]) + int(s["last_field"])
    check(s["paused"] == "0" and got == want[at], "after a pause, output %d is not transcode's "
          "(largest difference %d)" % (at, max_diff(got, want[at], 160, 0, 160, 0, 120)))
    # A seek: the frame sought to is the first of a stream cut there.
    os.makedirs(os.path.join(tmp, "long"), exist_ok=True)
    long_clip = counting_clip(os.path.join(tmp, "long"))
    for vf in ("bwdif", "yadif"):
        got, s = shown_picture(tmp, long_clip, vf, "--keys", "right q")
        cut = os.path.join(tmp, "cut_%s.mkv" % vf)
        run(["ffmpeg", "-v", "error", "-y", "-i", long_clip, "-vf",
             "trim=start_frame=%s" % s["last_frame"], "-frames:v", "3", "-c:v", "ffv1", cut])
        first = deint_outputs(tmp, cut, vf, "cut_" + vf)[0]
        check(s["last_frame"] == "125" and s["last_field"] == "0" and got == first,
              "%s after a seek to frame %s: not the first frame of a stream starting there "
              "(largest difference %d)" % (vf, s["last_frame"], max_diff(got, first, 160, 0, 160,
                                                                         0, 120)))
    print("  end, --loop, pause and seek: the frames transcode makes of the same stream")


@test
def timed_playback(tmp):
    """With sound, frames follow the audio clock: 60 frames of 30 fps take
    about two seconds, not less (the pace, not a speed figure)."""
    st = os.path.join(tmp, "stats.txt")
    play(sample(), "-vf", "sharpen", "--size", "640x360", "--exit-after-frames", "60",
         "--stats", st)
    s = stats(st)
    shown, dropped = int(s["frames_shown"]), int(s["frames_dropped"])
    last = int(s["last_frame"])
    print("  shown %d, dropped %d, last frame %d, %.2f s" % (shown, dropped, last,
                                                           float(s["elapsed"])))
    check(float(s["elapsed"]) >= 1.5, "60 frames of 30 fps shown in %s s" % s["elapsed"])
    # Every frame up to the last one shown was either shown or dropped; a few
    # more may have been dropped after it, while it was being shown.
    check(last + 1 <= shown + dropped <= last + 1 + 8,
          "shown + dropped does not account for every frame: %s" % s)


@test
def screenshot_key(tmp):
    st = os.path.join(tmp, "stats.txt")
    play(sample(), "-vf", "emboss", "--untimed", "--size", "320x180", "--keys", "p s q",
         "--stats", st, cwd=tmp)
    s = stats(st)
    shot = os.path.join(tmp, "clvid-shot-1.png")
    check(os.path.exists(shot), "s saved no clvid-shot-1.png")
    check(size(shot) == (1280, 720), "the screenshot is not at source size: %s" % (size(shot),))
    want = rgba(frame_png(tmp, "emboss", int(s["last_frame"]), "ref"))
    check(rgba(shot) == want, "the saved frame is not the filtered frame, bit for bit")
    # A second session in the same folder takes the next free name.
    with open(os.path.join(tmp, "clvid-shot-2.png"), "wb") as f:
        f.write(b"the user's")
    play(sample(), "--untimed", "--size", "320x180", "--keys", "p s q", cwd=tmp)
    check(rgba(shot) == want, "clvid-shot-1.png was replaced")
    check(open(os.path.join(tmp, "clvid-shot-2.png"), "rb").read() == b"the user's",
          "clvid-shot-2.png was replaced")
    check(size(os.path.join(tmp, "clvid-shot-3.png")) == (1280, 720), "no clvid-shot-3.png")


def control_client():
    """The Python client, by its file (the package loads the libraries,
    which a sanitizer build's python cannot)."""
    import importlib.util
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location(
        "clvid_control", os.path.join(here, "..", "python", "clvid", "control.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@test
def ipc_play(tmp):
    """The control socket of the play window: set_chain (and its event),
    set_param, pause, seek (absolute and relative, landing on the frame
    sought while paused), screenshot (the filtered frame, equal to the
    transcode's; an existing file refused), resume, quit (the end event)."""
    control = control_client()
    clip = counting_clip(tmp)
    path = os.path.join(tmp, "ctl.sock")
    p = subprocess.Popen([ARGS.clvid, "play", clip, "--size", "320x240", "--ipc", path], env=ENV,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    timeout = 120

    def wait(what, cond):
        deadline = time.time() + timeout
        while not cond():
            check(time.time() < deadline, "%s: not within %d s" % (what, timeout))
            time.sleep(0.05)

    try:
        wait("the socket", lambda: os.path.exists(path) or p.poll() is not None)
        if p.poll() is not None:
            raise Failure("play ended (%d): %s" % (p.returncode, p.stderr.read()))
        with control.Control(path, timeout=timeout) as c:
            wait("a frame shown", lambda: c.stats()["frames"] > 0)
            check(c.set_chain("gray") == "gray", "set_chain's data")
            check(c.wait_event("chain-changed", timeout=timeout)["chain"] == "gray", "event")
            try:
                c.set_chain("nosuch")
                raise Failure("a bad chain was taken")
            except control.ControlError as e:
                check("unknown filter 'nosuch'" in str(e), str(e))
            check(c.get("chain") == "gray", "the chain changed after a refusal")
            st = c.stats()
            check(st["record_latency_frames"] == 0 and st["record_latency_p50_ms"] is None,
                  "a recording's latency without a recording: %s" % st)
            c.pause()
            check(c.stats()["paused"], "not paused")
            c.seek(10, absolute=True)
            wait("the frame at 10 s", lambda: abs(c.stats()["time"] - 10.0) < 1e-6)
            shot = os.path.join(tmp, "shot.png")
            data = c.screenshot(shot)
            check(data == {"path": shot, "width": 160, "height": 120}, "screenshot: %s" % data)
            ref = os.path.join(tmp, "ref.png")
            run([ARGS.clvid, "transcode", "-q", "-i", clip, "-ss", "10", "--frames", "1", "-vf",
                 "gray", "-o", ref])
            check(rgba(shot) == rgba(ref), "the screenshot is not frame 250 through gray")
            try:
                c.screenshot(shot)
                raise Failure("a screenshot replaced a file")
            except control.ControlError as e:
                check("exists" in str(e), str(e))
            c.seek(-4)
            wait("the frame at 6 s", lambda: abs(c.stats()["time"] - 6.0) < 1e-6)
            check(c.stats()["paused"], "a seek resumed")
            c.set_chain("median")
            check(c.set_param(0, "radius", 3) == "median=radius=3", "set_param")
            c.resume()
            at = c.stats()["frames"]
            wait("frames after resume", lambda: c.stats()["frames"] > at + 5)
            check(not c.stats()["paused"], "still paused")
            c.quit()
            check(c.wait_event("end", timeout=timeout)["reason"] == "quit", "the end event")
        p.wait(timeout)
        check(p.returncode == 0, "exit %d: %s" % (p.returncode, p.stderr.read()))
        check(not os.path.exists(path), "the socket is still there")
        # The webcam (the player on a live source): no seek; quit ends it.
        p = subprocess.Popen([ARGS.clvid, "webcam", *CAMERA, "testsrc2=size=320x240:rate=30",
                              "--size", "320x240", "--ipc", path], env=ENV,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wait("the webcam's socket", lambda: os.path.exists(path) or p.poll() is not None)
        with control.Control(path, timeout=timeout) as c:
            wait("a camera frame shown", lambda: c.stats()["frames"] > 0)
            try:
                c.seek(1)
                raise Failure("a live source took a seek")
            except control.ControlError as e:
                check("not available on a live source" in str(e), str(e))
            check(c.set_chain("vflip") == "vflip", "webcam set_chain")
            c.quit()
            check(c.wait_event("end", timeout=timeout)["reason"] == "quit", "the webcam's end")
        p.wait(timeout)
        check(p.returncode == 0, "webcam exit %d: %s" % (p.returncode, p.stderr.read()))
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


@test
def ipc_play_graph(tmp):
    """set_chain while a graph runs in the window: the chain after the graph
    (the keys' main chain) changes, and a screenshot is the graph's frame
    through it, equal to a transcode of the graph and the chain."""
    control = control_client()
    clip = counting_clip(tmp, seconds=8)
    logo = os.path.join(tmp, "logo.png")
    run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i",
         "color=c=red:size=16x12,format=rgba,geq=r=255:g='X*16':b='Y*20':a='X*16'",
         "-frames:v", "1", logo])
    path = os.path.join(tmp, "ctl.sock")
    graph = "[0][1]overlay=5:5"
    p = subprocess.Popen([ARGS.clvid, "play", clip, "-i", logo, "-filter_complex", graph,
                          "--size", "320x240", "--ipc", path], env=ENV,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    timeout = 120

    def wait(what, cond):
        deadline = time.time() + timeout
        while not cond():
            check(time.time() < deadline, "%s: not within %d s" % (what, timeout))
            time.sleep(0.05)

    try:
        wait("the socket", lambda: os.path.exists(path) or p.poll() is not None)
        if p.poll() is not None:
            raise Failure("play ended (%d): %s" % (p.returncode, p.stderr.read()))
        with control.Control(path, timeout=timeout) as c:
            wait("a frame shown", lambda: c.stats()["frames"] > 0)
            check(c.set_chain("gray") == "gray", "set_chain's data")
            check(c.get("chain") == "gray", "the chain after the graph: %r" % c.get("chain"))
            c.pause()
            c.seek(4, absolute=True)
            wait("the frame at 4 s", lambda: abs(c.stats()["time"] - 4.0) < 1e-6)
            shot = os.path.join(tmp, "shot.png")
            check(c.screenshot(shot)["width"] == 160, "the screenshot's size")
            c.quit()
        p.wait(timeout)
        check(p.returncode == 0, "exit %d: %s" % (p.returncode, p.stderr.read()))
        ref = os.path.join(tmp, "ref.png")
        run([ARGS.clvid, "transcode", "-q", "-i", clip, "-i", logo, "-filter_complex",
             graph + ",gray", "-ss", "4", "--frames", "1", "-o", ref])
        check(rgba(shot) == rgba(ref), "the screenshot is not frame 100 through the graph and gray")
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


@test
def chain_changes_size(tmp):
    """A chain that changes the size, switched to while playing: the window
    shows the new size at its aspect (letterboxed in the same window), the
    HUD's figures say in -> out, 's' saves the frame at its own size equal to
    the transcode's, and the compare view fits the original into the same
    box."""
    st, shot = os.path.join(tmp, "stats.txt"), os.path.join(tmp, "window.png")
    chains = ("crop=iw/2:ih/2", "pad=iw+320:ih:160:0:red")
    # 1280x720 -> 640x360, then the pad's 1600x720 (2.22:1) in a 640x360 window:
    # 640x288 with 36 rows of black above and below, 64 columns of red each side.
    play(sample(), "-vf", chains[0], "-vf", chains[1], "--untimed", "--no-hud", "--size",
         "640x360", "--keys", "w", "--exit-after-frames", "12", "--screenshot", shot, "--stats",
         st)
    s = stats(st)
    check(s["chain"].startswith("pad=w=iw+320:h=ih:x=160:y=0:color=0xFF0000FF"),
          "the chain is %s" % s["chain"])
    check((s["out_width"], s["out_height"]) == ("1600", "720"),
          "out %sx%s, expected 1600x720" % (s["out_width"], s["out_height"]))
    got = rgba(shot)
    check(size(shot) == (640, 360), "window capture %s" % (size(shot),))

    def px(x, y):
        return tuple(got[(y * 640 + x) * 4:(y * 640 + x) * 4 + 3])
    check(max(px(320, 10)) <= TOLERANCE, "no letterbox above the picture: %s" % (px(320, 10),))
    check(px(20, 180)[0] >= 250 and max(px(20, 180)[1:]) <= 5, "no red pad at the left: %s"
          % (px(20, 180),))
    check(px(620, 180)[0] >= 250 and max(px(620, 180)[1:]) <= 5, "no red pad at the right")
    check(px(320, 180) != px(20, 180), "the middle is the pad's colour too")
    # The compare view: the original (16:9) fitted into the 2.22:1 box:
    # black left of it (its 64 columns), the picture from there.
    play(sample(), "-vf", chains[0], "-vf", chains[1], "--untimed", "--no-hud", "--size",
         "640x360", "--keys", "w c", "--exit-after-frames", "12", "--screenshot", shot)
    got = rgba(shot)
    check(max(px(20, 180)) <= TOLERANCE, "the compare view's original is not fitted: %s"
          % (px(20, 180),))
    # 's' saves the filtered frame at its own size, as the transcode makes it.
    play(sample(), "-vf", chains[0], "-vf", chains[1], "--untimed", "--size", "320x180",
         "--keys", "w i i i i p s q", "--stats", st, cwd=tmp)
    s = stats(st)
    saved = os.path.join(tmp, "clvid-shot-1.png")
    check(size(saved) == (1600, 720), "the saved frame is %s" % (size(saved),))
    want = rgba(frame_png(tmp, chains[1], int(s["last_frame"]), "ref"))
    check(rgba(saved) == want, "the saved frame is not the transcode's, bit for bit")
    print("  1280x720 -> %s -> %s: window letterboxed, compare fitted, frame saved at 1600x720"
          % chains)


@test
def refilter_while_paused(tmp):
    """A preset or parameter changed while paused filters the frame shown
    again: the picture is that frame through the new chain."""
    st = os.path.join(tmp, "stats.txt")
    play(sample(), "-vf", "sharpen", "--untimed", "--size", "320x180", "--keys", "p 5 up s c q",
         "--stats", st, cwd=tmp)
    s = stats(st)
    check(s["paused"] == "1" and s["chain"] == "median=radius=2", "state: %s" % s)
    want = rgba(frame_png(tmp, "median=radius=2", int(s["last_frame"]), "ref"))
    check(rgba(os.path.join(tmp, "clvid-shot-1.png")) == want,
          "the paused frame was not filtered again with the new chain")


CAMERA = ["-f", "lavfi"]


@test
def webcam_latency(tmp):
    """A live source faster than the filter (lavfi as the camera): the queue
    never holds more than the stage's slots, stale frames are dropped for
    newer ones, and the latency stays within a few frames' work."""
    st = os.path.join(tmp, "stats.txt")
    play_cmd = [ARGS.clvid, "webcam", *CAMERA, "testsrc2=size=1280x720:rate=30", "--size",
                "640x360", "--exit-after-frames", "12", "--stats", st]
    for chain in ("median=radius=4", "sharpen"):
        run(play_cmd + ["-vf", chain])
        s = stats(st)
        work = float(s["ms_upload"]) + float(s["ms_kernels"]) + float(s["ms_download"]) + float(
            s["ms_present"])
        print("  %s: queue at most %s, %s stale frames dropped, latency %s ms (%.1f ms of work "
              "per frame)" % (chain, s["max_queued"], s["stale_dropped"], s["latency_ms"], work))
        check(int(s["max_queued"]) <= 3, "the queue held %s frames" % s["max_queued"])
        check(int(s["stale_dropped"]) > 0, "a source faster than the filter dropped nothing")
        check(float(s["latency_ms"]) <= 4 * work + 250,
              "latency %s ms for %.1f ms of work per frame" % (s["latency_ms"], work))


@test
def webcam_record(tmp):
    """Recording while previewing: the file holds exactly the frames shown;
    Ctrl-C finishes it; --no-window records headlessly."""
    import signal
    import time
    st, rec = os.path.join(tmp, "stats.txt"), os.path.join(tmp, "rec.mkv")
    run([ARGS.clvid, "webcam", *CAMERA, "testsrc2=size=320x240:rate=30", "-vf", "sharpen", "-o",
         rec, "--exit-after-frames", "30", "--stats", st, "--size", "320x240"])
    s = stats(st)
    frames = count_frames(rec)
    check(s["frames_shown"] == s["recorded"] == str(frames) == "30",
          "shown %s, recorded %s, in the file %d" % (s["frames_shown"], s["recorded"], frames))
    # Each recorded frame is timed from its packet read to its packet
    # written (not only the encoder's share), as transcode times them.
    lat, enc = float(s["record_latency_p50_ms"]), float(s["record_encoder_p50_ms"])
    print("  recording latency p50 %.1f ms (encoder %.1f ms) over %s frames"
          % (lat, enc, s["record_latency_frames"]))
    check(s["record_latency_frames"] == "30" and lat > 0 and lat >= enc,
          "the recording's latency: %s frames, p50 %.3f ms, encoder p50 %.3f ms"
          % (s["record_latency_frames"], lat, enc))
    # Ctrl-C during a recording finishes the file.
    rec2 = os.path.join(tmp, "rec2.mkv")
    p = subprocess.Popen(forget_stats([ARGS.clvid, "webcam", *CAMERA,
                                       "testsrc2=size=320x240:rate=30", "-o", rec2, "--stats", st,
                                       "--size", "320x240"]), env=ENV,
                         stderr=subprocess.PIPE, text=True)
    # Ctrl-C once frames are being written (the partial file grows; a slow
    # sanitizer build takes long to open the window), then 2 s later.
    deadline = time.time() + 120
    while time.time() < deadline and p.poll() is None:
        partial = [f for f in os.listdir(tmp) if f.startswith(".rec2.mkv.partial")]
        if partial and os.path.getsize(os.path.join(tmp, partial[0])) > 50000:
            break
        time.sleep(0.1)
    time.sleep(2)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    check(p.returncode == 0, "Ctrl-C while recording: exit %d\n%s" % (p.returncode, err))
    s = stats(st)
    frames = count_frames(rec2)
    print("  Ctrl-C after 3 s: %d frames recorded, %s shown" % (frames, s["frames_shown"]))
    check(frames == int(s["recorded"]) == int(s["frames_shown"]) and frames > 0,
          "file %d frames, recorded %s, shown %s" % (frames, s["recorded"], s["frames_shown"]))
    # The source ends (a camera unplugged): the recording is finished, exit 0.
    rec4 = os.path.join(tmp, "rec4.mkv")
    run([ARGS.clvid, "webcam", *CAMERA, "testsrc2=size=320x240:rate=30:duration=1", "-o", rec4,
         "--stats", st, "--size", "320x240"])
    s = stats(st)
    check(count_frames(rec4) == int(s["recorded"]) > 0, "source ended: file %d frames, recorded %s"
          % (count_frames(rec4), s["recorded"]))
    # A source of one frame: the frame comes with its end, and is recorded all the same.
    rec5 = os.path.join(tmp, "rec5.mkv")
    run([ARGS.clvid, "webcam", *CAMERA, "testsrc2=size=320x240:rate=30:duration=0.034", "-o",
         rec5, "--stats", st, "--size", "320x240"])
    s = stats(st)
    check(count_frames(rec5) == int(s["recorded"]) == 1, "one-frame source: file %d frames, "
          "recorded %s" % (count_frames(rec5), s["recorded"]))
    # Headless.
    rec3 = os.path.join(tmp, "rec3.mkv")
    run([ARGS.clvid, "webcam", *CAMERA, "testsrc2=size=320x240:rate=30", "--no-window", "-o",
         rec3, "--exit-after-frames", "25"])
    check(count_frames(rec3) == 25, "--no-window recorded %d frames" % count_frames(rec3))


# A paced camera and microphone whose clocks start at odd epochs, as real
# devices' do (v4l2 and ALSA stamp with the system clock).
PACED_CAMERA = "testsrc2=size=320x240:rate=30,realtime,setpts=PTS+4000/TB"
PACED_MIC = "sine=frequency=440:sample_rate=48000,arealtime,asetpts=PTS+9000/TB"


def check_mic_recording(path):
    """The recording has its video and an AAC track of the tone that starts
    and ends with the video (the two inputs put on one clock)."""
    p = run(["ffprobe", "-v", "error", "-show_entries", "stream=index,codec_type,codec_name",
             "-show_entries", "packet=stream_index,pts_time,duration_time", "-of", "json", path])
    info = json.loads(p.stdout)
    streams = {s["codec_type"]: s for s in info["streams"]}
    check("audio" in streams and streams["audio"]["codec_name"] == "aac",
          "no AAC track: %s" % info["streams"])

    def span(s):
        times = [(float(k["pts_time"]), float(k.get("duration_time", 0)))
                 for k in info["packets"] if k["stream_index"] == s["index"]]
        return min(t for t, _ in times), max(t + d for t, d in times)

    (v0, v1), (a0, a1) = span(streams["video"]), span(streams["audio"])
    print("  video %.3f..%.3f s, sound %.3f..%.3f s" % (v0, v1, a0, a1))
    # The sound is read on to where the video ends and cut there, so they
    # end together to a packet or two (AAC's 21 ms); sound put on the wrong
    # clock ends early or late (the first version's was 0.44 s early), and
    # so did sound the microphone had not handed over when the recording
    # stopped (0.39 s early, once, on a loaded machine). Where the sound
    # starts depends on when the microphone was opened (after the camera,
    # by the time the window and the GPU stage take to set up), so it is
    # only bounded.
    check(abs(a1 - v1) < 0.1, "sound %.3f..%.3f s against video %.3f..%.3f s: they should "
          "end together" % (a0, a1, v0, v1))
    check(a0 > v0 - 0.25 and a1 - a0 > 0.6 * (v1 - v0),
          "sound %.3f..%.3f s against video %.3f..%.3f s" % (a0, a1, v0, v1))
    data = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-map", "0:a", "-ac", "1",
                           "-ar", "48000", "-f", "f32le", "-"], capture_output=True,
                          check=True).stdout
    samples = struct.unpack("<%df" % (len(data) // 4), data)
    mid = samples[len(samples) // 4: 3 * len(samples) // 4]
    crossings = sum(1 for x, y in zip(mid, mid[1:]) if x < 0 <= y)
    hz = crossings / (len(mid) / 48000)
    check(abs(hz - 440) < 10, "the recorded sound is %.0f Hz, not the 440 Hz tone" % hz)


@test
def webcam_microphone(tmp):
    """--audio records a microphone with the camera, in the window and
    headless; the errors name what is wrong and leave no file."""
    st, rec = os.path.join(tmp, "stats.txt"), os.path.join(tmp, "rec.mkv")
    mic = ["--audio-format", "lavfi", "--audio", PACED_MIC]
    run([ARGS.clvid, "webcam", *CAMERA, PACED_CAMERA, "-vf", "sharpen", "-o", rec, *mic,
         "--exit-after-frames", "75", "--stats", st, "--size", "320x240"])
    s = stats(st)
    check(count_frames(rec) == int(s["recorded"]) == 75 and int(s["mic_packets"]) > 0,
          "file %d frames, recorded %s, mic packets %s" % (count_frames(rec), s["recorded"],
                                                           s["mic_packets"]))
    check_mic_recording(rec)
    rec2 = os.path.join(tmp, "rec2.mp4")
    run([ARGS.clvid, "webcam", *CAMERA, PACED_CAMERA, "--no-window", "-o", rec2, *mic,
         "--exit-after-frames", "60"])
    check(count_frames(rec2) == 60, "--no-window recorded %d frames" % count_frames(rec2))
    check_mic_recording(rec2)
    # Shorter than the half second the sound waits to be placed: it is
    # placed at the stop (it used to be dropped, leaving a silent track).
    rec3 = os.path.join(tmp, "rec3.mkv")
    run([ARGS.clvid, "webcam", *CAMERA, PACED_CAMERA, "--no-window", "-o", rec3, *mic,
         "--exit-after-frames", "8"])
    check(count_frames(rec3) == 8, "--no-window recorded %d frames" % count_frames(rec3))
    check_mic_recording(rec3)
    # Errors.
    out = os.path.join(tmp, "x.mkv")
    p = run([ARGS.clvid, "webcam", *CAMERA, PACED_CAMERA, "--audio", "hw:97", "-o", out],
            expect=1)
    check("hw:97" in p.stderr and not os.path.exists(out), "missing microphone: %s" % p.stderr)
    p = run([ARGS.clvid, "webcam", *CAMERA, PACED_CAMERA, "--audio-format", "bogus",
             "--audio", "x", "-o", out], expect=2)
    check("--audio-format bogus" in p.stderr, "unknown capture format: %s" % p.stderr)
    p = run([ARGS.clvid, "webcam", *CAMERA, PACED_CAMERA, *mic], expect=2)
    check("-o OUTPUT" in p.stderr, "--audio without -o: %s" % p.stderr)
    webm = os.path.join(tmp, "x.webm")
    p = run([ARGS.clvid, "webcam", *CAMERA, PACED_CAMERA, *mic, "-o", webm], expect=1)
    check("webm" in p.stderr and not os.path.exists(webm), "webm: %s" % p.stderr)
    p = run([ARGS.clvid, "transcode", "-i", sample(), "--audio", "default", "-o", out], expect=2)
    check("--live" in p.stderr and not os.path.exists(out), "--audio on a file: %s" % p.stderr)


def count_frames(path):
    p = run(["ffprobe", "-v", "error", "-select_streams", "v", "-count_frames", "-show_entries",
             "stream=nb_read_frames", "-of", "csv=p=0", path])
    return int(p.stdout.strip())


@test
def webcam_errors(tmp):
    p = run([ARGS.clvid, "webcam", "/dev/video97"], expect=1)
    check("/dev/video97" in p.stderr and "clvid sources" in p.stderr, "missing camera: %s"
          % p.stderr)
    p = run([ARGS.clvid, "webcam", "--input-format", "bogus"], expect=2)
    check("--input-format bogus" in p.stderr, "unknown format: %s" % p.stderr)
    p = run([ARGS.clvid, "webcam", *CAMERA, "testsrc2", "--no-window"], expect=2)
    check("-o OUTPUT" in p.stderr, "--no-window without -o: %s" % p.stderr)
    p = play(sample(), "-o", os.path.join(tmp, "x.mkv"), expect=2)
    check("clvid transcode" in p.stderr and not os.path.exists(os.path.join(tmp, "x.mkv")),
          "-o on a file: %s" % p.stderr)
    p = run([ARGS.clvid, "sources"])
    check("camera" in p.stdout.lower() or "/dev/video" in p.stdout, "sources: %s" % p.stdout)
    # A live source has no time to seek to: the arrow keys say so and it
    # goes on (a seek reached the demuxer, and during a reconnection the
    # decoder another thread was opening).
    st = os.path.join(tmp, "stats.txt")
    run([ARGS.clvid, "webcam", *CAMERA, "testsrc2=size=320x180:rate=30", "--keys",
         "right left q", "--exit-after-frames", "60", "--stats", st])
    check(int(stats(st)["frames_shown"]) >= 3, "the camera stopped after the arrow keys")


# ffmpeg's colour source is Y'CbCr: its red is (253, 0, 0) in the PNG.
PICTURE = 4


def solid_png(tmp, name, colour, w, h):
    """A picture of one colour (ffmpeg's colour name), w x h."""
    path = os.path.join(tmp, name)
    run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "color=c=%s:size=%dx%d" % (colour, w, h),
         "-frames:v", "1", path])
    return path


def region_colour(px, w, x0, x1, y0, y1, colour, tolerance):
    """Pixels of columns x0..x1-1, rows y0..y1-1 further than tolerance from colour."""
    off = 0
    for y in range(y0, y1):
        for x in range(x0, x1):
            i = (y * w + x) * 4
            if max(abs(px[i + c] - colour[c]) for c in range(3)) > tolerance:
                off += 1
    return off


def has_filter(name):
    return name in run([ARGS.clvid, "filters"]).stdout.split()


@test
def graph_composition(tmp):
    """play -i CLIP -i PICTURE -filter_complex: the window shows the graph's
    output, each input's pixels where the graph puts them (the clip's equal
    to the transcode path's frame); overlay; xfade's handover after its
    transition; usage mistakes exit 2."""
    clip = counting_clip(tmp, seconds=2)
    red = solid_png(tmp, "red.png", "red", 64, 120)
    shot, st = os.path.join(tmp, "shot.png"), os.path.join(tmp, "stats.txt")
    play(clip, "-i", red, "-filter_complex", "[0][1]hstack", "--untimed", "--no-hud", "-an",
         "--size", "224x120", "--exit-after-frames", "5", "--screenshot", shot, "--stats", st)
    s = stats(st)
    check(s["frames_shown"] == "5" and s["last_frame"] == "4" and s["graph_index"] == "1"
          and s["graph"].startswith("[0][1]hstack") and (s["out_width"], s["out_height"])
          == ("224", "120"), "stats: %s" % s)
    pattern = os.path.join(tmp, "ref_%03d.png")
    run([ARGS.clvid, "transcode", "-q", "-i", clip, "--frames", "5", "-o", pattern, "-y"])
    want, got = rgba(pattern % 5), rgba(shot)
    check(size(shot) == (224, 120), "screenshot is %s" % (size(shot),))
    d = max(max_diff(got[(y * 224) * 4:(y * 224 + 160) * 4], want[(y * 160) * 4:(y + 1) * 160 * 4],
                     160, 0, 160, 0, 1) for y in range(120))
    off = region_colour(got, 224, 160, 224, 0, 120, (255, 0, 0), PICTURE)
    print("  hstack: clip side differs by %d levels from the transcode's frame 4; %d logo "
          "pixels off red" % (d, off))
    check(d <= TOLERANCE and off == 0, "clip side %d levels off, %d pixels of the picture not red"
          % (d, off))
    # A seek moves input 0 (the picture has no time to go to): paused, the
    # frame sought is shown through the graph.
    play(clip, "-i", red, "-filter_complex", "[0][1]hstack", "--untimed", "--no-hud", "-an",
         "--size", "224x120", "--keys", "space right", "--exit-after-frames", "2", "--stats", st)
    s = stats(st)
    check(s["last_frame"] == "25" and s["frames_shown"] == "2", "seek with a graph: %s" % s)
    blue = solid_png(tmp, "blue.png", "blue", 40, 30)
    play(clip, "-i", blue, "-filter_complex", "[0][1]overlay=W-w-10:10", "--untimed", "--no-hud",
         "-an", "--size", "160x120", "--exit-after-frames", "5", "--screenshot", shot, "--stats",
         st)
    got = rgba(shot)
    off = region_colour(got, 160, 110, 150, 10, 40, (0, 0, 255), PICTURE)
    d = max(max_diff(got, want, 160, 0, 160, y0, y1) for y0, y1 in ((0, 10), (40, 120)))
    print("  overlay: %d logo pixels off blue; the clip around it %d levels off" % (off, d))
    check(off == 0 and d <= TOLERANCE, "overlay: %d logo pixels off, clip %d levels off"
          % (off, d))
    # -itsoffset 0.4 before the logo's -i: its frame comes at 0.4 s, so
    # frame 4 (0.16 s) is the clip's alone (overlay passes its first input).
    play(clip, "-itsoffset", "0.4", "-i", blue, "-filter_complex", "[0][1]overlay=W-w-10:10",
         "--untimed", "--no-hud", "-an", "--size", "160x120", "--exit-after-frames", "5",
         "--screenshot", shot)
    d = max_diff(rgba(shot), want, 160, 0, 160, 0, 120)
    print("  -itsoffset 0.4: frame 4 is %d levels off the clip's alone" % d)
    check(d <= TOLERANCE, "-itsoffset 0.4: frame 4 %d levels off the clip's" % d)
    # xfade: after its transition (0.2 s to 0.4 s) input 0 is not read and
    # the filter hands over to its second input, shown whole (wipeleft at
    # progress 0 with both inputs would keep input 0's column 0).
    red_full = solid_png(tmp, "red_full.png", "red", 160, 120)
    play(clip, "-i", red_full, "-filter_complex", "[0][1]xfade=transition=wipeleft:offset=0.2:"
         "duration=0.2", "--untimed", "--no-hud", "-an", "--size", "160x120",
         "--exit-after-frames", "15", "--screenshot", shot, "--stats", st)
    off = region_colour(rgba(shot), 160, 0, 160, 0, 120, (255, 0, 0), PICTURE)
    print("  xfade: %d pixels off red after the transition" % off)
    check(off == 0 and stats(st)["frames_shown"] == "15",
          "xfade after its transition: %d pixels off red" % off)
    # Usage mistakes, before a window opens.
    for args, says in (
            (["-i", red], "no -filter_complex"),
            (["-i", red, "-filter_complex", "[0][1]hstack", "-vf", "hflip", "-vf", "vflip"],
             "one -vf"),
            (["-i", red, "-filter_complex", "[0][2]hstack"], "no input 2"),
            (["-i", red, "-filter_complex", "[0][1]hstack[x]", "-map", "[y]"], "[y]"),
            (["-i", red, "-filter_complex", "[0][1]hstack", "-filter_complex", "[0][1]hstak"],
             "-filter_complex #2"),
            (["-i", red, "-filter_complex_script", os.path.join(tmp, "none.txt")], "none.txt"),
            (["-i", red, "-filter_complex", "[1][0]xfade=offset=1:duration=1"],
             "give input 1 as the first -i"),
            (["-i", red, "-filter_complex", "[0][1]hstack", "-itsoffset", "1"],
             "-itsoffset 1: a further input's offset")):
        p = play(clip, *args, "--exit-after-frames", "1", expect=2)
        check(says in p.stderr, "%s: %s" % (args, p.stderr))


@test
def graph_cycle(tmp):
    """w cycles the graphs of several -filter_complex from the frame shown,
    also to one of another size; with one graph w changes nothing; the
    main chain (-vf, the presets) is applied after the graph."""
    clip = counting_clip(tmp, seconds=2)
    red = solid_png(tmp, "red.png", "red", 64, 120)
    script = os.path.join(tmp, "g.txt")
    with open(script, "w") as f:
        f.write("[0][1]hstack,hflip\n")
    shot, st = os.path.join(tmp, "shot.png"), os.path.join(tmp, "stats.txt")
    cases = [("w", "2", 0), ("w w", "1", 160), ("w w w", "2", 0)]
    for keys, index, red_from in cases:
        play(clip, "-i", red, "-filter_complex", "[0][1]hstack", "-filter_complex_script", script,
             "--untimed", "--no-hud", "-an", "--size", "224x120", "--keys", keys,
             "--exit-after-frames", "10", "--screenshot", shot, "--stats", st)
        s = stats(st)
        got = rgba(shot)
        x0 = red_from  # above the notice w shows ("graph 2/2: ...", at the bottom)
        off = region_colour(got, 224, x0, x0 + 64, 0, 70, (255, 0, 0), PICTURE)
        check(s["graph_index"] == index and off == 0,
              "keys '%s': graph %s (expected %s), %d pixels of the picture off red at x %d"
              % (keys, s["graph_index"], index, off, x0))
    # One graph: w does nothing; -vf is the chain after the graph (vflip
    # turns the whole composition), and a preset replaces it.
    play(clip, "-i", red, "-filter_complex", "[0][1]hstack", "-vf", "hflip", "--untimed",
         "--no-hud", "-an", "--size", "224x120", "--keys", "w", "--exit-after-frames", "6",
         "--screenshot", shot, "--stats", st)
    s = stats(st)
    off = region_colour(rgba(shot), 224, 0, 64, 0, 70, (255, 0, 0), PICTURE)
    check(s["graph_index"] == "1" and s["chain"] == "hflip" and off == 0,
          "one graph, w, -vf hflip: graph %s chain %s, %d pixels off red on the left"
          % (s["graph_index"], s["chain"], off))
    # To a graph of another size: the window's stages follow.
    play(clip, "-i", red, "-filter_complex", "[0][1]hstack", "-filter_complex",
         "[0][1]hstack,scale=112:60", "--untimed", "--no-hud", "-an", "--size", "224x120",
         "--keys", "w", "--exit-after-frames", "8", "--stats", st)
    s = stats(st)
    check(s["graph_index"] == "2" and (s["out_width"], s["out_height"]) == ("112", "60"),
          "to a graph of another size: %s" % s)


@test
def webcam_graph_record(tmp):
    """webcam DEV -i PICTURE -filter_complex: the camera composited live and
    recorded: the file holds the frames shown, each with the picture where
    the graph puts it; --no-window records the same through transcode."""
    red = solid_png(tmp, "red.png", "red", 64, 240)
    rec, st = os.path.join(tmp, "rec.mkv"), os.path.join(tmp, "stats.txt")
    run([ARGS.clvid, "webcam", *CAMERA, "testsrc2=size=320x240:rate=30", "-i", red,
         "-filter_complex", "[0][1]hstack", "-o", rec, "--exit-after-frames", "15", "--stats", st,
         "--size", "384x240"])
    s = stats(st)
    frames = count_frames(rec)
    check(s["frames_shown"] == s["recorded"] == str(frames) == "15" and size(rec) == (384, 240),
          "shown %s, recorded %s, in the file %d of %s" % (s["frames_shown"], s["recorded"],
                                                           frames, size(rec)))
    px = rgba(rec)
    each = 384 * 240 * 4
    worst = max(region_colour(px[k * each:(k + 1) * each], 384, 324, 380, 4, 236, (255, 0, 0), 24)
                for k in range(15))
    clip = min(region_colour(px[k * each:(k + 1) * each], 384, 0, 320, 0, 240, (255, 0, 0), 24)
               for k in range(15))
    print("  recorded: the picture's inner pixels off red at most %d a frame; the camera side "
          "has %d non-red pixels at least" % (worst, clip))
    check(worst == 0 and clip > 320 * 200, "the picture's pixels off red: %d; the camera's: %d"
          % (worst, clip))
    rec2 = os.path.join(tmp, "rec2.mkv")
    run([ARGS.clvid, "webcam", *CAMERA, "testsrc2=size=320x240:rate=30", "-i", red,
         "-filter_complex", "[0][1]hstack", "--no-window", "-o", rec2, "--exit-after-frames", "10"])
    check(count_frames(rec2) == 10 and size(rec2) == (384, 240), "--no-window: %d frames of %s"
          % (count_frames(rec2), size(rec2)))


@test
def errors(tmp):
    env = dict(ENV)
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    p = run([ARGS.clvid, "play", sample()], expect=1, env=env)
    check("no display" in p.stderr and "clvid transcode" in p.stderr,
          "no display: %s" % p.stderr)
    p = play(sample(), "--keys", "2 zz", expect=2)
    check("'zz'" in p.stderr, "unknown key: %s" % p.stderr)
    p = play(sample(), "--size", "0x0", expect=2)
    check("--size" in p.stderr and "16..16384" in p.stderr, "bad size: %s" % p.stderr)
    p = play(os.path.join(tmp, "missing.mp4"), expect=1)
    check("missing.mp4" in p.stderr, "missing input: %s" % p.stderr)
    p = play(sample(), "-vf", "median=radius=9", expect=2)
    check("radius" in p.stderr and "1 to 7" in p.stderr, "bad chain: %s" % p.stderr)
    p = play(sample(), "--reconnect", expect=2)
    check("--reconnect is for network inputs" in p.stderr and sample() in p.stderr,
          "--reconnect with a file: %s" % p.stderr)
    # --screenshot at a file that is there: refused before the session
    # (without -y), the file kept; the input itself even with -y.
    keep = os.path.join(tmp, "keep.png")
    with open(keep, "wb") as f:
        f.write(b"mine")
    p = run([ARGS.clvid, "play", sample(), "--screenshot", keep], expect=1, env=ENV)
    check("already exists" in p.stderr and open(keep, "rb").read() == b"mine",
          "--screenshot over a file: %s" % p.stderr)
    p = run([ARGS.clvid, "play", sample(), "-y", "--screenshot", sample()], expect=2, env=ENV)
    check("input" in p.stderr, "--screenshot over the input: %s" % p.stderr)
    # --stats FILE follows the same rules: a file there needs -y, the input
    # never (even with -y), nor the screenshot's file.
    p = run([ARGS.clvid, "play", sample(), "--stats", keep], expect=1, env=ENV)
    check("--stats" in p.stderr and "already exists" in p.stderr
          and open(keep, "rb").read() == b"mine", "--stats over a file: %s" % p.stderr)
    p = run([ARGS.clvid, "play", sample(), "-y", "--stats", sample()], expect=2, env=ENV)
    check("--stats" in p.stderr and "input" in p.stderr, "--stats over the input: %s" % p.stderr)
    shot = os.path.join(tmp, "same.png")
    p = run([ARGS.clvid, "play", sample(), "--screenshot", shot, "--stats",
             os.path.join(tmp, ".", "same.png")], expect=2, env=ENV)
    check("--screenshot file" in p.stderr and not os.path.exists(shot),
          "--stats at the screenshot: %s" % p.stderr)
    p = run([ARGS.clvid, "play", sample(), "-y", "--exit-after-frames", "2", "--stats", keep],
            env=ENV)
    check(stats(keep).get("frames_shown") not in (None, "0"), "--stats -y: %s" % p.stderr)
    # Even with -y: never the recording, a file the chain reads (a kernel,
    # a LUT) or the graph's script; a folder that is not there is told
    # before the session; --no-window has no window to tell of.
    kernel = os.path.join(tmp, "k.cl")
    with open(os.path.join(ARGS.media, "..", "examples", "kernels", "chromatic.cl")) as f:
        kernel_text = f.read()
    with open(kernel, "w") as f:
        f.write(kernel_text)
    script = os.path.join(tmp, "g.txt")
    with open(script, "w") as f:
        f.write("[0]hflip")
    text = open(kernel).read()
    for args in (["--live", "-f", "lavfi", "testsrc=size=160x120:rate=10", "-an", "-o",
                  os.path.join(tmp, "r.mkv"), "--screenshot", os.path.join(tmp, "r.mkv")],
                 [sample(), "-vf", "opencl=file=" + kernel, "--screenshot", kernel],
                 [sample(), "-vf", "opencl=file=" + kernel, "--stats", kernel],
                 [sample(), "-filter_complex_script", script, "--stats", script]):
        p = run([ARGS.clvid, "play", *args, "-y", "--exit-after-frames", "2"], expect=2, env=ENV)
        check("input or output" in p.stderr or "the run's output" in p.stderr,
              "%s: %s" % (args, p.stderr))
    check(open(kernel).read() == text and open(script).read() == "[0]hflip"
          and not os.path.exists(os.path.join(tmp, "r.mkv")), "a file the session reads changed")
    p = run([ARGS.clvid, "play", sample(), "--exit-after-frames", "2", "--stats",
             os.path.join(tmp, "nowhere", "s.txt")], expect=1, env=ENV)
    check("--stats" in p.stderr and "nowhere" in p.stderr, "--stats in no folder: %s" % p.stderr)
    p = run([ARGS.clvid, "webcam", *CAMERA, "testsrc2=size=160x120:rate=10", "--no-window", "-o",
             os.path.join(tmp, "w.mkv"), "--stats", os.path.join(tmp, "w.txt")], expect=2, env=ENV)
    check("--stats is the window's" in p.stderr, "--no-window --stats: %s" % p.stderr)


# ---- User kernels: the opencl filter, live ------------------------------------


def kernel_file(path, colour, extra=""):
    """A kernel that paints the picture one colour (r, g, b)."""
    with open(path + ".tmp", "w") as f:
        f.write("%s\nkernel void paint(CLV_ARGS)\n{\n    WRITE((uchar4)(%d, %d, %d, 255))%s\n}\n"
                % (extra, colour[0], colour[1], colour[2], ";" if "BROKEN" not in extra else ""))
    os.replace(path + ".tmp", path)  # as editors save: a new file renamed over the old


class Live:
    """clvid play in the background, its stderr read as it comes."""

    def __init__(self, *args):
        self.p = subprocess.Popen(forget_stats([ARGS.clvid, "play", *args]),
                                  stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, env=ENV)
        self.err = b""
        self.seen = 0

    def wait_for(self, text, timeout=120):
        """Waits for a new line of stderr containing text."""
        import select
        end = time.time() + timeout
        while True:
            lines = self.err.decode(errors="replace").split("\n")
            for i in range(self.seen, len(lines) - 1):
                if text in lines[i]:
                    self.seen = i + 1
                    return lines[i]
            left = end - time.time()
            if left <= 0 or self.p.poll() is not None:
                raise Failure("no '%s' from clvid play (exit %s); stderr:\n%s"
                              % (text, self.p.poll(), self.err.decode(errors="replace")[-3000:]))
            r, _, _ = select.select([self.p.stderr], [], [], min(left, 0.5))
            if r:
                self.err += os.read(self.p.stderr.fileno(), 65536)

    def state(self, px=None):
        """Whether it runs, its stderr so far and the screen's colours: what
        a failure's message needs to say."""
        import select
        while self.p.poll() is None and select.select([self.p.stderr], [], [], 0)[0]:
            chunk = os.read(self.p.stderr.fileno(), 65536)
            if not chunk:
                break
            self.err += chunk
        if self.p.poll() is not None:
            self.err += self.p.stderr.read()
        run_state = "running" if self.p.poll() is None else "exited %s" % self.p.poll()
        shown = "; screen: %s" % screen_colours(px) if px else ""
        return "clvid play %s%s; stderr:\n%s" % (run_state, shown,
                                                 self.err.decode(errors="replace")[-2000:])

    def rss_mb(self):
        with open("/proc/%d/status" % self.p.pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        return 0

    def stop(self):
        self.p.send_signal(signal.SIGINT)
        try:
            self.p.wait(120)
        finally:
            if self.p.poll() is None:
                self.p.kill()
        self.err += self.p.stderr.read()
        return self.p.returncode


SCREEN = (1600, 1000)


def grab(path=None):
    """The whole X screen now, as RGBA bytes (and a PNG when path is given)."""
    cmd = ["ffmpeg", "-v", "error", "-f", "x11grab", "-video_size", "%dx%d" % SCREEN,
           "-i", ENV["DISPLAY"], "-frames:v", "1"]
    if path:
        run(cmd + ["-y", path])
        return rgba(path)
    p = subprocess.run(cmd + ["-f", "rawvideo", "-pix_fmt", "rgba", "-"], capture_output=True,
                       env=ENV, timeout=60)
    check(p.returncode == 0, "x11grab: %s" % p.stderr.decode())
    return p.stdout


def count_colour(px, colour, tolerance=8):
    """Pixels of the screen within tolerance of colour (r, g, b)."""
    n = 0
    r, g, b = colour
    for i in range(0, len(px), 4):
        if abs(px[i] - r) <= tolerance and abs(px[i + 1] - g) <= tolerance \
                and abs(px[i + 2] - b) <= tolerance:
            n += 1
    return n


def error_panel(px):
    """Pixels of the red error panel (dark red blended over the picture)."""
    n = 0
    for i in range(0, len(px), 4):
        if px[i] > 80 and px[i + 1] < 70 and px[i + 2] < 70 and px[i] > 2 * px[i + 1] + 20:
            n += 1
    return n


def wait_colour(colour, at_least, live=None, timeout=90):
    """Grabs the screen until at_least pixels show colour, the timeout
    passes or the live clvid play has exited."""
    end = time.time() + timeout
    while True:
        px = grab()
        n = count_colour(px, colour)
        if n >= at_least or time.time() > end or (live and live.p.poll() is not None):
            return px, n
        time.sleep(0.3)


def screen_colours(px, top=4):
    """The screen's most common colours, for a failure's message."""
    counts = {}
    for i in range(0, len(px), 4 * 7):  # every 7th pixel is enough to say
        c = (px[i], px[i + 1], px[i + 2])
        counts[c] = counts.get(c, 0) + 1
    total = sum(counts.values())
    best = sorted(counts.items(), key=lambda kv: -kv[1])[:top]
    return ", ".join("%s %.0f%%" % (c, 100.0 * n / total) for c, n in best)


@test
def kernel_hot_reload(tmp):
    """play with a kernel file; the file is rewritten (a new colour), broken
    (the last good kernel keeps running, the compiler's message with the
    file's line on a red panel), and mended; the window never stops."""
    k = os.path.join(tmp, "live.cl")
    st = os.path.join(tmp, "stats.txt")
    kernel_file(k, (0, 255, 0))
    area = 640 * 360
    live = Live(sample(), "-vf", "opencl=file=" + k, "--loop", "--untimed", "--no-hud",
                "--size", "640x360", "--stats", st)
    try:
        px, n = wait_colour((0, 255, 0), area * 0.95, live)
        check(n >= area * 0.95, "the first kernel's green is not shown (%d pixels; %s)"
              % (n, live.state(px)))
        kernel_file(k, (0, 0, 255))
        live.wait_for("reloaded")
        px, n = wait_colour((0, 0, 255), area * 0.95, live)
        check(n >= area * 0.95, "after the rewrite the window is not blue (%d pixels; %s)"
              % (n, live.state(px)))
        kernel_file(k, (255, 0, 255), extra="// BROKEN: WRITE on line 6 lacks its semicolon\n//\n")
        line = live.wait_for("does not build")
        message = live.wait_for("live.cl:6:")
        time.sleep(1.0)
        px = grab(os.path.join(tmp, "error.png"))
        blue, red = count_colour(px, (0, 0, 255)), error_panel(px)
        print("  broken file: %s / %s; %d blue pixels, %d on the red panel"
              % (line.strip(), message.strip(), blue, red))
        check(blue >= area * 0.6, "the last good kernel's picture is gone (%d blue)" % blue)
        check(red > 3000, "no red error panel on the window (%d pixels)" % red)
        kernel_file(k, (255, 0, 255))
        live.wait_for("reloaded")
        px, n = wait_colour((255, 0, 255), area * 0.95, live)
        red = error_panel(px)
        check(n >= area * 0.95 and red < 500, "mended: %d magenta, %d red panel; %s"
              % (n, red, live.state(px)))
    finally:
        code = live.stop()
    check(code == 0, "clvid play exited %d: %s" % (code, live.err.decode()[-2000:]))
    s = stats(st)
    print("  frames shown %s, reloads %s" % (s["frames_shown"], s["kernel_reloads"]))
    check(s["kernel_reloads"] == "2" and s["kernel_error"] == "0", "stats: %s" % s)


@test
def kernel_reload_loop(tmp):
    """50 rewrites while playing: 50 reloads, no crash, memory flat."""
    k = os.path.join(tmp, "loop.cl")
    kernel_file(k, (10, 20, 30))
    live = Live(sample(), "-vf", "opencl=file=" + k, "--loop", "--untimed", "--no-hud",
                "--size", "320x180")
    rss = {}
    try:
        px, n = wait_colour((10, 20, 30), 320 * 180 * 0.9, live)  # playing, the file watched
        check(n >= 320 * 180 * 0.9, "the first kernel is not shown (%d pixels; %s)"
              % (n, live.state(px)))
        for i in range(1, 51):
            kernel_file(k, (i * 5 % 256, 255 - i, 40), extra="// version %d" % i)
            live.wait_for("reloaded")
            if i in (10, 50):
                rss[i] = live.rss_mb()
    finally:
        code = live.stop()
    check(code == 0, "clvid play exited %d: %s" % (code, live.err.decode()[-2000:]))
    growth = rss[50] - rss[10]
    print("  resident memory after 10 reloads %.1f MB, after 50 %.1f MB (+%.1f)"
          % (rss[10], rss[50], growth))
    check(growth < 40, "memory grew by %.1f MB over 40 reloads" % growth)


@test
def kernel_params_keys(tmp):
    """A kernel's declared parameters move with up/down; tab picks the next
    one; r builds the file again."""
    k = os.path.join(tmp, "params.cl")
    with open(k, "w") as f:
        f.write("// @param int level = 100 [0, 255] step 5\n"
                "// @param float mix = 0.5 [0, 1] step 0.25\n"
                "kernel void params(CLV_ARGS, int level, float mix)\n"
                "{ uchar4 p = READ(CLV_X, CLV_Y);\n"
                "  WRITE((uchar4)(level, convert_uchar_sat(p.y * mix), p.z, p.w)); }\n")
    st = os.path.join(tmp, "stats.txt")
    play(sample(), "-vf", "gray,opencl=file=" + k, "--untimed", "--no-hud", "--loop",
         "--size", "320x180", "--keys", "up,up,tab,down,r", "--exit-after-frames", "300",
         "--stats", st)
    s = stats(st)
    check(("opencl=file=%s:level=110:mix=0.25" % k) in s["chain"], "chain: %s" % s["chain"])
    check(s["kernel_reloads"] == "1", "r did not rebuild: %s" % s["kernel_reloads"])


@test
def kernel_picture(tmp):
    """An example kernel in the window equals the transcode path's frame."""
    chain = "opencl=file=" + os.path.join(ARGS.media, "..", "examples", "kernels",
                                          "sobel_glow.cl")
    shot = os.path.join(tmp, "shot.png")
    play(sample(), "-vf", chain, "--untimed", "--no-hud", "--size", "1280x720",
         "--exit-after-frames", "6", "--screenshot", shot)
    d = max_diff(rgba(shot), rgba(frame_png(tmp, chain, 5, "ref")), 1280, 0, 1280, 0, 720)
    print("  largest difference from the transcode path's frame 5: %d" % d)
    check(d <= TOLERANCE, "the window differs from the transcoded frame by %d levels" % d)


# ---- A network input that drops: --reconnect in the window -----------------

def free_udp_port():
    import socket
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def udp_sender(url, seconds):
    """An ffmpeg streaming `seconds` of 320x240 25 fps H.264 (a keyframe a
    second) as MPEG-TS to url at its native rate, killed after 30 s."""
    return subprocess.Popen(["timeout", "30", "ffmpeg", "-v", "error", "-re", "-f", "lavfi", "-i",
                             "testsrc=size=320x240:rate=25:duration=%g" % seconds, "-c:v",
                             "libx264", "-g", "25", "-tune", "zerolatency", "-pix_fmt", "yuv420p",
                             "-f", "mpegts", url + "?pkt_size=1316"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def sent(tx):
    try:
        tx.wait(timeout=30)
    except subprocess.TimeoutExpired:
        tx.kill()
        raise Failure("the sender did not end")
    check(tx.returncode == 0, "the sender failed: %s" % tx.stderr.read())


def udp_bound(port, timeout=30):
    """Waits until a UDP socket is bound to port (the player's input opened),
    so that a sender's first packets and keyframe are not lost."""
    want = ":%04X" % port
    deadline = time.time() + timeout
    while time.time() < deadline:
        with open("/proc/net/udp") as f:
            if any(line.split()[1].endswith(want) for line in list(f)[1:]):
                return
        time.sleep(0.05)
    raise Failure("nothing bound UDP port %d within %d s" % (port, timeout))


def reconnecting_window(tmp, url, *args):
    """clvid play --live url --reconnect in the window, with a control
    socket (returned with the process) and its input open, killed after
    90 s."""
    sock = os.path.join(tmp, "ctl.sock")
    p = subprocess.Popen(["timeout", "90", ARGS.clvid, "play", "--live", url, "--size", "800x450",
                          "-rw_timeout", "500000", "--reconnect", "--ipc", sock, *args], env=ENV,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for _ in range(200):
        if os.path.exists(sock) or p.poll() is not None:
            break
        time.sleep(0.05)
    if p.poll() is not None:
        raise Failure("play ended (%d): %s" % (p.returncode, p.stderr.read()))
    udp_bound(int(url.rsplit(":", 1)[1]))
    return p, sock


def ended(p):
    try:
        _, err = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        raise Failure("the window did not end: %s" % p.communicate()[1][-3000:])
    check(p.returncode == 0, "exit %d: %s" % (p.returncode, err[-3000:]))
    return err


@test
def live_reconnect(tmp):
    """--reconnect in the window: a UDP sender streams 1.5 s, stops 1.5 s and
    streams 6 s more (long enough that a loaded machine or a sanitizer
    build reconnects while it still sends); the window shows frames of both
    parts, the control
    socket says reconnecting then reconnected (transcode's fields), and
    quit ends it (exit 0, the stats count one reconnection)."""
    control = control_client()
    url = "udp://127.0.0.1:%d" % free_udp_port()
    st = os.path.join(tmp, "stats.txt")
    p, sock = reconnecting_window(tmp, url, "--reconnect-max", "6", "--stats", st)
    try:
        with control.Control(sock, timeout=60) as c:
            sent(udp_sender(url, 1.5))
            time.sleep(1.5)
            tx = udp_sender(url, 6)
            dropped = c.wait_event("reconnecting", timeout=30)
            check(dropped["input"] == url and dropped["attempt"] >= 1 and dropped["outage"] >= 0
                  and "no packet" in dropped["reason"] and dropped["time"] > 0, "%s" % dropped)
            before = c.stats()
            check(before["frames"] > 0 and before["reconnecting"], "%s" % before)
            back = c.wait_event("reconnected", timeout=30)
            check(back["input"] == url and back["attempt"] >= 1 and back["outage"] > 0
                  and "reason" not in back, "%s" % back)
            sent(tx)
            after = c.stats()
            print("  %d frames before the drop, %d after; back after %.2f s (attempt %d)"
                  % (before["frames"], after["frames"] - before["frames"], back["outage"],
                     back["attempt"]))
            check(after["frames"] > before["frames"] + 5, "no frames of the second part: %s"
                  % after)
            check(after["time"] > before["time"], "the timeline went back: %s" % after)
            check(after["reconnects"] == 1, "%s" % after)
            c.quit()
            check(c.wait_event("end", timeout=30)["reason"] == "quit", "the end event")
        err = ended(p)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    check("reconnecting..." in err and "reconnected" in err, err)
    s = stats(st)
    check(s["reconnects"] == "1", "stats: %s" % s)


@test
def live_reconnect_ends(tmp):
    """--reconnect in the window with a sender that never comes back: quit
    while reconnecting ends it at once (exit 0) with the HUD saying so on
    the screenshot; with --reconnect-max 1 the input ends (the end event's
    eof, exit 0) about a second after the drop, the reason on stderr."""
    control = control_client()
    url = "udp://127.0.0.1:%d" % free_udp_port()
    shot, st = os.path.join(tmp, "reconnecting.png"), os.path.join(tmp, "stats.txt")
    p, sock = reconnecting_window(tmp, url, "--screenshot", shot, "--stats", st)
    try:
        with control.Control(sock, timeout=60) as c:
            sent(udp_sender(url, 1.5))
            c.wait_event("reconnecting", timeout=30)
            time.sleep(1.2)  # the HUD's seconds count on
            asked = time.monotonic()
            c.quit()
            check(c.wait_event("end", timeout=30)["reason"] == "quit", "the end event")
        ended(p)
        took = time.monotonic() - asked
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    s = stats(st)
    check(s["reconnecting"] == "1" and s["reconnects"] == "0" and int(s["frames_shown"]) > 0,
          "stats: %s" % s)
    check(took < 5, "quit while reconnecting took %.1f s" % took)
    # The figures at the end are honest: no frame shown for over a second
    # is no rate (the HUD's "-"), and the decode time per frame is the
    # decoder's, not its wait for the sender's packets (it read 500 ms).
    check(s["shown_fps"] == "0.00" and float(s["ms_decode"]) < 40,
          "figures while reconnecting: shown %s fps, decode %s ms/frame"
          % (s["shown_fps"], s["ms_decode"]))
    w, h = size(shot)
    check(w > 0 and h > 0, "no screenshot")
    print("  quit while reconnecting: ended in %.2f s; HUD in %s" % (took, shot))
    keep = os.environ.get("CLVID_KEEP_SHOT")
    if keep:
        import shutil
        shutil.copy(shot, keep)

    url = "udp://127.0.0.1:%d" % free_udp_port()
    p, sock = reconnecting_window(tmp, url, "--reconnect-max", "1")
    try:
        with control.Control(sock, timeout=60) as c:
            sent(udp_sender(url, 1.5))
            stopped = time.monotonic()
            c.wait_event("reconnecting", timeout=30)
            check(c.wait_event("end", timeout=30)["reason"] == "eof", "the end event")
        err = ended(p)
        took = time.monotonic() - stopped
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    check("did not come back" in err and url in err, err)
    check(1.0 <= took <= 6, "ended %.2f s after the sender (--reconnect-max 1)" % took)
    print("  --reconnect-max 1: ended %.2f s after the sender" % took)


@test
def devices(tmp):
    """Two devices (PoCL's "pthread pthread") in the window: every frame shown
    in order, dealt to both, the HUD naming both with their shares, and the
    picture after the same frames equal to one device's; a device failing
    mid-run is survived."""
    env = dict(ENV, POCL_DEVICES="pthread pthread")
    env.pop("CLVID_DEVICE", None)
    shots = {}
    for dev in ("0", "all"):
        st = os.path.join(tmp, "stats-%s.txt" % dev)
        shots[dev] = os.path.join(tmp, "shot-%s.png" % dev)
        run([ARGS.clvid, "play", sample(), "-vf", "median,sharpen", "--device", dev, "--untimed",
             "--no-hud", "--exit-after-frames", "40", "--screenshot", shots[dev], "--stats", st],
            env=env)
        s = stats(st)
        check(int(s["frames_shown"]) == 40 and int(s["last_frame"]) == 39,
              "--device %s: shown %s, last frame %s" % (dev, s["frames_shown"], s["last_frame"]))
        if dev == "all":
            shares = [int(x) for x in s["device_frames"].split(",")]
            print("  --device all: frames dealt %s; %s" % (shares, s["device_shares"]))
            check(len(shares) == 2 and min(shares) > 0, "frames dealt %s" % shares)
            check(s["device"].count("#") == 2, "device= %s" % s["device"])
    d = max_diff(rgba(shots["all"]), rgba(shots["0"]), 1280, 0, 1280, 0, 720)
    check(d == 0, "frame 39 on two devices differs from one device by %d levels" % d)
    # The HUD names both devices and their shares.
    shot = os.path.join(tmp, "hud.png")
    st = os.path.join(tmp, "stats-fault.txt")
    p = run([ARGS.clvid, "play", sample(), "-vf", "sharpen", "--device", "all", "--untimed",
             "--exit-after-frames", "30", "--screenshot", shot, "--stats", st],
            env=dict(env, CLVID_FAULT="device1:0"))
    s = stats(st)
    check(int(s["frames_shown"]) == 30 and "FAILED" in s["device_shares"]
          and "device 1" in p.stderr, "fault: %s\n%s" % (s, p.stderr))
    print("  device 1 failing at its first frame: %s" % s["device_shares"])


def start_xvfb():
    """An Xvfb on a free display (-displayfd says which), tried three times:
    two test processes starting theirs at once can race for a number."""
    for attempt in range(3):
        r, w = os.pipe()
        xvfb = subprocess.Popen(["Xvfb", "-displayfd", str(w), "-screen", "0", "1600x1000x24",
                                 "-nolisten", "tcp"], pass_fds=(w,), stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        os.close(w)
        number = b""
        while not number.endswith(b"\n"):
            chunk = os.read(r, 16)
            if not chunk:
                break
            number += chunk
        os.close(r)
        if number.strip().isdigit() and xvfb.poll() is None:
            return xvfb, ":" + number.decode().strip()
        xvfb.kill()
        xvfb.wait()
        time.sleep(0.5 * (attempt + 1))
    raise Failure("Xvfb did not start (three tries)")


def accepts_clients(number, seconds=10):
    """Whether an X client can connect to display `number` within `seconds`
    (True where libX11 cannot be loaded to try). Once, in the ASan phase
    beside another test, clvid play found no display on a server just
    started (SDL fell back to its offscreen driver): the tests wait for a
    connection before they start one."""
    import ctypes
    import ctypes.util
    try:
        x11 = ctypes.CDLL(ctypes.util.find_library("X11") or "libX11.so.6")
    except OSError:
        return True
    x11.XOpenDisplay.restype = ctypes.c_void_p
    x11.XOpenDisplay.argtypes = [ctypes.c_char_p]
    x11.XCloseDisplay.argtypes = [ctypes.c_void_p]
    end = time.time() + seconds
    while time.time() < end:
        dpy = x11.XOpenDisplay(number.encode())
        if dpy:
            x11.XCloseDisplay(dpy)
            return True
        time.sleep(0.1)
    return False


@contextlib.contextmanager
def display():
    """An Xvfb server of the tests' own for the runs, stopped after, once it
    takes clients (a new one where it does not, three tries)."""
    global ENV
    for attempt in range(3):
        xvfb, number = start_xvfb()
        if accepts_clients(number):
            break
        xvfb.kill()
        xvfb.wait()
        if attempt == 2:
            raise Failure("Xvfb %s took no client (three tries)" % number)
    ENV = dict(os.environ, DISPLAY=number, SDL_AUDIODRIVER="dummy")
    try:
        yield
    finally:
        xvfb.terminate()
        xvfb.wait()


def main():
    global ARGS
    ARGS = harness.arguments("--clvid", "--media")
    return harness.main(ARGS, needs=("Xvfb", "ffmpeg", "ffprobe"), around=display,
                        caught=(subprocess.TimeoutExpired,))


if __name__ == "__main__":
    sys.exit(main())
