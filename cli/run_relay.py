"""`agentls run` attached to a running agent host: a terminal relay (issue #39).

The host runs the turn (cli/run_turn.py, rendered by the one ``Transcript``) in the agent it
already has warm; this process only forwards: its options, folder and terminal facts go to the
host (``run``), the rendered text comes back (``run.out``), a permission question is read from
this terminal when the host asks (``run.read_line``), SIGINT/SIGTERM is passed on (``run.stop``,
the turn is aborted as in-process) and the run's exit code is the answer. ``kill -9`` of this
process leaves the turn running in the host; the host dying mid-turn is said once, the host is
started again and what the session kept is reported (cli/host_lost.py).

Blocking sockets and ``selectors``, no asyncio and nothing of the core's models: Python's start,
a connect and a few lines of JSON are the whole cost of an attached run's start.
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import signal
import socket
import sys
from pathlib import Path
from typing import Any

from core import __version__
from core.record import record
from core.remote.place import UnsafeFolderError, environment_digest, socket_path
from core.remote.wire import HOST_REPLACED, PROTOCOL

_CANCELLED = -32800  # the answer to a request the host cancelled (its dialog answered elsewhere)


class NotAttached(Exception):
    """The run cannot be relayed (the text says why, or is empty when no host runs): run it here."""

    def __init__(self, why: str, replaced: bool = False) -> None:
        super().__init__(why)
        self.replaced = replaced  # the host runs another agentls and stops now: a new one may start


@record
class Relayed:
    """How a relayed run ended: its exit code, or the host lost mid-turn (``session``: its session)."""

    code: int
    lost: str | None = None
    session: str | None = None


class _Wire:
    """One newline-delimited JSON-RPC connection on a blocking socket (core/remote/wire.py's format)."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self._buffer = b""

    def send(self, message: dict[str, Any]) -> None:
        line = json.dumps({"jsonrpc": "2.0", **message}, ensure_ascii=False, separators=(",", ":"))
        self.sock.sendall(line.encode() + b"\n")

    def take(self) -> list[dict[str, Any]] | None:
        """The messages the socket has now (it is readable); None at its end."""
        chunk = self.sock.recv(1 << 16)
        if not chunk:
            return None
        self._buffer += chunk
        *lines, self._buffer = self._buffer.split(b"\n")
        return [json.loads(line) for line in lines if line.strip()]

    def wait(self, request_id: int) -> dict[str, Any]:
        """The answer to ``request_id`` (the hello's: nothing else comes before it)."""
        while True:
            messages = self.take()
            if messages is None:
                raise NotAttached("the host closed the connection during the hello")
            for message in messages:
                if message.get("id") == request_id and "method" not in message:
                    return message


def connect(data_dir: Path, client: str) -> _Wire:
    """The host's connection after its hello (NotAttached says why not; ``''`` when none runs)."""
    try:
        path = socket_path(data_dir)
    except UnsafeFolderError as exc:
        raise NotAttached(str(exc)) from None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(str(path))
    except (FileNotFoundError, ConnectionRefusedError):
        sock.close()
        raise NotAttached("") from None
    wire = _Wire(sock)
    hello = {
        "protocol": PROTOCOL,
        "version": __version__,
        "client": client,
        "environment": environment_digest(),
        "pid": os.getpid(),
        "control": False,
    }
    try:
        wire.send({"id": 1, "method": "hello", "params": hello})
        answer = wire.wait(1)
    except (OSError, ValueError) as exc:
        sock.close()
        raise NotAttached(f"the host did not answer its hello ({exc})") from None
    if "error" in answer:
        sock.close()
        error = answer["error"]
        raise NotAttached(str(error.get("message")), replaced=error.get("code") == HOST_REPLACED)
    return wire


def relay(wire: _Wire, directory: Path, options: dict[str, Any]) -> Relayed:
    """Have the host run the turn and relay it to this terminal until its exit code comes."""
    terminal = {"stdin": sys.stdin.isatty(), "stdout": sys.stdout.isatty(), "stderr": sys.stderr.isatty()}
    params = {"directory": str(directory.resolve()), "options": options, "terminal": terminal}
    return _Relay(wire).run(params)


class _Relay:
    def __init__(self, wire: _Wire) -> None:
        self.wire = wire
        self.session: str | None = None
        self.asking: int | str | None = None  # the host's run.read_line request waiting for a line
        self.stopped: str | None = None
        self.unread: set[str] = set()  # streams whose reader went away (`agentls run | head`)

    def run(self, params: dict[str, Any]) -> Relayed:
        wake_read, wake_write = socket.socketpair()  # a signal wakes the select (set_wakeup_fd)
        wake_read.setblocking(False)
        wake_write.setblocking(False)
        previous = {sig: signal.signal(sig, lambda *_: None) for sig in (signal.SIGINT, signal.SIGTERM)}
        old_fd = signal.set_wakeup_fd(wake_write.fileno())
        selector = selectors.DefaultSelector()
        selector.register(self.wire.sock, selectors.EVENT_READ, "host")
        selector.register(wake_read, selectors.EVENT_READ, "signal")
        try:
            self.wire.send({"id": 2, "method": "run", "params": params})
            while True:
                for key, _events in selector.select():
                    if key.data == "signal":
                        self._signalled(wake_read)
                    elif key.data == "stdin":
                        self._typed(selector)
                    else:
                        messages = self.wire.take()
                        if messages is None:
                            return Relayed(1, lost="the connection closed", session=self.session)
                        for message in messages:
                            if (done := self._take(message, selector)) is not None:
                                return done
        except (ConnectionResetError, BrokenPipeError) as exc:
            return Relayed(1, lost=f"the connection was lost ({exc.strerror})", session=self.session)
        except ValueError as exc:  # a line that is not JSON: nothing after it can be trusted
            return Relayed(1, lost=f"the host sent what is not its wire ({exc})", session=self.session)
        finally:
            signal.set_wakeup_fd(old_fd)
            for sig, handler in previous.items():
                signal.signal(sig, handler)
            selector.close()
            wake_read.close()
            wake_write.close()

    def _signalled(self, wake: socket.socket) -> None:
        with contextlib.suppress(BlockingIOError):
            for number in wake.recv(64):
                name = signal.Signals(number).name
                if self.stopped is not None:  # a second one: the host did not stop the turn in time
                    raise SystemExit(128 + number)
                self.stopped = name
                self.wire.send({"method": "run.stop", "params": {"signal": name}})

    def _take(self, message: dict[str, Any], selector: selectors.BaseSelector) -> Relayed | None:
        method = message.get("method")
        params = message.get("params") or {}
        if method is None:  # the answer to `run`
            if message.get("id") != 2:
                return None
            if "error" in message:
                print(f"agentls: {message['error'].get('message')}", file=sys.stderr)
                return Relayed(1)
            code = int(message["result"]["code"])
            return Relayed(max(code, 1) if self.unread else code)  # as in-process: exit 1
        if method == "run.out":
            self._write(str(params.get("stream")), str(params.get("text", "")))
        elif method == "run.session":
            self.session = str(params.get("session"))
        elif method == "run.read_line":
            print(str(params.get("prompt", "")), end="", flush=True)
            self.asking = message.get("id")
            selector.register(sys.stdin, selectors.EVENT_READ, "stdin")
        elif method == "$/cancel" and params.get("id") == self.asking:  # answered in another front end
            selector.unregister(sys.stdin)
            error = {"code": _CANCELLED, "message": "the request was cancelled"}
            self.wire.send({"id": self.asking, "error": error})
            self.asking = None
        return None

    def _write(self, name: str, text: str) -> None:
        if name in self.unread:
            return
        stream = sys.stdout if name == "out" else sys.stderr
        try:
            stream.write(text)
            stream.flush()
        except BrokenPipeError:  # the turn goes on to its end, as in-process; the rest is not shown
            self.unread.add(name)
            with contextlib.suppress(OSError, ValueError):  # so that the exit's flush cannot fail
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, stream.fileno())
                os.close(devnull)

    def _typed(self, selector: selectors.BaseSelector) -> None:
        selector.unregister(sys.stdin)
        line = sys.stdin.readline()  # a terminal in line mode is readable once Enter is pressed
        self.wire.send({"id": self.asking, "result": {"text": line}})
        self.asking = None
