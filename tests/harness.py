"""harness.py - what the command-line test scripts share (transcode_test.py,
media_corpus.py, window_test.py): one test per run, by name, as ctest runs
them (--list names them, and tests/CMakeLists.txt makes one ctest entry
each); check, Failure and Skip; running commands; ffprobe. Exit status 0
when every test run passed, 1 when one failed, 77 when all were skipped."""
import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile

TESTS = {}


def test(fn):
    TESTS[fn.__name__] = fn
    return fn


class Failure(Exception):
    pass


class Skip(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Failure(what)


def run(cmd, expect=0, text=True, **kw):
    """Runs cmd, its output captured; Failure (with the command, its status
    and the end of its output) when the status is not `expect` (None: any)."""
    p = subprocess.run(cmd, capture_output=True, text=text, **kw)
    if expect is not None and p.returncode != expect:
        out, err = (p.stdout, p.stderr) if text else (
            p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace"))
        raise Failure("%s\n-> exit %d (expected %d)\nstdout: %s\nstderr: %s"
                      % (" ".join(cmd), p.returncode, expect, out[-2000:], err[-3000:]))
    return p


def av_clip(tmp, seconds, name="clip.mp4"):
    """A 320x240 25 fps H.264 clip with AAC sound, `seconds` long, in tmp."""
    path = os.path.join(tmp, name)
    run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i",
         "testsrc2=size=320x240:rate=25:duration=%g" % seconds, "-f", "lavfi", "-i",
         "sine=frequency=440:duration=%g" % seconds, "-c:v", "libx264", "-c:a", "aac",
         "-shortest", path], timeout=60)
    return path


def free_port(kind):
    """A port of 127.0.0.1 free now, for kind (socket.SOCK_DGRAM or
    SOCK_STREAM)."""
    s = socket.socket(socket.AF_INET, kind)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def ended(proc, timeout, what):
    """Waits for proc (a subprocess.Popen) to end; kills it and fails, naming
    what it is, after timeout seconds."""
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise Failure("%s did not end" % what)


def rtp_port():
    """A free even UDP port of 127.0.0.1 (RTP's; RTCP takes the next)."""
    port = free_port(socket.SOCK_DGRAM)
    while port % 2:
        port = free_port(socket.SOCK_DGRAM)
    return port


def rtp_receive(port, seconds):
    """The datagrams sent to 127.0.0.1:port, received on a thread until
    `seconds` pass without one: call the result for the list."""
    import threading
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", port))
    sock.settimeout(seconds)
    got = []

    def receive():
        try:
            while True:
                got.append(sock.recv(65536))
        except socket.timeout:
            pass
        finally:
            sock.close()
    thread = threading.Thread(target=receive)
    thread.start()

    def result():
        thread.join(timeout=60)
        return got
    return result


def rtp_payload(packets, path):
    """Checks RTP packets carry MPEG-TS as RFC 2250 says (version 2, payload
    type 33, one source, sequence numbers without a gap, whole TS packets)
    and writes the TS they carry to path."""
    import struct
    check(len(packets) > 50, "%d RTP packets received" % len(packets))
    heads = [struct.unpack(">BBHII", p[:12]) for p in packets]
    check(all(h[0] == 0x80 and h[1] == 33 for h in heads), "not RTP v2 with payload type 33")
    check(len({h[4] for h in heads}) == 1, "more than one SSRC")
    seqs = [h[2] for h in heads]
    check(all((a + 1) & 0xffff == b for a, b in zip(seqs, seqs[1:])), "sequence numbers skip")
    check(all((len(p) - 12) % 188 == 0 and p[12] == 0x47 for p in packets),
          "a payload is not whole TS packets")
    with open(path, "wb") as f:
        f.write(b"".join(p[12:] for p in packets))


def probe(path):
    p = run(["ffprobe", "-v", "error", "-count_frames", "-show_streams", "-show_format",
             "-of", "json", path])
    return json.loads(p.stdout)


def streams(info, kind):
    return [s for s in info["streams"] if s["codec_type"] == kind]


def decodes_cleanly(path):
    p = run(["ffmpeg", "-v", "error", "-i", path, "-f", "null", "-"])
    check(p.stderr.strip() == "", "%s does not decode cleanly:\n%s" % (path, p.stderr))


def arguments(*options):
    """The command line: a test name (none: all), --list, and `options`
    (each taking a value, "--clvid", "--media", ...)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("test", nargs="?")
    ap.add_argument("--list", action="store_true")
    for name in options:
        ap.add_argument(name)
    return ap.parse_args()


def main(args, needs=("ffmpeg", "ffprobe"), prefix="clvid-", around=None, caught=()):
    """Lists or runs the tests args names, each in a temporary folder of its
    own. needs: programs without which everything is skipped (77). around:
    a context manager the runs happen inside (a display server). caught:
    more exception types that count as a failure."""
    if args.list:
        print("\n".join(TESTS))
        return 0
    for tool in needs:
        if not shutil.which(tool):
            print("SKIP: %s is needed" % tool)
            return 77
    if args.test and args.test not in TESTS:
        print("no test '%s' (--list names them)" % args.test)
        return 2
    names = [args.test] if args.test else list(TESTS)
    failed = skipped = 0
    scope = around() if around else _Nothing()
    with scope:
        for name in names:
            tmp = tempfile.mkdtemp(prefix="%s%s-" % (prefix, name))
            try:
                TESTS[name](tmp)
                print("PASS", name)
            except Skip as e:
                skipped += 1
                print("SKIP %s: %s" % (name, e))
            except (Failure,) + tuple(caught) as e:
                failed += 1
                print("FAIL %s: %s" % (name, e))
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
    print("%d passed, %d failed, %d skipped" % (len(names) - failed - skipped, failed, skipped))
    sys.stdout.flush()
    return 1 if failed else 77 if skipped == len(names) else 0


class _Nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
