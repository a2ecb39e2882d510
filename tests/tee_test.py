#!/usr/bin/env python3
"""tee_test.py - record and stream at once: clvid transcode with several -o,
or ffmpeg's tee syntax (-f tee -o 'rec.mkv|[f=mpegts]udp://...'), one
encoding muxed into every output. On the loopback, each run bounded in time:
a file and a udp:// stream received by ffmpeg with the same frames; the tee
form's f= and select=; onfail=ignore keeping the recording when the stream
cannot be reached or drops mid-run, and onfail=abort ending the run with no
file left; nothing written when one output exists without -y; the tee
syntax's mistakes; a file and an rtp:// stream at once; a virtual camera
refused as one of several outputs. One test per run, by name (--list names them)."""
import os
import socket
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Failure, Skip, check, free_port, run, test  # noqa: E402,F401
import harness  # noqa: E402

ARGS = None


def udp_receiver(port, path):
    """An ffmpeg that copies the MPEG-TS sent to udp://127.0.0.1:port into
    path, ending 3 s after the stream stops (killed after 30 s)."""
    return subprocess.Popen(["timeout", "30", "ffmpeg", "-v", "error", "-y", "-i",
                             "udp://127.0.0.1:%d?timeout=3000000" % port, "-c", "copy", "-f",
                             "mpegts", path],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)



def clvid(args, expect=0, env=None):
    p = run([ARGS.clvid, "transcode", "-q"] + args, expect=expect, timeout=60,
            env=dict(os.environ, **(env or {})))
    # A sanitizer's report fails the run even where exit 1 is expected.
    check("Sanitizer" not in p.stderr, p.stderr[-3000:])
    return p


def frames(path):
    """The decoded video frames' checksums (framemd5) and whether each is a
    B-frame."""
    p = run(["ffmpeg", "-v", "error", "-i", path, "-map", "0:v", "-f", "framemd5", "-"],
            timeout=60)
    sums = [line.split(",")[-1].strip() for line in p.stdout.splitlines()
            if line and not line.startswith("#")]
    q = run(["ffprobe", "-v", "error", "-select_streams", "v", "-show_entries",
             "frame=pict_type", "-of", "csv=p=0", path], timeout=60)
    return sums, [t for t in q.stdout.split() if t == "B"]


def kinds(path):
    return sorted(s["codec_type"] for s in harness.probe(path)["streams"])


def partials(folder):
    return [n for n in os.listdir(folder) if ".partial-" in n]


@test
def file_and_udp(tmp):
    """-o rec.mkv -o udp://127.0.0.1:PORT: the file and the stream, received
    by ffmpeg, hold the same 50 decoded frames (one encoding); the stream
    makes the encoding live (no B-frame in either); sound in both."""
    src = harness.av_clip(tmp, 2)
    port = free_port(socket.SOCK_DGRAM)
    rec, got = os.path.join(tmp, "rec.mkv"), os.path.join(tmp, "recv.ts")
    rx = udp_receiver(port, got)
    time.sleep(1.0)  # bound before the first packet
    clvid(["-re", "-i", src, "-vf", "sharpen", "-o", rec, "-o", "udp://127.0.0.1:%d" % port])
    harness.ended(rx, 40, "the receiver")
    sums, b_rec = frames(rec)
    sums_got, b_got = frames(got)
    check(len(sums) == 50, "the file holds %d frames of 50" % len(sums))
    check(sums_got == sums, "the stream's %d frames differ from the file's" % len(sums_got))
    check(not b_rec and not b_got, "B-frames with a network output (zerolatency)")
    check(kinds(rec) == ["audio", "video"] and kinds(got) == ["audio", "video"],
          "sound missing: %s, %s" % (kinds(rec), kinds(got)))
    harness.decodes_cleanly(got)
    check(not partials(tmp), "partials left: %s" % partials(tmp))


@test
def ffmpeg_syntax(tmp):
    """-f tee -o 'rec.mp4|[f=mpegts:select=v]udp://...': ffmpeg's syntax; the
    stream is MPEG-TS with the video only (select=v), the file has both."""
    src = harness.av_clip(tmp, 2)
    port = free_port(socket.SOCK_DGRAM)
    rec, got = os.path.join(tmp, "rec.mp4"), os.path.join(tmp, "recv.ts")
    rx = udp_receiver(port, got)
    time.sleep(1.0)
    clvid(["-re", "-i", src, "-f", "tee", "-o",
           "%s|[f=mpegts:select=v]udp://127.0.0.1:%d" % (rec, port)])
    harness.ended(rx, 40, "the receiver")
    sums, _ = frames(rec)
    check(len(sums) == 50, "the file holds %d frames of 50" % len(sums))
    check(frames(got)[0] == sums, "the stream's frames differ from the file's")
    check(kinds(rec) == ["audio", "video"], "the file: %s" % kinds(rec))
    check(kinds(got) == ["video"], "select=v: the stream has %s" % kinds(got))


