#!/usr/bin/env python3
"""ipc_test.py - the control socket (--ipc PATH) of a running clvid
transcode and headless webcam, from outside, as ctest runs it (one test per
run, by name; --list names them): every command, the events, two clients at
once, malformed and over-long lines, the socket's mode and the paths it
refuses or reuses, and quit ending with an output that decodes. The play
window's commands are window_test.py's ipc_play. Every wait is bounded."""
import importlib.util
import json
import os
import socket
import stat
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from harness import Failure, check, test  # noqa: E402
import harness  # noqa: E402

# The Python client, by its file: the package itself loads the libraries,
# which a sanitizer build's python cannot.
_spec = importlib.util.spec_from_file_location(
    "clvid_control", os.path.join(HERE, "..", "python", "clvid", "control.py"))
control = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(control)

ARGS = None
# Long enough that the run lasts until it is told to quit.
LONG_INPUT = ["-f", "lavfi", "-i", "testsrc=size=320x240:rate=25:duration=3600"]
TIMEOUT = 120  # seconds for anything to happen, sanitizer builds included


def start(args, tmp, name="ctl.sock"):
    """clvid with --ipc at tmp/name; the process and the socket's path once
    a client can connect."""
    path = os.path.join(tmp, name)
    p = subprocess.Popen([ARGS.clvid, *args, "--ipc", path], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    deadline = time.time() + TIMEOUT
    while not os.path.exists(path):
        if p.poll() is not None:
            raise Failure("clvid ended (%d) before its socket was made: %s"
                          % (p.returncode, p.stderr.read()))
        check(time.time() < deadline, "no socket after %d s" % TIMEOUT)
        time.sleep(0.05)
    return p, path


def finish(p, expect=0):
    try:
        out, err = p.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        raise Failure("clvid did not end within %d s" % TIMEOUT)
    check(p.returncode == expect, "exit %d (expected %d): %s" % (p.returncode, expect, err))
    return err


class Raw:
    """A connection that writes bytes as they are and reads reply lines."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(TIMEOUT)
        self.sock.connect(path)
        self.buf = b""

    def send(self, data):
        self.sock.sendall(data)

    def line(self):
        while b"\n" not in self.buf:
            chunk = self.sock.recv(65536)
            check(chunk, "the connection closed")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def reply(self, data):
        """Sends data and returns the next reply (events skipped)."""
        self.send(data)
        while True:
            message = self.line()
            if "event" not in message:
                return message

    def close(self):
        self.sock.close()


def refused(c, words, needle):
    try:
        c.command(*words)
    except control.ControlError as e:
        check(needle in str(e), "%s: the error '%s' does not say '%s'" % (words, e, needle))
        return str(e)
    raise Failure("%s was not refused" % (words,))


def frames_of(path):
    p = harness.run(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v",
                     "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", path])
    return int(p.stdout.strip())


def wait_frames(c, n):
    """Until the run has written n frames (quit before the first one leaves
    no output, as Ctrl-C does)."""
    deadline = time.time() + TIMEOUT
    while c.stats()["frames"] < n:
        check(time.time() < deadline, "not %d frames written in %d s" % (n, TIMEOUT))
        time.sleep(0.05)


@test
def transcode_frame_rate(tmp):
    """A run with fps: its frame rate stays the run's. set_chain keeps the
    same fps (another filter after it is taken; another rate or none is
    refused), set_param refuses fps's values and a value after it that
    depends on the frame's number; the output is at fps's rate."""
    out = os.path.join(tmp, "out.mkv")
    p, path = start(["transcode", *LONG_INPUT, "-vf", "fps=10,crop=iw/2:ih/2", "-o", out, "-q"],
                    tmp)
    a = control.Control(path, timeout=TIMEOUT)
    try:
        refused(a, ["set_param", 0, "fps", "20"], "its frame rate is the run's")
        refused(a, ["set_param", 1, "x", "n"], "would make it depend on the frame's number")
        refused(a, ["set_chain", "crop=iw/2:ih/2"], "keeps its fps or framestep as it is")
        refused(a, ["set_chain", "fps=20,crop=iw/2:ih/2"], "keeps its fps or framestep as it is")
        refused(a, ["set_chain", "fps=10,fade=in:0:5"], "comes after fps")
        check(a.set_chain("fps=10,hflip,crop=iw/2:ih/2").startswith("fps=fps=10"),
              "set_chain with the same fps")
        wait_frames(a, 3)
        a.quit()
        check(a.wait_event("end", timeout=TIMEOUT)["reason"] == "quit", "the end event")
    finally:
        a.close()
    finish(p)
    rate = harness.run(["ffprobe", "-v", "error", "-select_streams", "v", "-show_entries",
                        "stream=r_frame_rate", "-of", "csv=p=0", out]).stdout.strip()
    check(rate == "10/1", "the output's rate: %s" % rate)
    print("  fps kept through set_chain; %d frames at %s" % (frames_of(out), rate))


@test
def transcode_commands(tmp):
    """Every command a transcode takes, from two clients at once, with the
    events each gets; the ones it does not take; quit: a finished output."""
    out = os.path.join(tmp, "out.mkv")
    p, path = start(["transcode", *LONG_INPUT, "-vf", "median", "-o", out, "-q"], tmp)
    mode = os.lstat(path).st_mode
    check(stat.S_ISSOCK(mode) and stat.S_IMODE(mode) == 0o600,
          "the socket's mode is %o, not a socket of 0600" % mode)
    a = control.Control(path, timeout=TIMEOUT)
    b = control.Control(path, timeout=TIMEOUT)
    try:
        check(a.get("chain") == "median=radius=1", "chain: %r" % a.get("chain"))
        s = a.stats()
        for key in ("frames", "fps", "dropped", "latency_ms", "device", "paused"):
            check(key in s, "stats has no %s: %s" % (key, s))
        check(s["dropped"] == 0 and isinstance(s["device"], str) and s["device"],
              "stats: %s" % s)
        names = [f["name"] for f in a.get("filters")]
        check("median" in names and "sharpen" in names, "filters: %s" % names[:8])
        median = [f for f in a.get("filters") if f["name"] == "median"][0]
        check([q["name"] for q in median["params"]] == ["radius"], "median: %s" % median)
        devices = a.get("devices")
        check(any(d["in_use"] for d in devices), "no device in use: %s" % devices)
        # set_chain from a; both clients hear the change.
        check(a.set_chain("sharpen,gray") == "sharpen,gray", "set_chain's data")
        for c in (a, b):
            e = c.wait_event("chain-changed", timeout=TIMEOUT)
            check(e["chain"] == "sharpen,gray", "event: %s" % e)
        # A bad chain: the parser's message; the running chain unchanged.
        refused(a, ["set_chain", "sharpen,nosuch"], "unknown filter 'nosuch'")
        refused(b, ["set_chain", "median=radius=99"], "radius")
        refused(a, ["set_chain", "scale=64:48"], "the output is 320x240")
        refused(a, ["set_chain", "yadif"], "holds frames back")
        check(b.get("chain") == "sharpen,gray", "the chain changed: %s" % b.get("chain"))
        # set_param, from b.
        b.set_chain("median")
        check(b.set_param(0, "radius", 2) == "median=radius=2", "set_param's data")
        check(a.wait_event("chain-changed", timeout=TIMEOUT)["chain"] == "median=radius=1",
              "set_chain's event")
        check(a.wait_event("chain-changed", timeout=TIMEOUT)["chain"] == "median=radius=2",
              "set_param's event")
        refused(a, ["set_param", 0, "radius", "99"], "radius")
        refused(a, ["set_param", 3, "radius", 1], "no filter #4")
        refused(a, ["set_param", 0, "nope", 1], "no parameter 'nope'")
        refused(a, ["set_param", "x", "radius", 1], "INDEX")
        check(a.get("chain") == "median=radius=2", "a refused set_param changed the chain")
        # pause and resume: no frame written while paused.
        a.pause()
        check(a.stats()["paused"], "not paused")
        before = a.stats()["frames"]
        time.sleep(1.0)
        check(b.stats()["frames"] == before, "frames written while paused")
        b.resume()
        deadline = time.time() + TIMEOUT
        while a.stats()["frames"] == before:
            check(time.time() < deadline, "no frame after resume")
            time.sleep(0.05)
        check(not a.stats()["paused"], "still paused")
        # The player's commands, unknown ones, wrong arguments.
        refused(a, ["seek", 3], "not available in transcode")
        refused(a, ["screenshot", os.path.join(tmp, "x.png")], "not available in transcode")
        check(not os.path.exists(os.path.join(tmp, "x.png")), "a screenshot was written")
        refused(a, ["frobnicate"], "unknown command 'frobnicate'")
        refused(a, ["get"], "get takes 1 argument")
        refused(a, ["get", "everything"], "get everything: unknown")
        refused(a, ["set_chain"], "set_chain takes 1 argument")
        refused(a, ["pause", 1], "pause takes 0 arguments")
        malformed(path)
        # quit from b: both hear the end; the output is complete.
        b.quit()
        for c in (a, b):
            e = c.wait_event("end", timeout=TIMEOUT)
            check(e["reason"] == "quit", "end: %s" % e)
    finally:
        a.close()
        b.close()
    finish(p)
    check(not os.path.exists(path), "the socket is still there")
    harness.decodes_cleanly(out)
    n = frames_of(out)
    check(n > 0, "no frame in the output")
    print("  %d frames written before quit" % n)


def malformed(path):
    """Malformed lines get an error reply and the connection stays open."""
    c = Raw(path)
    try:
        cases = [
            (b"not json\n", "malformed JSON at byte 1"),
            (b"{\"command\": [\"get\", \"chain\"]\n", "malformed JSON"),
            (b"{\"command\": [\"get\", \"chain\"]} {}\n", "text after the object"),
            (b"[\"get\", \"chain\"]\n", "one JSON object"),
            (b"{\"request_id\": 5}\n", "no \"command\""),
            (b"{\"command\": []}\n", "empty"),
            (b"{\"command\": \"get chain\"}\n", "must be an array"),
            (b"{\"command\": [\"get\", null]}\n", "not a string or a number"),
            (b"{\"command\": [\"get\", \"chain\"], \"request_id\": 1.5}\n", "integer"),
            (b"{\"command\": [\"get\", \"ch\\x\"]}\n", "unknown escape"),
            (b"{\"command\": [\"get\", \"\xff\"]}\n", "not UTF-8"),
            (b"{\"command\": [\"get\", \"\\ud800\"]}\n", "surrogate"),
            (b"{\"command\": [\"get\", 01]}\n", "malformed JSON"),
            (b"{\"command\": [\"get\", \"chain\"], \"x\": " + b"[" * 100 + b"]" * 100 + b"}\n",
             "nested deeper"),
        ]
        for line, needle in cases:
            r = c.reply(line)
            check(r["error"] != "success" and needle in r["error"],
                  "%r: %s (expected '%s')" % (line, r, needle))
        # A line beyond 64 KiB: one error, the line thrown away.
        r = c.reply(b"{\"command\": [\"set_chain\", \"" + b"a" * 70000 + b"\"]}\n")
        check("longer than 65536" in r["error"], "long line: %s" % r)
        # Still open: a good command, its request_id echoed; other members
        # ignored as mpv does; \r\n lines and escapes read.
        r = c.reply(b"{\"command\": [\"get\", \"chain\"], \"request_id\": 77, \"async\": true}\r\n")
        check(r == {"error": "success", "data": "median=radius=2", "request_id": 77},
              "after the malformed lines: %s" % r)
        r = c.reply(b"{\"request_id\": -3, \"command\": [\"g\\u0065t\", \"chain\"]}\n")
        check(r["error"] == "success" and r["request_id"] == -3, "escapes: %s" % r)
        # A command split over two writes, and two in one write.
        c.send(b"{\"command\": [\"get\",")
        time.sleep(0.2)
        r = c.reply(b" \"chain\"], \"request_id\": 8}\n")
        check(r["request_id"] == 8 and r["error"] == "success", "split line: %s" % r)
        c.send(b"{\"command\": [\"get\", \"chain\"], \"request_id\": 9}\n"
               b"{\"command\": [\"get\", \"chain\"], \"request_id\": 10}\n")
        check([c.line()["request_id"], c.line()["request_id"]] == [9, 10], "two in one write")
    finally:
        c.close()


@test
def socket_paths(tmp):
    """The socket's path: a file, a folder, a link or a live socket there is
    refused (and left as it was), a stale socket is reused, a path too long
    for a socket is refused; the socket goes at the end."""
    out = os.path.join(tmp, "out.mkv")
    base = ["transcode", *LONG_INPUT, "-vf", "gray", "-o", out, "-q", "-y"]
    own = os.path.join(tmp, "mine.txt")
    with open(own, "w") as f:
        f.write("the user's file\n")
    os.mkdir(os.path.join(tmp, "folder"))
    os.symlink(own, os.path.join(tmp, "link"))
    for name, needle in (("mine.txt", "exists and is not a socket (a file)"),
                         ("folder", "exists and is not a socket (a folder)"),
                         ("link", "exists and is not a socket (a symbolic link)")):
        p = harness.run([ARGS.clvid, *base, "--ipc", os.path.join(tmp, name)], expect=2,
                        timeout=TIMEOUT)
        check(needle in p.stderr, "%s: %s" % (name, p.stderr))
    with open(own) as f:
        check(f.read() == "the user's file\n", "the file at --ipc was changed")
    check(os.path.isdir(os.path.join(tmp, "folder")) and os.path.islink(os.path.join(tmp, "link")),
          "the folder or the link was touched")
    check(not os.path.exists(out), "an output was written by a refused run")
    long_path = os.path.join(tmp, "x" * 120)
    p = harness.run([ARGS.clvid, *base, "--ipc", long_path], expect=2, timeout=TIMEOUT)
    check("a Unix socket's limit" in p.stderr, p.stderr)
    # Someone listens there: refused, their socket left.
    live = os.path.join(tmp, "live.sock")
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(live)
    server.listen(1)
    p = harness.run([ARGS.clvid, *base, "--ipc", live], expect=2, timeout=TIMEOUT)
    check("another program listens" in p.stderr, p.stderr)
    check(stat.S_ISSOCK(os.lstat(live).st_mode), "the live socket was removed")
    server.close()
    # Stale (no one listens since the server closed): reused.
    check(os.path.exists(live), "the stale socket went")
    with open(out, "w") as f:
        f.write("replaced with -y")  # an old output the run replaces at its end
    p, path = start(base, tmp, "live.sock")
    with control.Control(path, timeout=TIMEOUT) as c:
        check(stat.S_IMODE(os.lstat(path).st_mode) == 0o600, "stale socket reused without 0600")
        check(c.get("chain") == "gray", "the reused socket does not answer")
        # A chain that reads the output's file is refused, as at the start.
        refused(c, ["set_chain", "lut3d=file=" + out], "is the input as well as the output")
        wait_frames(c, 1)
        c.quit()
    finish(p)
    check(not os.path.exists(path), "the socket is still there")
    harness.decodes_cleanly(out)
    # The output's own path: a usage error, before the socket is made.
    same = os.path.join(tmp, "same.mkv")
    p = harness.run([ARGS.clvid, "transcode", "-q", "-y", *LONG_INPUT, "-o", same, "--ipc", same],
                    expect=2, timeout=TIMEOUT)
    check("is the output's path" in p.stderr, p.stderr)
    check(not os.path.exists(same), "left at the output's path: %s" % os.listdir(tmp))


@test
def flood(tmp):
    """A client that sends thousands of commands at once: at most 64 of its
    commands wait for the run (the rest answered with an error at once), so
    the run goes on and another client is answered within seconds (it took
    20 s and more; a flood without end grew the memory past 1 GB)."""
    out = os.path.join(tmp, "out.mkv")
    p, path = start(["transcode", *LONG_INPUT, "-vf", "sharpen", "-o", out, "-q"], tmp)
    try:
        with control.Control(path, timeout=TIMEOUT) as c:
            wait_frames(c, 1)
        flooder = Raw(path)
        flooder.send(b'{"command":["get","filters"]}\n' * 5000)
        t0 = time.time()
        other = Raw(path)
        r = other.reply(b'{"command":["get","stats"],"request_id":7}\n')
        waited = time.time() - t0
        print("  another client answered after %.2f s" % waited)
        check(r.get("request_id") == 7 and r.get("error") == "success", "reply: %s" % r)
        check(waited < 10, "another client waited %.1f s behind the flood" % waited)
        answered = refused_count = 0
        while answered + refused_count < 5000:
            m = flooder.line()
            if "event" in m:
                continue
            if m.get("error") == "success":
                answered += 1
            else:
                check("waiting for the run" in m.get("error", ""), "reply: %s" % m)
                refused_count += 1
        print("  the flood: %d answered, %d refused" % (answered, refused_count))
        check(64 <= answered < 5000 and refused_count > 0, "%d answered" % answered)
        flooder.close()
        other.close()
        with control.Control(path, timeout=TIMEOUT) as c:
            c.quit()
    finally:
        if p.poll() is None:
            finish(p)


@test
def end_of_input(tmp):
    """A run that reaches its input's end tells its clients (end: eof) and
    removes the socket; a client connected to the end gets the event."""
    out = os.path.join(tmp, "out.mkv")
    p, path = start(["transcode", "-f", "lavfi", "-i", "testsrc=size=160x120:rate=25:duration=4",
                     "-vf", "sharpen", "-o", out, "-q"], tmp)
    try:
        c = control.Control(path, timeout=TIMEOUT)
    except (FileNotFoundError, ConnectionRefusedError):
        finish(p)  # ended already: nothing to hear
        return
    with c:
        try:
            c.pause()  # so that it can't end before the client listens
        except (ConnectionError, control.ControlError):
            finish(p)
            return
        c.resume()
        e = c.wait_event("end", timeout=TIMEOUT)
        check(e["reason"] == "eof", "end: %s" % e)
    finish(p)
    check(frames_of(out) == 100, "frames: %d" % frames_of(out))
    check(not os.path.exists(path), "the socket is still there")


@test
def graph_refused(tmp):
    """--ipc with -filter_complex in a transcode (and webcam --no-window, a
    live transcode): refused before anything runs (exit 2, one line)."""
    logo = os.path.join(tmp, "logo.png")
    harness.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "color=size=16x12",
                 "-frames:v", "1", logo])
    for args in (["transcode", "-f", "lavfi", "-i", "testsrc2=size=64x48:duration=1"],
                 ["webcam", "-f", "lavfi", "testsrc2=size=64x48", "--no-window"]):
        out = os.path.join(tmp, "out.mkv")
        p = harness.run([ARGS.clvid, *args, "-i", logo, "-filter_complex", "[0][1]overlay",
                         "-o", out, "--ipc", os.path.join(tmp, "ctl.sock")], expect=2)
        check("--ipc with -filter_complex" in p.stderr, "the message: %s" % p.stderr)
        check(not os.path.exists(out), "an output was written")


@test
def webcam_headless(tmp):
    """webcam --no-window (a live transcode) takes the same commands."""
    out = os.path.join(tmp, "rec.mkv")
    p, path = start(["webcam", "-f", "lavfi", "testsrc2=size=320x240:rate=30", "--no-window",
                     "-o", out], tmp)
    with control.Control(path, timeout=TIMEOUT) as c:
        check(c.set_chain("hflip") == "hflip", "set_chain")
        wait_frames(c, 10)
        refused(c, ["seek", 1], "not available in transcode")
        c.quit()
        check(c.wait_event("end", timeout=TIMEOUT)["reason"] == "quit", "end")
    finish(p)
    harness.decodes_cleanly(out)


def main():
    global ARGS
    ARGS = harness.arguments("--clvid")
    return harness.main(ARGS, caught=(subprocess.TimeoutExpired, OSError, ValueError))


if __name__ == "__main__":
    sys.exit(main())
