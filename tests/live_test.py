#!/usr/bin/env python3
"""live_test.py - clvid transcode's live outputs on the loopback: -re (a file
read at its native rate), network URLs (udp:// MPEG-TS, rtmp:// FLV, srt://
MPEG-TS, rtp:// MPEG-TS in RTP, rtsp:// publish) received by an ffmpeg
listening on 127.0.0.1, the live encoder defaults (H.264, no B-frames with
x264's zerolatency, a keyframe every 2 s), HLS playlists (-hls_time,
-hls_list_size, nothing overwritten without -y), the latency the summary,
--progress and get stats tell, the errors of a URL that cannot be reached,
and the virtual camera (-f v4l2: fed and read back where a v4l2loopback
device exists; its refusals everywhere). Every run is bounded in time.
One test per run, by name (--list names them), as ctest runs them."""
import fcntl
import glob
import os
import re
import socket
import stat
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Failure, Skip, check, free_port, run, test  # noqa: E402,F401
import harness  # noqa: E402

ARGS = None


def protocols():
    p = run(["ffmpeg", "-hide_banner", "-protocols"])
    out = p.stdout.split("Output:")
    return set(out[0].split()), set(out[1].split()) if len(out) > 1 else set()


def formats(flags):
    """The names of FFmpeg's formats with all of `flags` (D: demuxer, E:
    muxer)."""
    names = set()
    for line in run(["ffmpeg", "-hide_banner", "-formats"]).stdout.splitlines():
        m = re.match(r"^ ([D ])([E ])\s+(\S+)", line)
        if m and all(c in m.group(1) + m.group(2) for c in flags):
            names.update(m.group(3).split(","))
    return names


