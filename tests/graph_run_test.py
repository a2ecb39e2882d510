#!/usr/bin/env python3
"""graph_run_test.py - clvid transcode with several inputs (-filter_complex):
frame counts, sound, framesync (eof_action), pixels against clvid's own
one-input runs of the same frames, errors. One test per run, by name
(--list names them), as ctest runs them."""
import math
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Skip, check, probe, run, streams, test  # noqa: E402
import harness  # noqa: E402

ARGS = None


def ffmpeg(*args):
    return run(["ffmpeg", "-v", "error", "-y", *args])


def clvid(*args, expect=0):
    return run([ARGS.clvid, "transcode", "-q", *args], expect=expect)


def clip(tmp, name, size, rate, seconds, sound=False):
    """A small testsrc2 clip (with a sine's sound when asked)."""
    path = os.path.join(tmp, name)
    args = ["-f", "lavfi", "-i", "testsrc2=size=%s:rate=%s:duration=%s" % (size, rate, seconds)]
    if sound:
        args += ["-f", "lavfi", "-i", "sine=frequency=440:duration=%s" % seconds, "-c:a", "aac"]
    ffmpeg(*args, "-c:v", "libx264", "-qp", "0", "-pix_fmt", "yuv420p", path)
    return path


def frames_yuv(path, w, h):
    """The decoded frames of path as (Y, U, V) planes of w x h yuv420p."""
    p = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-fps_mode", "passthrough", "-f",
                        "rawvideo", "-pix_fmt", "yuv420p", "-"], capture_output=True)
    check(p.returncode == 0, "cannot decode %s: %s" % (path, p.stderr.decode()))
    cw, ch = (w + 1) // 2, (h + 1) // 2
    size = w * h + 2 * cw * ch
    data = p.stdout
    check(len(data) % size == 0, "%s: %d bytes, not frames of %dx%d" % (path, len(data), w, h))
    out = []
    for i in range(len(data) // size):
        f = data[i * size:(i + 1) * size]
        out.append((f[:w * h], f[w * h:w * h + cw * ch], f[w * h + cw * ch:]))
    return out


def columns(plane, w, x0, x1):
    """Columns [x0, x1) of a plane w wide."""
    rows = len(plane) // w
    return b"".join(plane[y * w + x0:y * w + x1] for y in range(rows))


def alone(tmp, path, name):
    """path through clvid's stage alone (the same conversions as a graph's
    input: crop of nothing is a filter, so the frames go through RGBA)."""
    out = os.path.join(tmp, name)
    clvid("-i", path, "-vf", "crop=w=iw:h=ih", "-c:v", "ffv1", "-an", "-o", out)
    return out


def frame_count(path):
    return int(streams(probe(path), "video")[0]["nb_read_frames"])


def check_stack(tmp, out, a, b, wa, wb, h, rate_a, rate_b, count_b, frames):
    """out = a beside b: a's frames on the left as they are, on the right
    b's latest frame at or before each of a's times (its last repeated)."""
    w = wa + wb
    got = frames_yuv(out, w, h)
    check(len(got) == frames, "%d frames out, expected %d" % (len(got), frames))
    left = frames_yuv(alone(tmp, a, "a_alone.mkv"), wa, h)
    right = frames_yuv(alone(tmp, b, "b_alone.mkv"), wb, h)
    check(len(right) == count_b, "b: %d frames, expected %d" % (len(right), count_b))
    for k, (y, u, v) in enumerate(got):
        j = min(k * rate_b // rate_a, count_b - 1)  # b's frame at or before t = k / rate_a
        for name, plane, pw, split, want_l, want_r in (
                ("Y", y, w, wa, left[k][0], right[j][0]),
                ("U", u, w // 2, wa // 2, left[k][1], right[j][1]),
                ("V", v, w // 2, wa // 2, left[k][2], right[j][2])):
            check(columns(plane, pw, 0, split) == want_l,
                  "frame %d: %s's left part differs from input 0's frame %d" % (k, name, k))
            check(columns(plane, pw, split, pw) == want_r,
                  "frame %d: %s's right part differs from input 1's frame %d" % (k, name, j))


@test
def stack_keeps_frames_and_sound(tmp):
    """A clip with sound beside a shorter clip of another rate: every frame
    of the first, its sound, and the second's frames by framesync (its last
    repeated after its end, eof_action=repeat)."""
    a = clip(tmp, "a.mp4", "160x96", 25, 2, sound=True)
    b = clip(tmp, "b.mp4", "120x96", 10, 1)
    out = os.path.join(tmp, "out.mkv")
    clvid("-i", a, "-i", b, "-filter_complex", "[0][1]hstack", "-c:v", "ffv1", "-o", out)
    info = probe(out)
    audio = streams(info, "audio")
    check(len(audio) == 1, "the first input's sound is missing")
    check(abs(float(info["format"]["duration"]) - 2.0) < 0.1,
          "duration %s, expected 2 s" % info["format"]["duration"])
    check_stack(tmp, out, a, b, 160, 120, 96, 25, 10, 10, 50)


@test
def stack_eof_actions(tmp):
    """eof_action: shortest=1 (endall) ends with the shorter input; -an
    leaves the sound out; vstack with a labelled output and -map."""
    a = clip(tmp, "a.mp4", "64x48", 25, 2, sound=True)
    b = clip(tmp, "b.mp4", "64x32", 10, 1)
    out = os.path.join(tmp, "short.mkv")
    clvid("-i", a, "-i", b, "-filter_complex", "[0][1]hstack=shortest=1", "-an", "-c:v", "ffv1",
          "-o", out, expect=2)  # heights differ
    out = os.path.join(tmp, "v.mkv")
    clvid("-i", a, "-i", b, "-filter_complex", "[0][1]vstack=shortest=1[out]", "-map", "[out]",
          "-an", "-c:v", "ffv1", "-o", out)
    check(frame_count(out) == 25, "endall: %d frames, expected 25 (input 1 ends at 1 s)"
          % frame_count(out))
    check(not streams(probe(out), "audio"), "-an: sound written")
    out = os.path.join(tmp, "r.mkv")
    clvid("-i", a, "-i", b, "-filter_complex", "[0][1]vstack", "-c:v", "ffv1", "-o", out)
    check(frame_count(out) == 50, "repeat: %d frames, expected 50" % frame_count(out))


@test
def logo_overlay_keeps_frames_and_sound(tmp):
    """A clip with sound and a logo PNG with an alpha ramp,
    [0][1]overlay=W-w-10:10: every frame and the sound kept, the logo in
    its corner, the rest of the frame the clip's own (its planes untouched:
    the overlay blends in Y'CbCr, ffmpeg's default)."""
    a = clip(tmp, "a.mp4", "160x96", 25, 2, sound=True)
    logo = os.path.join(tmp, "logo.png")
    ffmpeg("-f", "lavfi", "-i", "color=c=black:size=40x20,format=rgba,geq=r=255:g=200:b=0:a='255*X/W'",
           "-frames:v", "1", logo)
    out = os.path.join(tmp, "o.mkv")
    p = clvid("-i", a, "-i", logo, "-filter_complex", "[0][1]overlay=W-w-10:10", "-c:v", "ffv1",
              "-o", out, expect=None)
    if p.returncode == 2 and "unknown filter 'overlay'" in p.stderr:
        raise Skip("no overlay filter in this build")
    check(p.returncode == 0, "exit %d: %s" % (p.returncode, p.stderr))
    info = probe(out)
    check(frame_count(out) == 50, "%d frames, expected 50" % frame_count(out))
    audio = streams(info, "audio")
    check(len(audio) == 1 and abs(float(audio[0].get("duration", info["format"]["duration"])) - 2.0)
          < 0.1, "the sound is missing or not 2 s long")
    got = frames_yuv(out, 160, 96)
    # ffmpeg's default overlay (format=yuv420) blends in the clip's planes:
    # outside the logo the frame is the clip's own, byte for byte
    plain = frames_yuv(a, 160, 96)
    for k in (0, 25, 49):
        # Rows above and below the logo (rows 10 to 29, chroma 5 to 14)
        check(got[k][0][:10 * 160] == plain[k][0][:10 * 160] and
              got[k][0][30 * 160:] == plain[k][0][30 * 160:],
              "frame %d: the clip changed above or below the logo" % k)
        check(all(got[k][c][:5 * 80] == plain[k][c][:5 * 80] and
                  got[k][c][15 * 80:] == plain[k][c][15 * 80:] for c in (1, 2)),
              "frame %d: the clip's chroma changed above or below the logo" % k)
        check(got[k][0][10 * 160 + 110:10 * 160 + 150] != plain[k][0][10 * 160 + 110:10 * 160 + 150],
              "frame %d: no logo at its place" % k)


def psnr(a, b):
    """PSNR in dB of two equal-length byte strings (inf when equal)."""
    se = sum((x - y) * (x - y) for x, y in zip(a, b))
    return float("inf") if se == 0 else 10 * math.log10(255 * 255 * len(a) / se)


def rect(plane, pw, x, y, w, h):
    """The bytes of the w x h rectangle at (x, y) of a plane pw wide."""
    return b"".join(plane[r * pw + x:r * pw + x + w] for r in range(y, y + h))


@test
def logo_overlay_ffmpeg_default(tmp):
    """[0][1]overlay=W-w-10:10, ffmpeg's default format=yuv420, against
    ffmpeg on a photo-like clip and a logo with an alpha ramp: outside the
    logo the frames are equal, inside each plane >= 48 dB (the logo's
    RGBA to 4:2:0: swscale's and the stage's, which differ by a code or
    two)."""
    a = os.path.join(tmp, "a.mkv")
    ffmpeg("-f", "lavfi", "-i", "gradients=size=320x180:rate=25:duration=0.12:speed=0.05,"
           "noise=alls=12:allf=t+u,gblur=sigma=1,format=yuv420p", "-c:v", "ffv1", a)
    logo = os.path.join(tmp, "logo.png")
    ffmpeg("-f", "lavfi", "-i", "color=c=black:size=96x40,format=rgba,geq=r='128+100*sin(X/7)'"
           ":g='100+80*cos(Y/5)':b='X*2':a='255*X/W'", "-frames:v", "1", logo)
    g = "[0][1]overlay=W-w-10:10"
    ref, out = os.path.join(tmp, "ref.mkv"), os.path.join(tmp, "out.mkv")
    ffmpeg("-i", a, "-i", logo, "-filter_complex", g, "-c:v", "ffv1", ref)
    p = clvid("-i", a, "-i", logo, "-filter_complex", g, "-c:v", "ffv1", "-o", out, expect=None)
    if p.returncode == 2 and "unknown filter 'overlay'" in p.stderr:
        raise Skip("no overlay filter in this build")
    check(p.returncode == 0, "exit %d: %s" % (p.returncode, p.stderr))
    got, want = frames_yuv(out, 320, 180), frames_yuv(ref, 320, 180)
    check(len(got) == len(want) == 3, "%d frames, ffmpeg's %d" % (len(got), len(want)))
    for k in range(3):
        for c, (pw, ph, x, y, w, h) in enumerate(((320, 180, 214, 10, 96, 40),
                                                   (160, 90, 107, 5, 48, 20),
                                                   (160, 90, 107, 5, 48, 20))):
            g_, w_ = got[k][c], want[k][c]
            check(g_[:y * pw] == w_[:y * pw] and g_[(y + h) * pw:] == w_[(y + h) * pw:] and
                  rect(g_, pw, 0, y, x, h) == rect(w_, pw, 0, y, x, h) and
                  rect(g_, pw, x + w, y, pw - x - w, h) == rect(w_, pw, x + w, y, pw - x - w, h),
                  "frame %d plane %d differs from ffmpeg's outside the logo" % (k, c))
            db = psnr(rect(g_, pw, x, y, w, h), rect(w_, pw, x, y, w, h))
            if k == 0:
                print("plane %s over the logo: %.2f dB" % ("YUV"[c], db))
            check(db >= 48, "frame %d plane %d: %.2f dB against ffmpeg over the logo (want >= 48)"
                  % (k, c, db))


@test
def picture_held(tmp):
    """A picture is one frame, held for the whole clip."""
    a = clip(tmp, "a.mp4", "64x48", 25, 1, sound=True)
    png = os.path.join(tmp, "logo.png")
    ffmpeg("-f", "lavfi", "-i", "testsrc=size=32x48", "-frames:v", "1", png)
    out = os.path.join(tmp, "p.mkv")
    clvid("-i", a, "-i", png, "-filter_complex", "[0][1]hstack", "-c:v", "ffv1", "-o", out)
    check(frame_count(out) == 25, "%d frames, expected 25" % frame_count(out))
    got = frames_yuv(out, 96, 48)
    check(all(columns(f[0], 96, 64, 96) == columns(got[0][0], 96, 64, 96) for f in got),
          "the picture's part changes")


@test
def one_chain_graph_is_vf(tmp):
    """A graph that is one chain over input 0 is -vf, byte for byte."""
    a = clip(tmp, "a.mp4", "64x48", 25, 1)
    g, v = os.path.join(tmp, "g.mkv"), os.path.join(tmp, "v.mkv")
    clvid("-i", a, "-filter_complex", "[0]sharpen,median", "-c:v", "ffv1", "-o", g)
    clvid("-i", a, "-vf", "sharpen,median", "-c:v", "ffv1", "-o", v)
    check(frames_yuv(g, 64, 48) == frames_yuv(v, 64, 48), "the graph's frames differ from -vf's")


def frames_raw(path, pix_fmt):
    """The decoded frames of path as one bytes object in pix_fmt."""
    p = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-fps_mode", "passthrough", "-f",
                        "rawvideo", "-pix_fmt", pix_fmt, "-"], capture_output=True)
    check(p.returncode == 0, "cannot decode %s: %s" % (path, p.stderr.decode()))
    return p.stdout


@test
def deep_graph(tmp):
    """A 10-bit clip beside an 8-bit clip and beside an RGBA picture: the
    graph runs at 16 bits, the output is 10-bit and its left part equals
    the clip's own one-input run at 16 bits (an 8-bit graph loses the low
    bits)."""
    a = os.path.join(tmp, "a10.mkv")
    ffmpeg("-f", "lavfi", "-i", "testsrc2=size=64x48:rate=10:duration=1", "-pix_fmt",
           "yuv420p10le", "-c:v", "ffv1", a)
    b = clip(tmp, "b.mp4", "32x48", 10, 1)
    logo = os.path.join(tmp, "logo.png")
    ffmpeg("-f", "lavfi", "-i", "color=c=red@0.5:size=16x48,format=rgba", "-frames:v", "1", logo)
    plain = frames_raw(alone(tmp, a, "a_alone.mkv"), "yuv420p10le")
    w, h = 64, 48
    fa = w * h * 3
    check(len(plain) == 10 * fa, "the clip alone: %d bytes, expected 10 frames" % len(plain))
    for other, ow in ((b, 32), (logo, 16)):
        out = os.path.join(tmp, "o.mkv")
        clvid("-i", a, "-i", other, "-filter_complex", "[0][1]hstack", "-c:v", "ffv1", "-y",
              "-o", out)
        check(streams(probe(out), "video")[0]["pix_fmt"] == "yuv420p10le",
              "%s: the output is not 10-bit" % other)
        got = frames_raw(out, "yuv420p10le")
        W = w + ow
        fo = W * h * 3
        check(len(got) == 10 * fo, "%s: %d bytes, expected 10 frames" % (other, len(got)))
        for k in range(10):
            for y in range(h):
                check(got[k * fo + y * W * 2:k * fo + y * W * 2 + w * 2]
                      == plain[k * fa + y * w * 2:k * fa + (y + 1) * w * 2],
                      "%s: frame %d row %d of the 10-bit clip differs from its own run at 16 "
                      "bits" % (other, k, y))


def rgb_clip(tmp, name, source, seconds, sound=None):
    """An RGB (bgra ffv1) clip of 64x48 at 25 fps: nothing lost between
    it, clvid's stage and ffmpeg's filters (with a sine of `sound` Hz)."""
    path = os.path.join(tmp, name)
    args = ["-f", "lavfi", "-i", "%s=size=64x48:rate=25:duration=%s" % (source, seconds)]
    if sound:
        args += ["-f", "lavfi", "-i", "sine=frequency=%d:duration=%s" % (sound, seconds),
                 "-c:a", "flac"]
    ffmpeg(*args, "-pix_fmt", "bgra", "-c:v", "ffv1", path)
    return path


def pts_times(path):
    p = run(["ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "frame=pts_time",
             "-of", "csv=p=0", path])
    return [round(float(x), 3) for x in p.stdout.split()]


@test
def xfade_handover(tmp):
    """xfade hands over to its second input: the output's frames and
    timestamps are ffmpeg's (offset + the second input's length), and
    every frame equals ffmpeg's (fade, circleopen, wipeleft: at progress 0
    too, where wipeleft keeps input 0's first column); input 0's sound is
    kept whole."""
    a = rgb_clip(tmp, "a.mkv", "testsrc2", 2, sound=440)
    b = rgb_clip(tmp, "b.mkv", "testsrc", 1.6)
    fs = 64 * 48 * 4
    for transition in ("fade", "circleopen", "wipeleft"):
        g = "[0][1]xfade=transition=%s:duration=0.4:offset=1" % transition
        ref, out = os.path.join(tmp, "ref.mkv"), os.path.join(tmp, "out.mkv")
        ffmpeg("-i", a, "-i", b, "-filter_complex", g, "-an", "-c:v", "ffv1", "-pix_fmt", "bgra",
               ref)
        p = clvid("-i", a, "-i", b, "-filter_complex", g, "-c:v", "ffv1", "-y", "-o", out,
                  expect=None)
        if p.returncode == 2 and "unknown filter 'xfade'" in p.stderr:
            raise Skip("no xfade filter in this build")
        check(p.returncode == 0, "exit %d: %s" % (p.returncode, p.stderr))
        want, got = frames_raw(ref, "rgba"), frames_raw(out, "rgba")
        check(len(want) == 65 * fs, "ffmpeg made %d frames, expected 65" % (len(want) // fs))
        check(len(got) == len(want), "%s: %d frames, ffmpeg's %d" % (transition, len(got) // fs,
                                                                     len(want) // fs))
        tw, tg = pts_times(ref), pts_times(out)
        check([round(x - tg[0], 3) for x in tg] == tw,
              "%s: the timestamps differ from ffmpeg's: %s ... %s" % (transition, tg[:3], tg[-3:]))
        for k in range(65):
            check(got[k * fs:(k + 1) * fs] == want[k * fs:(k + 1) * fs],
                  "%s: frame %d differs from ffmpeg's" % (transition, k))
        audio = streams(probe(out), "audio")
        check(len(audio) == 1, "%s: input 0's sound is missing" % transition)
    out = os.path.join(tmp, "swap.mkv")
    p = clvid("-i", a, "-i", b, "-filter_complex", "[1][0]xfade=duration=0.4:offset=1", "-c:v",
              "ffv1", "-o", out, expect=2)
    check("input 1" in p.stderr and not os.path.exists(out),
          "[1][0]xfade: expected a usage error naming input 1: %s" % p.stderr)


def late_clip(tmp, name, source, seconds, late, sound):
    """An RGB clip whose video starts `late` seconds after its sound (as an
    MPEG-TS's or an edited mp4's may): its first frame's time is not 0."""
    path = os.path.join(tmp, name)
    ffmpeg("-f", "lavfi", "-i", "sine=frequency=%d:duration=%s" % (sound, seconds + late),
           "-itsoffset", str(late), "-f", "lavfi",
           "-i", "%s=size=64x48:rate=25:duration=%s" % (source, seconds), "-map", "1:v", "-map",
           "0:a", "-pix_fmt", "bgra", "-c:v", "ffv1", "-c:a", "flac", path)
    return path


@test
def xfade_late_start(tmp):
    """Inputs whose first frames are not at 0 (0.4 s and 0.2 s after their
    sound): xfade's offset counts from input 0's first frame and its second
    input's frames from its own first, as ffmpeg's; overlay's t stays the
    frame's time. Frames, timestamps and pixels equal to ffmpeg's."""
    a = late_clip(tmp, "a.mkv", "testsrc2", 2, 0.4, 440)
    b = late_clip(tmp, "b.mkv", "testsrc", 1.6, 0.2, 660)
    logo = os.path.join(tmp, "logo.png")
    ffmpeg("-f", "lavfi", "-i", "color=c=red@0.5:size=16x12,format=rgba", "-frames:v", "1", logo)
    fs = 64 * 48 * 4
    for second, g in ((b, "[0][1]xfade=transition=wipeleft:duration=0.4:offset=1"),
                      (logo, "[0][1]overlay=x=t*20:y=n:format=rgb")):
        ref, out = os.path.join(tmp, "ref.mkv"), os.path.join(tmp, "out.mkv")
        ffmpeg("-i", a, "-i", second, "-filter_complex", g, "-an", "-c:v", "ffv1", "-pix_fmt",
               "bgra", ref)
        p = clvid("-i", a, "-i", second, "-filter_complex", g, "-an", "-c:v", "ffv1", "-y", "-o",
                  out, expect=None)
        if p.returncode == 2 and "unknown filter" in p.stderr:
            raise Skip("no such filter in this build: %s" % g)
        check(p.returncode == 0, "exit %d: %s" % (p.returncode, p.stderr))
        want, got = frames_raw(ref, "rgba"), frames_raw(out, "rgba")
        check(len(got) == len(want), "%s: %d frames, ffmpeg's %d" % (g, len(got) // fs,
                                                                    len(want) // fs))
        check(pts_times(out) == pts_times(ref), "%s: the timestamps differ from ffmpeg's: %s, %s"
              % (g, pts_times(out)[:3], pts_times(ref)[:3]))
        for k in range(len(want) // fs):
            check(got[k * fs:(k + 1) * fs] == want[k * fs:(k + 1) * fs],
                  "%s: frame %d differs from ffmpeg's" % (g, k))


def sound_seconds(path):
    """The seconds of sound path's sound stream decodes to."""
    p = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-map", "0:a", "-ac", "1", "-ar",
                        "8000", "-f", "s16le", "-"], capture_output=True)
    check(p.returncode == 0 and p.stdout, "%s: no sound" % path)
    return len(p.stdout) / 2 / 8000


@test
def sound_of_another_input(tmp):
    """-map 1:a keeps input 1's sound (3 s of it, where input 0's is 2 s)
    and every frame of the graph; -map 1:a of an input with no sound is a
    usage error naming it, -map 1:a? writes no sound."""
    a = clip(tmp, "a.mp4", "64x48", 25, 2, sound=True)
    b = os.path.join(tmp, "b.mp4")
    ffmpeg("-f", "lavfi", "-i", "testsrc=size=32x48:rate=25:duration=1", "-f", "lavfi", "-i",
           "sine=frequency=1000:duration=3", "-c:v", "libx264", "-qp", "0", "-pix_fmt", "yuv420p",
           "-c:a", "aac", b)
    silent = clip(tmp, "s.mp4", "32x48", 25, 1)
    out = os.path.join(tmp, "o.mkv")
    clvid("-i", a, "-i", b, "-filter_complex", "[0][1]hstack", "-map", "1:a", "-c:v", "ffv1",
          "-o", out)
    check(frame_count(out) == 50, "%d frames, expected 50" % frame_count(out))
    check(len(streams(probe(out), "audio")) == 1, "no sound")
    check(abs(sound_seconds(out) - 3.0) < 0.1,
          "the sound is %.2f s long: not input 1's 3 s" % sound_seconds(out))
    plain = os.path.join(tmp, "p.mkv")
    clvid("-i", a, "-i", b, "-filter_complex", "[0][1]hstack", "-c:v", "ffv1", "-o", plain)
    check(abs(sound_seconds(plain) - 2.0) < 0.1,
          "default: the sound is %.2f s long: not input 0's 2 s" % sound_seconds(plain))
    out2 = os.path.join(tmp, "none.mkv")
    p = clvid("-i", a, "-i", silent, "-filter_complex", "[0][1]hstack", "-map", "1:a", "-c:v",
              "ffv1", "-o", out2, expect=2)
    check("has no sound" in p.stderr and "input 1" in p.stderr and not os.path.exists(out2),
          "-map 1:a of a clip with no sound: %s" % p.stderr)
    clvid("-i", a, "-i", silent, "-filter_complex", "[0][1]hstack", "-map", "1:a?", "-c:v",
          "ffv1", "-o", out2)
    check(not streams(probe(out2), "audio") and frame_count(out2) == 50,
          "-map 1:a?: sound written or frames lost")


@test
def graph_errors(tmp):
    """Usage errors: exit 2 and a message naming the fault."""
    a = clip(tmp, "a.mp4", "64x48", 25, 1)
    b = clip(tmp, "b.mp4", "64x32", 25, 1)
    out = os.path.join(tmp, "o.mkv")
    cases = [
        (["-i", a, "-i", a, "-filter_complex", "[0][1]hstack[x]", "-map", "[nope]"], "nope"),
        (["-i", a, "-filter_complex", "[0][3]hstack"], "3"),
        (["-i", a, "-i", b, "-filter_complex", "[0][1]hstack"], "hstack"),
        (["-i", a, "-i", a, "-vf", "median", "-filter_complex", "[0][1]hstack"], "-vf"),
        (["-i", a, "-i", a], "-filter_complex"),
        (["-i", a, "-i", a, "-filter_complex", "[0][1]hstack", "-map", "5:a"], "5"),
    ]
    # -filter_complex_script: what failed is said (a directory is not "too
    # long"); an empty graph is called empty.
    scripts = {}
    for name, text in (("empty.txt", ""), ("at-limit.txt", "[0][1]hstack".ljust(65535)),
                       ("over.txt", "[0][1]hstack".ljust(65536))):
        scripts[name] = os.path.join(tmp, name)
        with open(scripts[name], "w") as f:
            f.write(text)
    cases += [
        (["-i", a, "-i", a, "-filter_complex", ""], "the graph is empty"),
        (["-i", a, "-i", a, "-filter_complex_script", scripts["empty.txt"]], "the graph is empty"),
        (["-i", a, "-i", a, "-filter_complex_script", tmp], "cannot read it: Is a directory"),
        (["-i", a, "-i", a, "-filter_complex_script", scripts["over.txt"]], "over 65535 bytes"),
    ]
    for args, word in cases:
        p = clvid(*args, "-o", out, "-y", expect=2)
        check(word in p.stderr, "%s: the message does not name %r:\n%s" % (args, word, p.stderr))
    check(not os.path.exists(out), "an output was written")
    # A script at the limit runs (a leak-checking build also checks that
    # its text is freed).
    clvid("-i", a, "-i", a, "-filter_complex_script", scripts["at-limit.txt"], "-o", out)
    check(frame_count(out) == 25, "the script's run: %d frames" % frame_count(out))


def main():
    global ARGS
    ARGS = harness.arguments("--clvid", "--media")
    return harness.main(ARGS)


if __name__ == "__main__":
    sys.exit(main())
