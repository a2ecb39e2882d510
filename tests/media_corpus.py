#!/usr/bin/env python3
"""media_corpus.py - the files people have, made here with ffmpeg (no
downloads), each through clvid transcode and judged with ffprobe and pixels:
sound the output cannot copy, start offsets, containers and their time
bases, phone rotation, EXIF orientation, container aspect, still images,
alpha, pipes, command-line words, covers, and the next cases a video person
meets (yuvj, 4:4:4, gray, 16-bit PNG, 10-bit HDR, interlaced, B-frames, many
tracks, a cut that starts on a non-keyframe, a corrupt middle). One test per
run, by name (--list names them), as ctest runs them."""
import os
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Failure, check, probe, streams, test  # noqa: E402
import harness  # noqa: E402

ARGS = None


def run(cmd, expect=0, stdin=None, **kw):
    """harness.run with bytes out (pictures and raw frames come back)."""
    return harness.run(cmd, expect, text=False, stdin=stdin, **kw)


def ffmpeg(*args):
    run(["ffmpeg", "-v", "error", "-y", *args])


def clvid(*args, expect=0, stdin=None, quiet=True):
    p = run([ARGS.clvid, "transcode", *(["-q"] if quiet else []), *args], expect=expect,
            stdin=stdin)
    return p.stderr.decode(errors="replace")


def video(info):
    v = [s for s in streams(info, "video") if not s.get("disposition", {}).get("attached_pic")]
    check(v, "no video stream")
    return v[0]


def seconds(s, key):
    v = s.get(key)
    return float(v) if v not in (None, "N/A") else None


def psnr(a, b, extra=""):
    """Average PSNR of two videos' first streams (inf when equal)."""
    p = run(["ffmpeg", "-v", "info", "-i", a, "-i", b, "-lavfi", "psnr", "-f", "null", "-"])
    line = [l for l in p.stderr.decode().splitlines() if "average:" in l]
    check(line, "no PSNR line")
    v = line[-1].split("average:")[1].split()[0]
    return float("inf") if v == "inf" else float(v)


def clip(path, seconds_=2, size="320x240", rate=25, audio=None, vcodec="libx264", extra=()):
    """A test picture with an optional 440 Hz tone in codec `audio`."""
    args = ["-f", "lavfi", "-i", "testsrc2=size=%s:rate=%d:duration=%g" % (size, rate, seconds_)]
    if audio:
        args += ["-f", "lavfi", "-i", "sine=frequency=440:duration=%g" % seconds_]
    args += ["-c:v", vcodec]
    if vcodec == "libx264":
        args += ["-pix_fmt", "yuv420p"]
    if audio:
        args += ["-c:a", audio]
        if audio in ("truehd", "opus", "vorbis"):
            args += ["-strict", "-2"]
    ffmpeg(*args, *extra, path)
    return path


def sample():
    return os.path.join(ARGS.media, "sample.mp4")


# ---- 1, 2: sound ----------------------------------------------------------

@test
def sound_recoded(tmp):
    """Sound the output cannot copy (or plays poorly from) is encoded to the
    container's own codec, said in one line; the sound lasts as the video."""
    cases = [("flac", "mkv", "mp4", "aac"), ("truehd", "mkv", "mp4", "aac"),
             ("libopus", "webm", "mov", "aac"), ("libvorbis", "mkv", "mp4", "aac"),
             ("aac", "mp4", "webm", "opus"), ("aac", "mp4", "ogv", "vorbis"),
             ("aac", "mp4", "mxf", "pcm_s16le"), ("flac", "mkv", "mkv", "flac")]
    for acodec, inext, outext, want in cases:
        src = clip(os.path.join(tmp, "in_%s.%s" % (acodec, inext)), audio=acodec,
                   vcodec="libvpx-vp9" if inext == "webm" else "libx264")
        out = os.path.join(tmp, "out.%s" % outext)
        err = clvid("-i", src, "-vf", "sharpen", "-o", out, "-y", quiet=False)
        info = probe(out)
        a = streams(info, "audio")
        check(len(a) == 1 and a[0]["codec_name"] == want,
              "%s in %s -> %s: sound %s, expected %s" % (acodec, inext, outext,
                                                        [s["codec_name"] for s in a], want))
        if want != acodec.replace("lib", ""):
            check("encoded to" in err, "%s -> %s: no line says the sound was encoded: %r"
                  % (acodec, outext, err))
        dur = seconds(a[0], "duration") or float(info["format"]["duration"])
        check(abs(dur - 2.0) < 0.15, "%s -> %s: sound lasts %.3f s, not 2" % (acodec, outext, dur))
        print("  %s in .%s -> .%s: %s, %.3f s" % (acodec, inext, outext, want, dur))