@test
def onfail_ignore_unreachable(tmp):
    """A stream nothing listens for: with onfail=ignore the recording is
    complete (exit 0, a message naming the URL); with the default (abort)
    the run fails (exit 1) and leaves no file and no partial."""
    src = harness.av_clip(tmp, 2)
    port = free_port(socket.SOCK_STREAM)  # nothing listens there
    url = "tcp://127.0.0.1:%d" % port
    rec = os.path.join(tmp, "rec.mkv")
    p = clvid(["-i", src, "-f", "tee", "-o", "%s|[f=mpegts:onfail=ignore]%s" % (rec, url)])
    check(url in p.stderr and "onfail=ignore" in p.stderr, "no warning: %s" % p.stderr)
    check(len(frames(rec)[0]) == 50, "the recording is not complete")
    os.remove(rec)
    p = clvid(["-i", src, "-o", rec, "-o", url], expect=1)
    check(url in p.stderr, "the error does not name the URL: %s" % p.stderr)
    check(not os.path.exists(rec) and not partials(tmp), "a file was left: %s" % os.listdir(tmp))


def drop_after_accept(port, ready):
    """A TCP server on 127.0.0.1:port that takes one connection, reads a
    little and closes it: a stream that drops mid-run."""
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", port))
    s.listen(1)
    s.settimeout(20)
    ready.set()
    try:
        c, _ = s.accept()
        c.settimeout(5)
        c.recv(20000)
        time.sleep(0.3)
        c.close()
    except OSError:
        pass
    s.close()


@test
def onfail_stream_drops(tmp):
    """The stream's server closes the connection mid-run: with onfail=ignore
    the file goes on to its end (all 50 frames, sound too); a failure
    mid-run with abort (CLVID_FAULT=output2:10) ends the run with exit 1
    and no file or partial left."""
    src = harness.av_clip(tmp, 2)
    port = free_port(socket.SOCK_STREAM)
    url = "tcp://127.0.0.1:%d" % port
    rec = os.path.join(tmp, "rec.mkv")
    ready = threading.Event()
    server = threading.Thread(target=drop_after_accept, args=(port, ready), daemon=True)
    server.start()
    ready.wait(10)
    p = clvid(["-re", "-i", src, "-f", "tee", "-o", "%s|[f=mpegts:onfail=ignore]%s" % (rec, url)])
    server.join(10)
    check(url in p.stderr and "left out" in p.stderr, "no warning: %s" % p.stderr)
    check(len(frames(rec)[0]) == 50, "the recording is not complete")
    check(kinds(rec) == ["audio", "video"], "the recording: %s" % kinds(rec))
    os.remove(rec)
    ts = os.path.join(tmp, "rec.ts")
    p = clvid(["-i", src, "-o", rec, "-o", ts], expect=1, env={"CLVID_FAULT": "output2:10"})
    check("rec.ts" in p.stderr and "onfail" in p.stderr, p.stderr)
    check(not os.path.exists(rec) and not os.path.exists(ts) and not partials(tmp),
          "files left: %s" % os.listdir(tmp))


@test
def refused_without_y(tmp):
    """The second output exists: without -y the run is refused (exit 1,
    naming it) before anything is written: the first is not created, or,
    when it exists too, left as it was; with -y both are written."""
    src = harness.av_clip(tmp, 1)
    first, second = os.path.join(tmp, "a.mkv"), os.path.join(tmp, "b.mp4")
    with open(second, "w") as f:
        f.write("keep me")
    p = clvid(["-i", src, "-o", first, "-o", second], expect=1)
    check("b.mp4" in p.stderr and "-y" in p.stderr, p.stderr)
    check(not os.path.exists(first), "the first output was written")
    with open(first, "w") as f:
        f.write("keep me too")
    clvid(["-i", src, "-f", "tee", "-o", "%s|[onfail=ignore]%s" % (first, second)], expect=1)
    check(open(first).read() == "keep me too" and open(second).read() == "keep me",
          "a refused run changed the files")
    check(not partials(tmp), "partials left")
    clvid(["-y", "-i", src, "-o", first, "-o", second])
    check(len(frames(first)[0]) == 25 and len(frames(second)[0]) == 25, "-y did not write both")