def receiver(url, path, listen=()):
    """An ffmpeg that receives url (copying it into path), killed after 30 s."""
    return subprocess.Popen(["timeout", "30", "ffmpeg", "-v", "error", "-y"] + list(listen) +
                            ["-i", url, "-c", "copy", "-f", os.path.splitext(path)[1][1:]
                             .replace("ts", "mpegts"), path],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def send(args, timeout=60):
    """Runs clvid transcode args; (process, seconds it took)."""
    begin = time.monotonic()
    p = run([ARGS.clvid, "transcode", "-q"] + args, timeout=timeout)
    return p, time.monotonic() - begin


def frames(path):
    """The video frames of path: (pict_type, key_frame) each, decoded."""
    p = run(["ffprobe", "-v", "error", "-select_streams", "v", "-show_entries",
             "frame=pict_type,key_frame", "-of", "csv=p=0", path])
    rows = [line.split(",") for line in p.stdout.split() if line]
    return [(r[1], r[0] == "1") for r in rows]


def audio_packets(path):
    p = run(["ffprobe", "-v", "error", "-select_streams", "a", "-show_entries", "packet=pts",
             "-of", "csv=p=0", path])
    return len(p.stdout.split())



@test
def udp_realtime(tmp):
    """-re to udp:// MPEG-TS: about real time (a 3 s clip takes >= 2.7 s),
    every frame received and decoded, H.264 with no B-frame, keyframes at
    frames 0 and 50 (2 s at 25 fps), the sound too."""
    src = harness.av_clip(tmp, 3)
    port = free_port(socket.SOCK_DGRAM)
    out = os.path.join(tmp, "recv.ts")
    rx = receiver("udp://127.0.0.1:%d?timeout=3000000" % port, out)
    time.sleep(1.0)  # bound before the first packet
    _, took = send(["-re", "-i", src, "-vf", "sharpen", "-o", "udp://127.0.0.1:%d" % port])
    harness.ended(rx, 40, "the receiver of udp")
    check(took >= 2.7, "-re sent a 3 s clip in %.2f s (ahead of real time)" % took)
    check(took < 15, "-re took %.2f s for a 3 s clip" % took)
    f = frames(out)
    check(len(f) == 75, "received %d frames of 75" % len(f))
    check(not any(t == "B" for t, _ in f), "B-frames on a live stream (zerolatency)")
    keys = [i for i, (_, k) in enumerate(f) if k]
    check(keys == [0, 50], "keyframes at %s, expected [0, 50] (every 2 s)" % keys)
    check(audio_packets(out) > 100, "the sound was not received")
    harness.decodes_cleanly(out)


@test
def realtime_file(tmp):
    """-re into a file: every frame written, never ahead of real time; -g
    sets the keyframe interval of a file output."""
    src = harness.av_clip(tmp, 2)
    out = os.path.join(tmp, "out.mkv")
    _, took = send(["-re", "-i", src, "-g", "10", "-o", out])
    check(took >= 1.8, "-re wrote a 2 s clip in %.2f s" % took)
    f = frames(out)
    check(len(f) == 50, "%d frames of 50" % len(f))
    keys = [i for i, (_, k) in enumerate(f) if k]
    check(keys == list(range(0, 50, 10)), "-g 10: keyframes at %s" % keys)


@test
def rtmp_out(tmp):
    """rtmp:// (FLV, H.264, AAC copied) to an ffmpeg listening on 127.0.0.1."""
    if "rtmp" not in protocols()[1]:
        raise Skip("this FFmpeg has no rtmp")
    src = harness.av_clip(tmp, 2)
    port = free_port(socket.SOCK_STREAM)
    out = os.path.join(tmp, "recv.flv")
    url = "rtmp://127.0.0.1:%d/app/key" % port
    rx = receiver(url, out, listen=("-listen", "1", "-timeout", "20"))
    time.sleep(1.0)
    send(["-re", "-i", src, "-o", url])
    harness.ended(rx, 40, "the receiver of rtmp")
    f = frames(out)
    check(len(f) == 50, "received %d frames of 50" % len(f))
    check(not any(t == "B" for t, _ in f), "B-frames on a live stream (zerolatency)")
    info = harness.probe(out)
    check([s["codec_name"] for s in harness.streams(info, "video")] == ["h264"], "not H.264")
    check(harness.streams(info, "audio"), "no sound")


@test
def srt_out(tmp):
    """srt:// (MPEG-TS) to an ffmpeg listening on 127.0.0.1: every frame,
    the last ones too (the socket lingers for what is unsent)."""
    if "srt" not in protocols()[1]:
        raise Skip("this FFmpeg has no srt")
    src = harness.av_clip(tmp, 2)
    port = free_port(socket.SOCK_DGRAM)
    out = os.path.join(tmp, "recv.ts")
    # No too-late drop either way: on a loaded machine (a sanitizer build
    # beside other tests) the receiver may fall behind SRT's 120 ms, and
    # the frames must still all come.
    opts = "tlpktdrop=0"
    rx = receiver("srt://127.0.0.1:%d?mode=listener&%s" % (port, opts), out)
    time.sleep(1.0)
    send(["-re", "-i", src, "-o", "srt://127.0.0.1:%d?%s" % (port, opts)])
    harness.ended(rx, 40, "the receiver of srt")
    f = frames(out)
    check(len(f) == 50, "received %d frames of 50" % len(f))
    harness.decodes_cleanly(out)




@test
def rtp_out(tmp):
    """rtp:// sends MPEG-TS in RTP (RFC 2250): every packet is RTP version 2,
    payload type 33, one source, sequence numbers without a gap, whole TS
    packets; the stream they carry holds every frame (the last too: FFmpeg
    5.1's rtp_mpegts muxer never sent its last TS packets) and the sound
    (which clvid left out), and decodes cleanly in ffmpeg. (ffmpeg as the
    receiver, -protocol_whitelist file,udp,rtp -i stream.sdp, shows all but
    the last frame: its RTP depacketizer never ends the last PES.)"""
    port = harness.rtp_port()
    src = harness.av_clip(tmp, 2)
    packets = harness.rtp_receive(port, 3.0)
    send(["-re", "-i", src, "-vf", "sharpen", "-o", "rtp://127.0.0.1:%d" % port])
    out = os.path.join(tmp, "recv.ts")
    harness.rtp_payload(packets(), out)
    f = frames(out)
    check(len(f) == 50, "received %d frames of 50" % len(f))
    check(audio_packets(out) > 50, "the sound was not sent")
    harness.decodes_cleanly(out)


@test
def rtsp_out(tmp):
    """rtsp:// publish (ANNOUNCE, RECORD) to an ffmpeg acting as the server:
    over UDP (RTSP's default) and over TCP (a server that takes only TCP
    makes the publisher fall back to it), every frame decoded, the sound
    (AAC as RTP of its own) too."""
    if "rtsp" not in formats("DE"):
        raise Skip("this FFmpeg has no rtsp")
    src = harness.av_clip(tmp, 2)
    for transport in ("udp", "tcp"):
        port = free_port(socket.SOCK_STREAM)
        out = os.path.join(tmp, "recv-%s.crc" % transport)
        # The server's RTP ports apart from the publisher's (both pick from
        # 5000 up on one host). It decodes what it gets: its RTP timestamps
        # start unknown, which a copy into a file refuses.
        rx = subprocess.Popen(["timeout", "30", "ffmpeg", "-v", "error", "-y", "-rtsp_flags",
                               "listen", "-listen_timeout", "20", "-rtsp_transport", transport,
                               "-min_port", "30000", "-max_port", "40000", "-i",
                               "rtsp://127.0.0.1:%d/live" % port, "-f", "framecrc", out],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        time.sleep(1.0)
        send(["-re", "-i", src, "-vf", "sharpen", "-o", "rtsp://127.0.0.1:%d/live" % port])
        harness.ended(rx, 40, "the receiver of rtsp over " + transport)
        check(rx.returncode == 0, "the %s receiver failed: %s" % (transport, rx.stderr.read()))
        rows = [r.split(",") for r in open(out).read().splitlines() if not r.startswith("#")]
        video = sum(1 for r in rows if r[0].strip() == "0")
        sound = sum(1 for r in rows if r[0].strip() == "1")
        check(video == 50, "over %s: %d frames of 50 decoded" % (transport, video))
        check(sound > 50, "over %s: %d sound frames (AAC was left out?)" % (transport, sound))


# ---- A virtual camera (-f v4l2) -------------------------------------------

VIDIOC_QUERYCAP = 0x80685600  # _IOR('V', 0, struct v4l2_capability), 104 bytes
V4L2_CAP_VIDEO_OUTPUT = 0x2
V4L2_CAP_DEVICE_CAPS = 0x80000000


def loopback_device():
    """A v4l2loopback device no program feeds (its driver says "loopback",
    it takes video output), or None."""
    for path in sorted(glob.glob("/dev/video*")):
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        except OSError:
            continue
        try:
            cap = bytearray(104)
            fcntl.ioctl(fd, VIDIOC_QUERYCAP, cap)
        except OSError:
            continue
        finally:
            os.close(fd)
        driver = bytes(cap[:16]).split(b"\0")[0].decode(errors="replace")
        caps, device_caps = struct.unpack_from("<II", cap, 84)
        caps = device_caps if caps & V4L2_CAP_DEVICE_CAPS else caps
        if "loopback" in driver and caps & V4L2_CAP_VIDEO_OUTPUT:
            return path
    return None


@test
def v4l2_refused(tmp):
    """-f v4l2 refuses what is not a virtual camera, touching nothing: a
    regular file (left as it was), /dev/null (no V4L2 device), a missing
    path (not created; the message says how to load v4l2loopback); and a
    device node is never written as a file without -f v4l2, by transcode
    or by webcam (whose -f goes to the file named next)."""
    src = harness.av_clip(tmp, 1)
    kept = os.path.join(tmp, "notes.txt")
    with open(kept, "w") as f:
        f.write("keep me\n")
    before = os.stat(kept)
    p = run([ARGS.clvid, "transcode", "-q", "-i", src, "-f", "v4l2", "-o", kept], expect=2)
    check("not a video device" in p.stderr, p.stderr)
    p = run([ARGS.clvid, "transcode", "-q", "-i", src, "-f", "v4l2", "-y", "-o", kept], expect=2)
    after = os.stat(kept)
    check(open(kept).read() == "keep me\n" and after.st_mtime_ns == before.st_mtime_ns and
          after.st_ino == before.st_ino, "-f v4l2 changed the regular file")
    check(not [n for n in os.listdir(tmp) if "partial" in n], "a partial was left")
    p = run([ARGS.clvid, "transcode", "-q", "-i", src, "-f", "v4l2", "-o", "/dev/null"], expect=2)
    check("/dev/null" in p.stderr and "not a V4L2 device" in p.stderr, p.stderr)
    missing = os.path.join(tmp, "video99")
    p = run([ARGS.clvid, "transcode", "-q", "-i", src, "-f", "v4l2", "-o", missing], expect=1)
    check("modprobe v4l2loopback" in p.stderr, p.stderr)
    check(not os.path.exists(missing), "-f v4l2 created %s" % missing)
    for args in (["-o", "/dev/null"], ["-f", "matroska", "-y", "-o", "/dev/null"]):
        p = run([ARGS.clvid, "transcode", "-q", "-i", src] + args, expect=2)
        check("is a device" in p.stderr and "-f v4l2" in p.stderr, p.stderr)
    check(stat.S_ISCHR(os.stat("/dev/null").st_mode), "/dev/null is no longer a device")
    cam = [ARGS.clvid, "webcam", "-f", "lavfi", "testsrc2=size=160x120:rate=25", "--no-window",
           "--exit-after-frames", "5"]
    p = run(cam + ["-o", "/dev/null"], expect=2, timeout=60)
    check("is a device" in p.stderr, p.stderr)
    for args in (["-f", "v4l2", "-o", "/dev/null"], ["-o", "/dev/null", "-f", "v4l2"]):
        p = run(cam + args, expect=2, timeout=60)
        check("not a V4L2 device" in p.stderr, "webcam %s: %s" % (args, p.stderr))
    # The input's -f is still the input's: webcam records a file as before.
    run(cam + ["-o", os.path.join(tmp, "rec.mkv")], timeout=60)
    check(os.path.exists(os.path.join(tmp, "rec.mkv")), "webcam -o rec.mkv wrote nothing")


@test
def v4l2_loopback(tmp):
    """-f v4l2 feeds a v4l2loopback device (skipped where none is loaded,
    as in most containers): an ffmpeg reading the same node gets 320x240
    frames that are gray (-vf gray: chroma 128) while clvid sends them at
    the clip's rate (-re); the sound is left out, said once."""
    device = loopback_device()
    if not device:
        raise Skip("no v4l2loopback device (modprobe v4l2loopback exclusive_caps=1)")
    src = harness.av_clip(tmp, 4)
    tx = subprocess.Popen(["timeout", "30", ARGS.clvid, "transcode", "-re", "-i", src,
                           "-vf", "gray", "-f", "v4l2", "-o", device],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    time.sleep(1.5)  # the format is set: the device is a camera now
    size = 320 * 240 * 3 // 2
    p = run(["timeout", "20", "ffmpeg", "-v", "error", "-f", "v4l2", "-i", device, "-frames:v",
             "10", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"], text=False)
    try:
        _, err = tx.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        tx.kill()
        raise Failure("clvid did not end")
    check(tx.returncode == 0, "clvid -f v4l2 failed: %s" % err)
    check(err.count("takes video only") == 1, "the sound was not said to be left out once: %s"
          % err)
    check(len(p.stdout) == 10 * size, "read %d bytes, expected 10 frames" % len(p.stdout))
    for k in range(10):
        chroma = p.stdout[k * size + 320 * 240:(k + 1) * size]
        check(all(abs(b - 128) <= 1 for b in chroma[::97]), "frame %d is not gray" % k)


@test
def hls(tmp):
    """-o live.m3u8: segments beside the playlist of about -hls_time each,
    the playlist plays in ffprobe with every frame; a second run is refused
    without -y (playlist or segments there) and leaves them as they were; a
    run that fails removes what it made."""
    src = harness.av_clip(tmp, 2)
    folder = os.path.join(tmp, "hls")
    os.mkdir(folder)
    playlist = os.path.join(folder, "live.m3u8")
    send(["-i", src, "-vf", "sharpen", "-hls_time", "0.5", "-hls_list_size", "0", "-o",
          playlist])
    text = open(playlist).read()
    durations = [float(d) for d in re.findall(r"#EXTINF:([0-9.]+)", text)]
    segments = sorted(n for n in os.listdir(folder) if n.endswith(".ts"))
    check(3 <= len(durations) <= 6, "%d segments: %s" % (len(durations), text))
    check(len(segments) == len(durations), "files %s for %s" % (segments, text))
    check(all(d <= 1.0 for d in durations), "segments longer than 1 s: %s" % durations)
    check(abs(sum(durations) - 2.0) < 0.1, "the segments last %.2f s" % sum(durations))
    check("#EXT-X-ENDLIST" in text, "the playlist is not finished")
    check(len(frames(playlist)) == 50, "the playlist plays %d frames" % len(frames(playlist)))
    before = {n: os.path.getmtime(os.path.join(folder, n)) for n in os.listdir(folder)}
    p = run([ARGS.clvid, "transcode", "-q", "-i", src, "-o", playlist], expect=1)
    check("already exists" in p.stderr and "-y" in p.stderr, p.stderr)
    os.remove(playlist)
    p = run([ARGS.clvid, "transcode", "-q", "-i", src, "-o", playlist], expect=1)
    check("live" in p.stderr and "already exists" in p.stderr, p.stderr)
    del before["live.m3u8"]
    check(before == {n: os.path.getmtime(os.path.join(folder, n)) for n in os.listdir(folder)},
          "a refused run changed the folder")
    send(["-y", "-i", src, "-hls_time", "0.5", "-hls_list_size", "2", "-o", playlist])
    text = open(playlist).read()
    check(len(re.findall(r"#EXTINF", text)) == 2, "-hls_list_size 2: %s" % text)
    # A run that fails part-way (at frame 45 of 50: x264 holds about 40
    # back, so a segment is out) removes the playlist and segments it made
    # (they were written in place: a playlist without its end) and nothing
    # that was in the folder before.
    failed = os.path.join(tmp, "failed")
    os.mkdir(failed)
    open(os.path.join(failed, "mine.ts"), "w").write("kept")
    p = run([ARGS.clvid, "transcode", "-q", "-i", src, "-hls_time", "0.5", "-o",
             os.path.join(failed, "live.m3u8")], expect=1,
            env=dict(os.environ, CLVID_FAULT="encoder:45"))
    check(sorted(os.listdir(failed)) == ["mine.ts"], "a failed run left %s (%s)"
          % (sorted(os.listdir(failed)), p.stderr))


def ipc_stats(path, timeout=10):
    """get stats through the control socket at path (the run's reply's data)."""
    import json
    deadline = time.monotonic() + timeout
    while not os.path.exists(path):
        check(time.monotonic() < deadline, "no control socket at %s" % path)
        time.sleep(0.05)
    with socket.socket(socket.AF_UNIX) as s:
        s.settimeout(timeout)
        s.connect(path)
        s.sendall(b'{"command": ["get", "stats"]}\n')
        reply = json.loads(s.makefile().readline())
    check(reply.get("error") == "success", "get stats: %s" % reply)
    return reply["data"]


def plausible(where, p50, p99, maximum, encoder_p99):
    check(0 < p50 <= p99 <= maximum, "%s: latency p50 %s, p99 %s, max %s" % (where, p50, p99,
                                                                         maximum))
    check(maximum < 10000, "%s: latency max %s ms" % (where, maximum))
    check(0 <= encoder_p99 <= maximum, "%s: encoder p99 %s, latency max %s" % (where, encoder_p99,
                                                                            maximum))


@test
def latency(tmp):
    """-re to udp://: the summary, --progress and get stats tell the
    frames' latency (read to written: p50 <= p99 <= max, positive) and the
    encoder's p99; not a speed check."""
    src = harness.av_clip(tmp, 2)
    port = free_port(socket.SOCK_DGRAM)  # nothing need listen: UDP
    progress, sock = os.path.join(tmp, "progress"), os.path.join(tmp, "ipc.sock")
    proc = subprocess.Popen(["timeout", "60", ARGS.clvid, "transcode", "-re", "-i", src, "-vf",
                             "sharpen", "--progress", progress, "--ipc", sock,
                             "-o", "udp://127.0.0.1:%d" % port],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        # Asked until a frame is timed (a loaded machine or a sanitizer
        # build starts slowly), while the 2-second clip still plays.
        time.sleep(0.5)
        stats = ipc_stats(sock)
        deadline = time.monotonic() + 20
        while not stats["latency_frames"] and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
            try:
                stats = ipc_stats(sock, timeout=2)
            except (OSError, ValueError, Failure):
                break  # the run ended meanwhile: its summary is checked below
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    check(proc.returncode == 0, "clvid failed: %s" % err)
    for key in ("latency_ms", "latency_mean_ms", "latency_p50_ms", "latency_p99_ms",
                "latency_max_ms", "encoder_p50_ms", "encoder_p99_ms", "latency_frames", "frames"):
        check(key in stats, "get stats has no %s: %s" % (key, stats))
    check(stats["latency_frames"] > 0,
          "get stats: no frame timed while the clip played: %s" % stats)
    plausible("get stats", stats["latency_p50_ms"], stats["latency_p99_ms"],
              stats["latency_max_ms"], stats["encoder_p99_ms"])
    m = re.search(r"latency \(packet read to written\) p50 ([\d.]+) ms, p99 ([\d.]+) ms, "
                  r"max ([\d.]+) ms \| encoder p50 ([\d.]+) ms, p99 ([\d.]+) ms", err)
    check(m, "no latency in the summary: %s" % err)
    plausible("summary", float(m.group(1)), float(m.group(2)), float(m.group(3)),
              float(m.group(5)))
    blocks = open(progress).read().split("progress=")
    last = dict(line.split("=", 1) for line in blocks[-2].split("\n") if "=" in line)
    plausible("--progress", float(last["latency_p50_ms"]), float(last["latency_p99_ms"]),
              float(last["latency_max_ms"]), float(last["encoder_p99_ms"]))


@test
def url_errors(tmp):
    """A URL that cannot be reached or whose format cannot be told is a
    runtime error (1) naming it; a bad -g or -hls_time is a usage error (2)."""
    src = harness.av_clip(tmp, 1)
    port = free_port(socket.SOCK_STREAM)  # nothing listens there
    for url in ("rtmp://127.0.0.1:%d/app/key" % port, "foo://127.0.0.1:%d" % port):
        p = run([ARGS.clvid, "transcode", "-q", "-i", src, "-o", url], expect=1, timeout=60)
        check(url in p.stderr, "the error does not name %s: %s" % (url, p.stderr))
    for opt in (["-g", "0"], ["-hls_time", "-1"], ["-hls_list_size", "x"]):
        run([ARGS.clvid, "transcode", "-q", "-i", src] + opt + ["-o", "x.m3u8"], expect=2)


# ---- Network inputs: a sender that stops and comes back ----------------------

def sender(url, seconds, fmt="mpegts", listen=()):
    """An ffmpeg streaming `seconds` of 320x240 25 fps H.264 (a keyframe a
    second) with AAC sound to url at its native rate (-re), killed after 30 s."""
    return subprocess.Popen(["timeout", "30", "ffmpeg", "-v", "error", "-re", "-f", "lavfi", "-i",
                             "testsrc=size=320x240:rate=25:duration=%g" % seconds, "-f", "lavfi",
                             "-i", "sine=frequency=440:duration=%g" % seconds, "-c:v", "libx264",
                             "-g", "25", "-tune", "zerolatency", "-pix_fmt", "yuv420p", "-c:a",
                             "aac"] + list(listen) + ["-f", fmt, url],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)



def receive(args):
    """clvid transcode args in the background, killed after 60 s."""
    return subprocess.Popen(["timeout", "60", ARGS.clvid, "transcode"] + args,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def ended(p, what):
    try:
        out, err = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        raise Failure("clvid receiving %s did not end" % what)
    check(p.returncode == 0, "clvid receiving %s: exit %d\n%s" % (what, p.returncode, err[-3000:]))
    return err


def sound_end(path):
    """Where the sound ends, in seconds: its last packet's time and length."""
    p = run(["ffprobe", "-v", "error", "-select_streams", "a", "-show_entries",
             "packet=pts_time,duration_time", "-of", "csv=p=0", path])
    last = [x for x in p.stdout.split() if x.strip(",")][-1].strip(",").split(",")
    return float(last[0]) + float(last[1])


def frame_times(path):
    """The decoded video frames' times in seconds, in order."""
    p = run(["ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "frame=pts_time",
             "-of", "csv=p=0", path])
    return [float(x.strip(",")) for x in p.stdout.split() if x.strip(",")]


def one_timeline(path, least, most):
    """path holds between least and most frames on one timeline: times
    strictly increasing, no step over 0.5 s; it decodes cleanly with sound."""
    t = frame_times(path)
    check(least <= len(t) <= most, "%d frames, expected %d to %d" % (len(t), least, most))
    steps = [b - a for a, b in zip(t, t[1:])]
    check(all(s > 0 for s in steps), "the frames' times go back: %s" % t)
    check(max(steps) < 0.5, "a gap of %.2f s in the timeline" % max(steps))
    check(audio_packets(path) > 10 * len(t) // 25, "too little sound")
    harness.decodes_cleanly(path)
    return t


def events(path, seen):
    """Reads the control socket's events into seen (a list) until it closes."""
    import json
    import threading
    for _ in range(100):
        if os.path.exists(path):
            break
        time.sleep(0.05)

    def read():
        try:
            s = socket.socket(socket.AF_UNIX)
            s.connect(path)
            s.settimeout(40)
            for line in s.makefile():
                seen.append(json.loads(line))
        except OSError:
            pass
    t = threading.Thread(target=read, daemon=True)
    t.start()
    return t


def comes_back(tmp, scheme, reconnect):
    """A sender streams 2 s over scheme, stops, and streams 2 s more 1 s
    later. With reconnect the output holds both parts on one timeline;
    without, the run ends after the first with a finished file."""
    kind = socket.SOCK_DGRAM if scheme == "udp" else socket.SOCK_STREAM
    port = free_port(kind)
    fmt, listen = "mpegts", ()
    if scheme == "udp":
        send_url = "udp://127.0.0.1:%d?pkt_size=1316" % port
        url = "udp://127.0.0.1:%d" % port
    elif scheme == "srt":
        send_url = "srt://127.0.0.1:%d?mode=listener" % port
        url = "srt://127.0.0.1:%d" % port
    else:
        send_url = url = "rtmp://127.0.0.1:%d/app/key" % port
        fmt, listen = "flv", ("-listen", "1")
    out = os.path.join(tmp, "out.mkv")
    sock = os.path.join(tmp, "ipc.sock")
    args = ["-i", url, "-rw_timeout", "500000", "-o", out]
    if scheme == "udp" and reconnect:
        args += ["-c:a", "aac"]  # the sound encoded again: its samples are counted
    if reconnect:
        # An RTMP input's probe reads 2.5 s of it (FLV's streams are found
        # as they come): its try needs that long.
        most = "5" if scheme == "rtmp" else "3"
        args += ["--reconnect", "--reconnect-max", most, "--ipc", sock]
    seen = []
    if scheme == "udp":  # the receiver binds first: nothing is lost
        rx = receive(args)
        reader = events(sock, seen) if reconnect else None
        time.sleep(1.0)
        harness.ended(sender(send_url, 2, fmt, listen), 30, "the sender")
    else:  # the sender listens first; the receiver calls
        tx = sender(send_url, 2, fmt, listen)
        time.sleep(0.7)
        rx = receive(args)
        reader = events(sock, seen) if reconnect else None
        harness.ended(tx, 30, "the sender")
    time.sleep(1.0)
    harness.ended(sender(send_url, 2, fmt, listen), 30, "the sender")
    err = ended(rx, url)
    if not reconnect:
        check("dropped" in err and url in err, "no word of the drop: %s" % err)
        check("reconnect" not in err.replace("--reconnect", ""), err)
        one_timeline(out, 35, 55)
        return
    t = one_timeline(out, 80, 105)
    if scheme == "udp":  # the sound encoded again (copied sound keeps the sender's own ends)
        sound = sound_end(out)
        print("  last frame at %.3f s, the sound ends at %.3f s" % (t[-1], sound))
        check(abs(sound - t[-1]) < 0.25, "the sound ends at %.3f s, the picture at %.3f s"
              % (sound, t[-1]))
    check("reconnecting" in err and "reconnected" in err, "progress: %s" % err)
    reader.join(timeout=10)
    names = [e.get("event") for e in seen]
    check("reconnecting" in names and "reconnected" in names, "events: %s" % names)
    check(names.index("reconnecting") < names.index("reconnected"), "events: %s" % names)
    back = seen[names.index("reconnected")]
    check(back.get("input") == url and back.get("attempt", 0) >= 1, "%s" % back)


@test
def reconnect_udp(tmp):
    """--reconnect on UDP MPEG-TS: both parts on one timeline (about 4 s of
    frames), the progress and the control socket say reconnecting."""
    comes_back(tmp, "udp", True)


@test
def dropped_udp(tmp):
    """No --reconnect: a UDP sender that stops ends the run (exit 0) with a
    finished file of the first part and a word on stderr."""
    comes_back(tmp, "udp", False)


@test
def restart_udp(tmp):
    """A UDP sender that starts again within -rw_timeout (its timestamps
    jump back) is no drop: both parts on one timeline, no --reconnect."""
    port = free_port(socket.SOCK_DGRAM)
    url = "udp://127.0.0.1:%d" % port
    out = os.path.join(tmp, "out.mkv")
    rx = receive(["-i", url, "-rw_timeout", "1500000", "-o", out])
    time.sleep(1.0)
    harness.ended(sender(url + "?pkt_size=1316", 2), 30, "the sender")
    time.sleep(0.8)
    harness.ended(sender(url + "?pkt_size=1316", 2), 30, "the sender")
    err = ended(rx, url)
    check("no packet for 1.5 s" in err, err)
    one_timeline(out, 90, 105)


@test
def size_change_udp(tmp):
    """A live source whose picture changes size mid-stream (a UDP sender
    restarted at 160x120 right away, within -rw_timeout): the recording so
    far is kept, finished (exit 0, a word on why); it was removed (exit 1)."""
    port = free_port(socket.SOCK_DGRAM)
    url = "udp://127.0.0.1:%d" % port
    out = os.path.join(tmp, "out.mkv")
    rx = receive(["-i", url, "-o", out])
    time.sleep(1.0)
    harness.ended(sender(url + "?pkt_size=1316", 2), 30, "the sender")
    small = subprocess.Popen(["timeout", "30", "ffmpeg", "-v", "error", "-re", "-f", "lavfi", "-i",
                              "testsrc=size=160x120:rate=25:duration=2", "-c:v", "libx264", "-g",
                              "25", "-tune", "zerolatency", "-f", "mpegts",
                              url + "?pkt_size=1316"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    err = ended(rx, url)
    harness.ended(small, 30, "the second sender")
    check("changes from 320x240" in err and "the output ends there" in err, err)
    n = len(frames(out))
    print("  kept %d frames of 320x240" % n)
    check(30 <= n <= 55, "%d frames kept" % n)
    harness.decodes_cleanly(out)


@test
def reconnect_srt(tmp):
    """--reconnect on SRT (clvid calls an ffmpeg listening)."""
    if "srt" not in protocols()[0]:
        raise Skip("this FFmpeg has no srt")
    comes_back(tmp, "srt", True)


@test
def reconnect_rtmp(tmp):
    """--reconnect on RTMP (clvid plays from an ffmpeg listening)."""
    if "rtmp" not in protocols()[0]:
        raise Skip("this FFmpeg has no rtmp")
    comes_back(tmp, "rtmp", True)


@test
def reconnect_max(tmp):
    """--reconnect-max: a sender that never comes back ends the run about
    that long after the drop (0.5 s to see it), with a finished file."""
    port = free_port(socket.SOCK_DGRAM)
    url = "udp://127.0.0.1:%d" % port
    out = os.path.join(tmp, "out.mkv")
    rx = receive(["-i", url, "-rw_timeout", "500000", "--reconnect", "--reconnect-max", "1.5",
                  "-o", out])
    time.sleep(1.0)
    harness.ended(sender(url + "?pkt_size=1316", 2), 30, "the sender")
    stopped = time.monotonic()
    err = ended(rx, url)
    took = time.monotonic() - stopped
    check(1.9 <= took <= 5, "ended %.2f s after the sender (--reconnect-max 1.5)" % took)
    check("did not come back" in err, err)
    one_timeline(out, 35, 55)


@test
def input_errors(tmp):
    """Usage errors (2) naming the value: --reconnect-max, -rtsp_transport,
    -rw_timeout; --reconnect with a file."""
    src = harness.av_clip(tmp, 1)
    out = os.path.join(tmp, "out.mkv")
    url = "udp://127.0.0.1:%d" % free_port(socket.SOCK_DGRAM)
    for opt, word in ((["--reconnect-max", "x"], "--reconnect-max x"),
                      (["--reconnect-max", "-3"], "--reconnect-max -3"),
                      (["-rtsp_transport", "carrier_pigeon"], "-rtsp_transport carrier_pigeon"),
                      (["-rw_timeout", "soon"], "-rw_timeout soon")):
        p = run([ARGS.clvid, "transcode", "-q"] + opt + ["-i", url, "-o", out], expect=2,
                timeout=30)
        check(word in p.stderr, "%s: %s" % (word, p.stderr))
    p = run([ARGS.clvid, "transcode", "-q", "--reconnect", "-i", src, "-o", out], expect=2,
            timeout=30)
    check("--reconnect is for network inputs" in p.stderr and src in p.stderr, p.stderr)
    p = run([ARGS.clvid, "transcode", "-q", "-rtsp_transport", "tcp", "-i", src, "-o", out],
            expect=2, timeout=30)
    check("rtsp://" in p.stderr, p.stderr)
    check(not os.path.exists(out), "a refused run wrote its output")


def main():
    global ARGS
    ARGS = harness.arguments("--clvid")
    return harness.main(ARGS, prefix="clvid-live-")


if __name__ == "__main__":
    sys.exit(main())