@test
def sound_choices(tmp):
    """-c:a copy copies or fails naming why; -c:a NAME encodes; a bad name is
    refused; no output is left behind by a refusal."""
    src = clip(os.path.join(tmp, "in.mkv"), audio="flac")
    out = os.path.join(tmp, "out.mp4")
    err = clvid("-i", src, "-c:a", "copy", "-o", out, expect=1)
    check("copy" in err and "flac" in err and "mp4" in err, "message: %r" % err)
    check(not os.path.exists(out), "a refused run left %s" % out)
    clvid("-i", src, "-c:a", "libopus", "-o", os.path.join(tmp, "o.mkv"))
    check(streams(probe(os.path.join(tmp, "o.mkv")), "audio")[0]["codec_name"] == "opus",
          "-c:a libopus")
    clvid("-i", src, "-c:a", "copy", "-o", os.path.join(tmp, "c.mkv"))
    check(streams(probe(os.path.join(tmp, "c.mkv")), "audio")[0]["codec_name"] == "flac",
          "-c:a copy into mkv")
    err = clvid("-i", src, "-c:a", "nosuchcodec", "-o", out, expect=2)
    check("-c:a nosuchcodec" in err, "message: %r" % err)


@test
def sound_offset(tmp):
    """Sound that starts 1 s after the video keeps its start, copied or
    encoded."""
    src = os.path.join(tmp, "late.mov")
    ffmpeg("-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=3", "-f", "lavfi", "-i",
           "sine=frequency=440:duration=2", "-filter_complex", "[1:a]asetpts=PTS+1/TB[a]",
           "-map", "0:v", "-map", "[a]", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a",
           "pcm_s16le", src)
    want = seconds(streams(probe(src), "audio")[0], "start_time")
    check(want is not None and want > 0.9, "the test clip's sound starts at %s" % want)
    for ext in ("mp4", "mkv", "mov"):
        out = os.path.join(tmp, "out." + ext)
        clvid("-i", src, "-vf", "gray", "-o", out, "-y")
        a = streams(probe(out), "audio")[0]
        got = seconds(a, "start_time")
        check(got is not None and abs(got - want) < 0.05,
              ".%s (%s): sound starts at %s, the input's at %.3f" % (ext, a["codec_name"], got, want))
        print("  .%s (%s): sound starts at %.3f s" % (ext, a["codec_name"], got))


# ---- 3: containers and time bases ----------------------------------------

@test
def containers(tmp):
    """Every common container: all 50 frames, 25 fps as written, sound kept
    (encoded where it must be), the file decodes cleanly."""
    src = clip(os.path.join(tmp, "in.mkv"), audio="aac")
    for ext in ("ts", "m2ts", "mpg", "mxf", "avi", "ogv", "y4m", "flv", "webm", "mov", "mkv", "mp4",
                "nut"):
        out = os.path.join(tmp, "out." + ext)
        clvid("-i", src, "-vf", "sharpen", "-o", out, "-y")
        info = probe(out)
        v = video(info)
        frames = int(v.get("nb_read_frames", 0))
        rate = v["r_frame_rate"]
        check(frames == 50, ".%s: %d frames, expected 50" % (ext, frames))
        check(rate in ("25/1", "50/2"), ".%s: frame rate %s, expected 25/1" % (ext, rate))
        if ext != "y4m":
            check(len(streams(info, "audio")) == 1, ".%s: no sound" % ext)
        p = run(["ffmpeg", "-v", "error", "-i", out, "-f", "null", "-"])
        check(not p.stderr.strip(), ".%s does not decode cleanly: %s" % (ext, p.stderr[:300]))
        print("  .%s: %s %d frames at %s, sound %s" % (
            ext, v["codec_name"], frames, rate,
            ",".join(s["codec_name"] for s in streams(info, "audio")) or "-"))