@test
def syntax_errors(tmp):
    """The tee syntax's mistakes are usage errors (exit 2) naming what is
    wrong, and nothing is written: an unknown option, an empty output, a bad
    onfail, a missing ']', an unknown f=, a file (or standard output) named
    twice (a file also in another spelling), -f with several -o; a container that cannot hold the shared encoding is refused (exit 1)
    naming it. A path with '|' and spaces given as one of several -o is
    written as named."""
    src = harness.av_clip(tmp, 1)
    a, b = os.path.join(tmp, "a.mkv"), os.path.join(tmp, "b.ts")
    for spec, words in (("%s|[foo=1]%s" % (a, b), "unknown option 'foo'"),
                        ("%s||%s" % (a, b), "output 2 is empty"),
                        ("%s|" % a, "output 2 is empty"),
                        ("[onfail=maybe]%s" % a, "onfail=maybe"),
                        ("[f=mpegts%s" % b, "]"),
                        ("[f=nope]%s" % a, "f=nope"),
                        ("%s|%s" % (a, a), "named twice"),
                        # another spelling of one file (both partials would
                        # be put in place there, the last one kept)
                        ("%s|%s/./a.mkv" % (a, tmp), "named twice"),
                        ("[f=nut]-|[f=nut]-", "named twice"),  # two muxers into one pipe
                        ("[bsfs/v=h264_mp4toannexb]%s" % a, "bsfs")):
        p = clvid(["-i", src, "-f", "tee", "-o", spec], expect=2)
        check(words in p.stderr, "%s: %s" % (spec, p.stderr))
    p = run([ARGS.clvid, "transcode", "-q", "-i", src, "-f", "mpegts", "-o", a, "-o", b],
            expect=2, timeout=60)
    check("several -o" in p.stderr, p.stderr)
    p = clvid(["-i", src, "-o", os.path.join(tmp, "a.mp4"), "-o", os.path.join(tmp, "c.webm")],
              expect=1)
    check("c.webm" in p.stderr and "-c:v" in p.stderr, p.stderr)
    check(os.listdir(tmp) == ["clip.mp4"], "files written: %s" % os.listdir(tmp))
    odd = os.path.join(tmp, "my rec|1.mkv")
    clvid(["-i", src, "-o", odd, "-o", b])
    check(len(frames(odd)[0]) == 25 and len(frames(b)[0]) == 25, "not both written")




@test
def file_and_rtp(tmp):
    """-o rec.mkv -o rtp://127.0.0.1:PORT: the rtp:// output is put in RTP by
    clvid (rtp_ts.c) as one of several outputs: RTP v2, payload type 33,
    sequence numbers without a gap, whole TS packets carrying the same 50
    frames as the file (the last too) and the sound; the file is complete."""
    src = harness.av_clip(tmp, 2)
    port = harness.rtp_port()
    rec = os.path.join(tmp, "rec.mkv")
    packets = harness.rtp_receive(port, 3.0)
    clvid(["-re", "-i", src, "-o", rec, "-o", "rtp://127.0.0.1:%d" % port])
    got = os.path.join(tmp, "recv.ts")
    harness.rtp_payload(packets(), got)
    sums, _ = frames(rec)
    check(len(sums) == 50, "the file holds %d frames of 50" % len(sums))
    check(frames(got)[0] == sums, "the RTP stream's frames differ from the file's")
    check(kinds(rec) == ["audio", "video"] and kinds(got) == ["audio", "video"],
          "sound missing: %s, %s" % (kinds(rec), kinds(got)))
    harness.decodes_cleanly(got)
    check(not partials(tmp), "partials left: %s" % partials(tmp))


@test
def v4l2_refused(tmp):
    """A virtual camera cannot be one of several outputs (it takes raw
    frames without sound, not the shared encoding): [f=v4l2] in a tee is a
    usage error (exit 2) naming it, and a device node as one of several
    outputs is refused as it is alone, with -y too; nothing is written."""
    src = harness.av_clip(tmp, 1)
    rec = os.path.join(tmp, "rec.mkv")
    p = clvid(["-i", src, "-f", "tee", "-o", "%s|[f=v4l2]/dev/null" % rec], expect=2)
    check("virtual camera" in p.stderr and "/dev/null" in p.stderr, p.stderr)
    p = clvid(["-y", "-i", src, "-f", "tee", "-o", "%s|[f=matroska]/dev/null" % rec], expect=2)
    check("/dev/null" in p.stderr and "device" in p.stderr, p.stderr)
    check(os.listdir(tmp) == ["clip.mp4"], "files written: %s" % os.listdir(tmp))


def main():
    global ARGS
    ARGS = harness.arguments("--clvid")
    return harness.main(ARGS, prefix="clvid-tee-")


if __name__ == "__main__":
    sys.exit(main())
