"""clvid.Control: a client of a running clvid's control socket (`--ipc PATH`
on play, transcode and webcam; docs/ipc.md), in the standard library only.

    with clvid.Control("/tmp/clvid.sock") as c:
        c.command("set_chain", "median,sharpen")     # the chain now running
        print(c.command("get", "stats")["fps"])
        for event in c.events(timeout=5):             # {"event": "chain-changed", ...}
            print(event)

A command returns the reply's data (None when it has none) or raises
ControlError with the run's message (the filter, parameter or value at
fault). Events arrive on a thread of the client's own: read them with
events() or next_event(), or pass on_event (called on that thread). They
are chain-changed, reconnecting and reconnected (a transcode --reconnect
whose network input dropped and came back) and end; docs/ipc.md gives
their fields.
"""
from __future__ import annotations

import json
import queue
import socket
import threading
import time
from typing import Any, Callable, Dict, Iterator, Optional

__all__ = ["Control", "ControlError"]


class ControlError(Exception):
    """A command the run refused or could not do; the message is the
    reply's "error"."""


class Control:
    """A connection to the socket at path. connect_timeout: seconds to wait
    for the socket to appear (a run just started); timeout: the default
    seconds a command waits for its reply."""

    def __init__(self, path: str, timeout: float = 30.0, connect_timeout: float = 10.0,
                 on_event: Optional[Callable[[Dict[str, Any]], None]] = None):
        self.path = path
        self.timeout = timeout
        self._on_event = on_event
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        deadline = time.monotonic() + connect_timeout
        while True:
            try:
                self._sock.connect(path)
                break
            except (FileNotFoundError, ConnectionRefusedError):
                if time.monotonic() > deadline:
                    self._sock.close()
                    raise
                time.sleep(0.05)
        self._lock = threading.Lock()
        self._replied = threading.Condition(self._lock)
        self._replies: Dict[int, Dict[str, Any]] = {}
        self._next_id = 1
        self._closed = False
        self._events: "queue.Queue[Optional[Dict[str, Any]]]" = queue.Queue()
        self._reader = threading.Thread(target=self._read, name="clvid-control", daemon=True)
        self._reader.start()

    # ---- The reading thread -------------------------------------------------

    def _read(self) -> None:
        buf = b""
        try:
            while True:
                chunk = self._sock.recv(65536)
                if not chunk:
                    break
                buf += chunk
                while b"\n" in buf:
                    line, buf = buf.split(b"\n", 1)
                    if line.strip():
                        self._take(json.loads(line))
        except (OSError, ValueError):
            pass
        with self._lock:
            self._closed = True
            self._replied.notify_all()
        self._events.put(None)

    def _take(self, message: Dict[str, Any]) -> None:
        if "event" in message:
            self._events.put(message)
            if self._on_event:
                self._on_event(message)
            return
        with self._lock:
            self._replies[message.get("request_id", 0)] = message
            self._replied.notify_all()

    # ---- Commands -------------------------------------------------------------

    def command(self, *words: Any, timeout: Optional[float] = None) -> Any:
        """Sends ["NAME", ARGS...] (strings and numbers) and returns the
        reply's data; ControlError when the run refused it, TimeoutError
        when no reply came in time, ConnectionError when the run ended."""
        with self._lock:
            request_id = self._next_id
            self._next_id += 1
        line = json.dumps({"command": list(words), "request_id": request_id}) + "\n"
        try:
            self._sock.sendall(line.encode())
        except OSError as e:
            raise ConnectionError("clvid control socket %s: %s" % (self.path, e)) from e
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        with self._lock:
            while request_id not in self._replies:
                if self._closed:
                    raise ConnectionError("clvid control socket %s: the run has ended" % self.path)
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError("clvid control socket %s: no reply to %s" % (self.path,
                                                                                    words[0]))
                self._replied.wait(left)
            reply = self._replies.pop(request_id)
        if reply.get("error") != "success":
            raise ControlError(reply.get("error"))
        return reply.get("data")

    def set_chain(self, chain: str) -> str:
        return self.command("set_chain", chain)

    def set_param(self, index: int, name: str, value: Any) -> str:
        return self.command("set_param", index, name, value)

    def get(self, what: str) -> Any:
        """what: stats, chain, filters or devices."""
        return self.command("get", what)

    def stats(self) -> Dict[str, Any]:
        return self.command("get", "stats")

    def pause(self) -> None:
        self.command("pause")

    def resume(self) -> None:
        self.command("resume")

    def seek(self, seconds: float, absolute: bool = False) -> None:
        self.command("seek", seconds, "absolute" if absolute else "relative")

    def screenshot(self, path: str) -> Dict[str, Any]:
        return self.command("screenshot", path)

    def quit(self) -> None:
        self.command("quit")

    # ---- Events ----------------------------------------------------------------

    def next_event(self, timeout: Optional[float] = None) -> Optional[Dict[str, Any]]:
        """The next event, waiting up to timeout seconds (None: the
        default); None when the run has ended and none is left.
        TimeoutError when none came in time."""
        try:
            event = self._events.get(timeout=self.timeout if timeout is None else timeout)
        except queue.Empty:
            raise TimeoutError("clvid control socket %s: no event" % self.path) from None
        if event is None:
            self._events.put(None)  # the end stays for the next reader
        return event

    def events(self, timeout: Optional[float] = None) -> Iterator[Dict[str, Any]]:
        """The events as they come, until the run ends (or none came for
        timeout seconds: TimeoutError)."""
        while True:
            event = self.next_event(timeout)
            if event is None:
                return
            yield event

    def wait_event(self, name: str, timeout: Optional[float] = None) -> Dict[str, Any]:
        """The next event called name (the others before it are dropped)."""
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while True:
            event = self.next_event(max(0.0, deadline - time.monotonic()))
            if event is None:
                raise ConnectionError("clvid control socket %s: ended before %s" % (self.path,
                                                                                    name))
            if event.get("event") == name:
                return event

    def close(self) -> None:
        try:
            self._sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._sock.close()
        self._reader.join(timeout=5)

    def __enter__(self) -> "Control":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
