"""`agentls run` attached: the host runs the run's turn for a terminal relay (cli/run_relay.py).

The relay sends ``run`` with its options, folder and terminal facts; the turn runs here in the
project's warm agent through the same code as in-process (cli/run_turn.py), its ``Transcript``
writing to the relay's streams (``run.out`` notifications); a permission question is a
``run.read_line`` request the relay answers from its terminal; ``run.stop`` (the relay's SIGINT or
SIGTERM) aborts the turn as the signal does in-process. The answer is the run's exit code.
The turn is the host's own task: when the relay goes away (``kill -9``) it goes on, as a turn a
vanished editor started does, and its questions stay open for the other front ends.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import signal
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO, cast

from cli.run_turn import drive
from core.remote.connection import ConnectionLost, RemoteError

if TYPE_CHECKING:
    from core.api import Agent
    from host.front_end import FrontEnd

# The relay's options the turn reads (cli/run_cmd.py's parser); anything else is not taken.
_OPTIONS = {"prompt": str, "model": str, "agent": str, "session": str}
_FLAGS = ("cont", "yes", "deny", "no_terminal")

_stops: weakref.WeakKeyDictionary[FrontEnd, Callable[[signal.Signals], None]] = weakref.WeakKeyDictionary()


async def run(front: FrontEnd, params: dict[str, Any]) -> dict[str, Any]:
    """Run one `agentls run` turn for the relay ``front``; ``{"code": its exit code}``."""
    directory = Path(str(params.get("directory", "")))
    if not directory.is_absolute() or not await asyncio.to_thread(directory.is_dir):
        raise RemoteError(-32602, f"run needs the absolute path of a folder, not {str(directory)!r}")
    if front in _stops:
        raise RemoteError(-32602, "this connection already runs a turn")
    args = _args(params.get("options"))
    project = await front.hub.projects.open(directory, [])
    terminal = params.get("terminal") or {}
    seat = RelaySeat(front, project.handle, bool(terminal.get("stdout")), bool(terminal.get("stderr")))

    def on_stop(stop: Callable[[signal.Signals], None]) -> Callable[[], None]:
        _stops[front] = stop
        return lambda: _stops.pop(front, None) and None

    call = asyncio.create_task(drive(project.agent, args, seat, on_stop))
    front.hub.track(call)
    code, _stopped = await asyncio.shield(call)  # a relay that vanished leaves the turn running
    return {"code": code}


def stop(front: FrontEnd, params: dict[str, Any]) -> None:
    """``run.stop``: the relay got SIGINT or SIGTERM; the turn stops as in-process."""
    name = str(params.get("signal"))
    sig = signal.Signals[name] if name in ("SIGINT", "SIGTERM") else signal.SIGTERM
    if (stopping := _stops.get(front)) is not None:
        stopping(sig)


def _args(options: object) -> argparse.Namespace:
    if not isinstance(options, dict) or not isinstance(options.get("prompt"), str):
        raise RemoteError(-32602, "run needs options with a prompt")
    args = argparse.Namespace(host="attached")
    for name, kind in _OPTIONS.items():
        value = options.get(name)
        if value is not None and not isinstance(value, kind):
            raise RemoteError(-32602, f"run's option {name} must be a string")
        setattr(args, name, value)
    for flag in _FLAGS:
        setattr(args, flag, bool(options.get(flag)))
    return args


class _Stream(io.TextIOBase):
    """One of the relay's output streams: what is written goes to it as ``run.out``."""

    def __init__(self, front: FrontEnd, name: str, tty: bool) -> None:
        self._front = front
        self._name = name
        self._tty = tty

    def write(self, text: str) -> int:
        if text:  # dropped once the relay is gone
            self._front.conn.notify("run.out", {"stream": self._name, "text": text})
        return len(text)

    def isatty(self) -> bool:
        return self._tty


class RelaySeat:
    """The relay's terminal, as the turn sees it."""

    def __init__(self, front: FrontEnd, handle: str, stdout_tty: bool, stderr_tty: bool) -> None:
        self._front = front
        self._handle = handle
        # Text streams as far as the Transcript and print() use them (write, flush, isatty).
        self.out = cast(TextIO, _Stream(front, "out", stdout_tty))
        self.err = cast(TextIO, _Stream(front, "err", stderr_tty))

    async def read_line(self, prompt: str) -> str | None:
        try:
            answer = await self._front.conn.request("run.read_line", {"prompt": prompt})
        except ConnectionLost:
            return None
        return str(answer.get("text", "")) if isinstance(answer, dict) else ""

    def started(self, app: Agent, session_id: str) -> None:
        del app
        self._front.conn.notify("run.session", {"session": session_id})
        hub = self._front.hub
        hub.tell(hub.watchers.show(self._front, self._handle, [session_id]))

    def answering(self, request_id: str) -> None:
        for other in self._front.hub.others(self._front, self._handle):
            other.conn.notify(
                "answering", {"project": self._handle, "requestID": request_id, "client": self._front.name}
            )

    def answered_by(self, request_id: str) -> str | None:
        return self._front.hub.answered_by.pop(request_id, None)