# ---- 4: orientation -------------------------------------------------------

JUDGE_709 = "scale=in_color_matrix=bt709:out_color_matrix=bt709:flags=accurate_rnd+full_chroma_int"


@test
def rotation(tmp):
    """A phone video (display matrix 90/180/270) comes out upright in every
    container, filtered after turning, as ffmpeg's autorotate then the same
    filter: PSNR >= 35 dB; --no-autorotate keeps it as stored."""
    base = os.path.join(tmp, "base.mp4")
    ffmpeg("-i", sample(), "-t", "1", "-an", "-c", "copy", base)
    kernel = "-2 -1 0 -1 1 1 0 1 2"
    for angle in (90, 180, 270):
        src = os.path.join(tmp, "rot%d.mp4" % angle)
        ffmpeg("-i", base, "-c", "copy", "-metadata:s:v:0", "rotate=%d" % angle, src)
        ref = os.path.join(tmp, "ref%d.mkv" % angle)
        ffmpeg("-i", src, "-vf", "%s,format=gbrp,convolution='%s:%s:%s:0 0 0 0 1 0 0 0 0',%s,"
               "format=yuv420p" % (JUDGE_709, kernel, kernel, kernel, JUDGE_709), "-c:v", "ffv1",
               ref)
        # webm (VP9, slow to encode) for one angle: the containers' part
        # does not depend on it.
        for ext in ("mkv", "mp4", "webm") if angle == 90 else ("mkv", "mp4"):
            out = os.path.join(tmp, "out%d.%s" % (angle, ext))
            clvid("-i", src, "-vf", "emboss", "-o", out, "-y",
                  *(["-c:v", "ffv1"] if ext == "mkv" else []))
            v = video(probe(out))
            want = (720, 1280) if angle != 180 else (1280, 720)
            check((v["width"], v["height"]) == want,
                  "%d -> .%s: %dx%d, expected %dx%d" % (angle, ext, v["width"], v["height"], *want))
            check(not v.get("side_data_list"), "%d -> .%s: rotation tag kept on upright frames"
                  % (angle, ext))
            if ext == "mkv":
                db = psnr(out, ref)
                check(db >= 35, "%d: PSNR %.2f dB against ffmpeg's autorotate + emboss" % (angle, db))
                print("  %d degrees: %dx%d, %.2f dB against ffmpeg" % (angle, *want, db))
    out = os.path.join(tmp, "kept.mp4")
    clvid("-i", os.path.join(tmp, "rot90.mp4"), "--no-autorotate", "-o", out)
    v = video(probe(out))
    check((v["width"], v["height"]) == (1280, 720), "--no-autorotate turned the frames")
    check(any(d.get("rotation") in (-90, 90, 270) for d in v.get("side_data_list", [])),
          "--no-autorotate dropped the tag: %s" % v.get("side_data_list"))


def exif_jpeg(path, jpeg, orientation):
    """A copy of jpeg with an APP1 Exif segment holding Orientation."""
    data = open(jpeg, "rb").read()
    tiff = b"II*\x00" + struct.pack("<I", 8) + struct.pack("<H", 1) + \
        struct.pack("<HHIHH", 0x0112, 3, 1, orientation, 0) + struct.pack("<I", 0)
    app1 = b"Exif\x00\x00" + tiff
    seg = b"\xff\xe1" + struct.pack(">H", len(app1) + 2) + app1
    open(path, "wb").write(data[:2] + seg + data[2:])


@test
def exif_orientation(tmp):
    """A JPEG photo with EXIF orientation 6 (and 3, 8, 5) comes out as viewers
    show it: the same pixels as ffmpeg's transpose of the plain picture."""
    plain = os.path.join(tmp, "plain.jpg")
    ffmpeg("-f", "lavfi", "-i", "testsrc2=size=96x64", "-frames:v", "1", "-q:v", "2", plain)
    flat = os.path.join(tmp, "flat.png")
    clvid("-i", plain, "-o", flat)
    for tag, vf in ((6, "transpose=clock"), (3, "hflip,vflip"), (8, "transpose=cclock"),
                    (5, "transpose=cclock_flip"), (2, "hflip")):
        src = os.path.join(tmp, "o%d.jpg" % tag)
        exif_jpeg(src, plain, tag)
        out = os.path.join(tmp, "o%d.png" % tag)
        clvid("-i", src, "-o", out, "-y")
        ref = os.path.join(tmp, "r%d.png" % tag)
        ffmpeg("-i", flat, "-vf", vf, ref)
        got = run(["ffmpeg", "-v", "error", "-i", out, "-f", "rawvideo", "-pix_fmt", "rgba", "-"]).stdout
        want = run(["ffmpeg", "-v", "error", "-i", ref, "-f", "rawvideo", "-pix_fmt", "rgba", "-"]).stdout
        check(got == want, "EXIF orientation %d: not the picture %s gives" % (tag, vf))
    print("  EXIF orientations 6, 3, 8, 5, 2: exact")


# ---- 5: aspect ---------------------------------------------------------------

@test
def aspect(tmp):
    """A 720x576 clip whose container says 16:9 stays 16:9; -aspect sets it."""
    src = os.path.join(tmp, "pal.mkv")
    ffmpeg("-f", "lavfi", "-i", "testsrc2=size=720x576:rate=25:duration=1", "-c:v", "libx264",
           "-pix_fmt", "yuv420p", "-aspect", "16:9", src)
    for ext in ("mkv", "mp4", "mov"):
        out = os.path.join(tmp, "out." + ext)
        clvid("-i", src, "-vf", "sharpen", "-o", out, "-y")
        v = video(probe(out))
        check(v.get("display_aspect_ratio") == "16:9", ".%s: DAR %s, expected 16:9"
              % (ext, v.get("display_aspect_ratio")))
    out = os.path.join(tmp, "four.mkv")
    clvid("-i", src, "-aspect", "4:3", "-o", out)
    check(video(probe(out)).get("display_aspect_ratio") == "4:3", "-aspect 4:3 not applied")
    clvid("-i", src, "-aspect", "wide", "-o", out, "-y", expect=2)


# ---- 6: still images -----------------------------------------------------------

@test
def images(tmp):
    """The image encoder follows the extension; alpha passes through for
    every input that has it (RGBA, gray + alpha, yuva)."""
    src = os.path.join(tmp, "in.png")
    ffmpeg("-f", "lavfi", "-i", "testsrc2=size=64x48,format=rgba", "-frames:v", "1", src)
    for ext, codec in (("jpg", "mjpeg"), ("bmp", "bmp"), ("tiff", "tiff"), ("webp", "webp"),
                       ("apng", "apng"), ("png", "png")):
        out = os.path.join(tmp, "out." + ext)
        clvid("-i", src, "-vf", "sharpen", "-o", out, "-y")
        got = probe(out)["streams"][0]["codec_name"]
        check(got == codec or (ext == "apng" and got == "png"),
              ".%s written as %s, expected %s" % (ext, got, codec))
    for fmt in ("ya8", "rgba", "yuva420p"):
        src = os.path.join(tmp, "a_%s.%s" % (fmt, "png" if fmt != "yuva420p" else "mkv"))
        alpha = "testsrc2=size=64x48,format=rgba,geq=r='r(X,Y)':g='g(X,Y)':b='b(X,Y)':a='X*4'"
        if fmt == "yuva420p":
            ffmpeg("-f", "lavfi", "-i", alpha + ",format=yuva420p", "-frames:v", "3", "-c:v",
                   "ffv1", src)
        else:
            ffmpeg("-f", "lavfi", "-i", alpha + ",format=" + fmt, "-frames:v", "1", src)
        out = os.path.join(tmp, "a_%s_out.png" % fmt)
        clvid("-i", src, "-vf", "gray", "-o", out, "-y", "--frames", "1")
        # Alpha as ffmpeg decodes each to RGBA (its alphaextract shifts ya8).
        a_in = run(["ffmpeg", "-v", "error", "-i", src, "-frames:v", "1", "-f", "rawvideo",
                    "-pix_fmt", "rgba", "-"]).stdout[3::4]
        a_out = run(["ffmpeg", "-v", "error", "-i", out, "-f", "rawvideo", "-pix_fmt", "rgba",
                     "-"]).stdout[3::4]
        check(len(set(a_in)) > 10, "%s: the test picture has no alpha ramp" % fmt)
        check(a_in == a_out, "%s: alpha lost or changed" % fmt)
    print("  jpg bmp tiff webp apng png by extension; alpha kept from ya8, rgba, yuva420p")


# ---- 7: pipes --------------------------------------------------------------------

@test
def pipes(tmp):
    """-i - reads standard input; -o - with -f after -i writes standard
    output; two clvids in a pipe; -o - without a format is a clear error."""
    src = clip(os.path.join(tmp, "in.mkv"), audio="flac")
    with open(src, "rb") as f:
        clvid("-i", "-", "-vf", "gray", "-o", os.path.join(tmp, "a.mkv"), stdin=f)
    check(int(video(probe(os.path.join(tmp, "a.mkv")))["nb_read_frames"]) == 50, "stdin: frames")
    p = run([ARGS.clvid, "transcode", "-q", "-i", src, "-vf", "sharpen", "-f", "nut", "-o", "-"])
    open(os.path.join(tmp, "b.nut"), "wb").write(p.stdout)
    info = probe(os.path.join(tmp, "b.nut"))
    check(int(video(info)["nb_read_frames"]) == 50 and streams(info, "audio"), "stdout: %s" % info)
    first = subprocess.Popen([ARGS.clvid, "transcode", "-q", "-i", src, "-vf", "gray", "-f",
                              "matroska", "-o", "-"], stdout=subprocess.PIPE)
    run([ARGS.clvid, "transcode", "-q", "-i", "-", "-vf", "sharpen", "-o",
         os.path.join(tmp, "c.mp4")], stdin=first.stdout)
    first.wait()
    check(first.returncode == 0, "the first clvid of the pipe failed")
    check(int(video(probe(os.path.join(tmp, "c.mp4")))["nb_read_frames"]) == 50, "pipe: frames")
    err = clvid("-i", src, "-o", "-", expect=1)
    check("-f" in err, "-o - without -f: %r" % err)


# ---- 8: words ------------------------------------------------------------------------

@test
def words(tmp):
    """Mistakes on the command line are named, with the nearest right word."""
    def cli(*args, expect):
        p = run([ARGS.clvid, *args], expect=expect)
        return (p.stdout + p.stderr).decode()
    out = cli("transcode", "--hepl", expect=2)
    check("unknown option --hepl" in out and "did you mean --help" in out, out)
    out = cli("transcode", "-i", sample(), "out.mp4", expect=2)
    check("give the output with -o" in out, out)
    out = cli("trancode", expect=2)
    check("did you mean transcode" in out, out)
    out = cli("play", "--fullscren", expect=2)
    check("did you mean --fullscreen" in out, out)
    # An encoder's option without a recording has nothing to act on.
    for word, value in (("-r", "10"), ("-crf", "20")):
        out = cli("play", sample(), word, value, expect=2)
        check(f"{word} is an output option" in out and "-o OUTPUT" in out, out)
        out = cli("webcam", "-f", "lavfi", "testsrc2=size=64x48", word, value, expect=2)
        check(f"{word} is an output option" in out, out)
    out = cli("--version", expect=0)
    check("clvid " in out and "libavcodec" in out and "OpenCL" in out, out)
    out = cli("-version", expect=0)
    # play --live --no-window records headless, like webcam --no-window.
    rec = os.path.join(tmp, "rec.mkv")
    cli("play", "--live", "--no-window", "-f", "lavfi", "testsrc2=size=160x120:rate=25",
        "--exit-after-frames", "10", "-vf", "gray", "-o", rec, expect=0)
    check(int(video(probe(rec))["nb_read_frames"]) == 10, "headless play recorded no 10 frames")
    out = cli("play", sample(), "--no-window", "-o", rec, expect=2)
    check("live" in out, out)


# ---- 9: odd inputs with one right answer ------------------------------------

@test
def cover_art(tmp):
    """A song with a cover keeps its sound and carries the filtered picture
    as its cover; an image output gets the picture."""
    cover = os.path.join(tmp, "cover.jpg")
    ffmpeg("-f", "lavfi", "-i", "testsrc2=size=64x64", "-frames:v", "1", cover)
    song = os.path.join(tmp, "song.mp3")
    ffmpeg("-f", "lavfi", "-i", "sine=frequency=440:duration=3", "-i", cover, "-map", "0",
           "-map", "1", "-c:a", "libmp3lame", "-c:v", "copy", "-disposition:v", "attached_pic",
           song)
    for ext in ("mp4", "m4a", "mp3"):
        out = os.path.join(tmp, "out." + ext)
        err = clvid("-i", song, "-vf", "sharpen", "-o", out, "-y")
        check("MB rate" not in err and "non-strictly" not in err, "encoder warnings: %s" % err)
        info = probe(out)
        pics = [s for s in info["streams"] if s.get("disposition", {}).get("attached_pic")]
        check(len(pics) == 1, ".%s: no cover: %s" % (ext, [s["codec_name"] for s in info["streams"]]))
        a = streams(info, "audio")
        check(len(a) == 1 and abs(float(info["format"]["duration"]) - 3.0) < 0.2,
              ".%s: sound %s, %s s" % (ext, a, info["format"]["duration"]))
    out = os.path.join(tmp, "cover.png")
    clvid("-i", song, "-vf", "sharpen", "-o", out)
    check(probe(out)["streams"][0]["width"] == 64, "the cover as an image")


@test
def disposition_and_cache(tmp):
    """The video's default flag reaches mkv; an unwritable kernel cache is one
    warning naming it, and the run still works (on PoCL with its own cache
    off: else clvid keeps none there)."""
    src = clip(os.path.join(tmp, "in.mkv"), extra=("-disposition:v:0", "default"))
    out = os.path.join(tmp, "out.mkv")
    clvid("-i", src, "-vf", "gray", "-o", out)
    check(video(probe(out))["disposition"]["default"] == 1, "default flag lost")
    blocker = os.path.join(tmp, "file")
    open(blocker, "w").close()
    env = dict(os.environ, CLVID_CACHE_DIR=os.path.join(blocker, "cache"), POCL_KERNEL_CACHE="0")
    p = subprocess.run([ARGS.clvid, "transcode", "-q", "-i", src, "-vf", "sharpen,median", "-o",
                        os.path.join(tmp, "c.mkv")], capture_output=True, text=True, env=env)
    check(p.returncode == 0, "an unwritable cache failed the run: %s" % p.stderr)
    check(p.stderr.count("kernel cache: cannot write") == 1 and blocker in p.stderr,
          "not one warning naming the cache: %r" % p.stderr)


# ---- the next ones ---------------------------------------------------------------

@test
def more_inputs(tmp):
    """The next files a video person has: each runs, keeps its frames, and
    comes out in a sensible format."""
    cases = [
        ("yuvj420p (phone JPEG-range)", "mp4", ["-pix_fmt", "yuvj420p"], "libx264"),
        ("yuv444p", "mkv", ["-pix_fmt", "yuv444p"], "libx264"),
        ("gray video", "mkv", ["-pix_fmt", "gray"], "ffv1"),
        ("10-bit HDR (bt2020, PQ)", "mkv", ["-pix_fmt", "yuv420p10le", "-color_primaries",
                                            "bt2020", "-color_trc", "smpte2084", "-colorspace",
                                            "bt2020nc"], "libx265"),
        ("interlaced", "mkv", ["-flags", "+ildct+ilme", "-field_order", "tt"], "libx264"),
        ("B-frames, long GOP", "mp4", ["-bf", "3", "-g", "250"], "libx264"),
    ]
    for name, ext, extra, codec in cases:
        src = os.path.join(tmp, "in." + ext)
        args = ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=2", "-c:v", codec]
        if codec == "libx264" and "-pix_fmt" not in extra:
            args += ["-pix_fmt", "yuv420p"]
        try:
            ffmpeg(*args, *extra, src)
        except Failure as e:
            print("  %s: skipped, this ffmpeg cannot make it (%s)" % (name, str(e)[:80]))
            continue
        n_in = int(video(probe(src))["nb_read_frames"])
        out = os.path.join(tmp, "out." + ext)
        clvid("-i", src, "-vf", "median", "-o", out, "-y")
        v = video(probe(out))
        check(int(v["nb_read_frames"]) == n_in, "%s: %s frames of %d" % (name, v["nb_read_frames"], n_in))
        print("  %s: %d frames, out %s %s" % (name, n_in, v["codec_name"], v.get("pix_fmt")))
    # 16-bit PNG through a filter of 8 bits only (deep_png in transcode_test.py
    # has the 16-bit ones): filtered at 8 bits, said so, written as 16-bit.
    src = os.path.join(tmp, "deep.png")
    ffmpeg("-f", "lavfi", "-i", "testsrc2=size=64x48,format=rgb48be", "-frames:v", "1", src)
    clvid("-i", src, "-vf", "sharpen", "-o", os.path.join(tmp, "deep_out.png"))
    # Many audio and subtitle tracks in MKV: every one kept.
    src = os.path.join(tmp, "many.mkv")
    srt = os.path.join(tmp, "s.srt")
    open(srt, "w").write("1\n00:00:00,000 --> 00:00:01,000\nhello\n")
    ffmpeg("-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=2", "-f", "lavfi", "-i",
           "sine=duration=2", "-f", "lavfi", "-i", "sine=frequency=880:duration=2", "-i", srt,
           "-map", "0", "-map", "1", "-map", "2", "-map", "3", "-c:v", "libx264", "-pix_fmt",
           "yuv420p", "-c:a", "aac", "-c:s", "srt", src)
    out = os.path.join(tmp, "many_out.mkv")
    clvid("-i", src, "-vf", "gray", "-o", out)
    info = probe(out)
    check(len(streams(info, "audio")) == 2 and len(streams(info, "subtitle")) == 1,
          "tracks lost: %s" % [s["codec_type"] for s in info["streams"]])
    # A cut that starts on a non-keyframe (a TS recording joined mid-GOP).
    ts = os.path.join(tmp, "long.ts")
    ffmpeg("-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=4", "-c:v", "libx264",
           "-pix_fmt", "yuv420p", "-g", "50", ts)
    data = open(ts, "rb").read()
    cut = os.path.join(tmp, "cut.ts")
    open(cut, "wb").write(data[(len(data) // 3) // 188 * 188:])
    out = os.path.join(tmp, "cut_out.mkv")
    clvid("-i", cut, "-vf", "sharpen", "-o", out)
    check(int(video(probe(out))["nb_read_frames"]) > 10, "the cut gave no frames")
    # A corrupt middle: bytes overwritten; a result or a clear error, never a crash.
    bad = os.path.join(tmp, "bad.ts")
    mid = len(data) // 2
    open(bad, "wb").write(data[:mid] + bytes(4096) + data[mid + 4096:])
    p = run([ARGS.clvid, "transcode", "-q", "-i", bad, "-vf", "sharpen", "-o",
             os.path.join(tmp, "bad_out.mkv")], expect=None)
    check(p.returncode in (0, 1), "corrupt middle: exit %d" % p.returncode)
    print("  16-bit PNG, many tracks, non-keyframe start, corrupt middle (exit %d)" % p.returncode)


def main():
    global ARGS
    ARGS = harness.arguments("--clvid", "--media")
    return harness.main(ARGS, prefix="clvid-corpus-")


if __name__ == "__main__":
    sys.exit(main())
