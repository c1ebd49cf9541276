"""Run a shell command in its own process group, stream its output, kill the whole group on demand."""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from core.llm.secrets import child_environment
from core.record import record
from core.tools.reaper import reaper

if TYPE_CHECKING:
    from core.sandbox.blocked import Blocked
    from core.sandbox.sandbox import Sandbox

KILL_GRACE_S = 0.3  # between SIGTERM and SIGKILL: short, because an abort must land within a second
DRAIN_S = 0.2  # after the shell exits, background children may hold the pipe open; don't wait on them
MEMORY_CAP = 8 * 1024 * 1024  # keep at most this much output in memory: the tail is what gets shown

Stop = Literal["exited", "timeout", "aborted"]


@record
class ProcessResult:
    """How a command ended and what it printed (stdout and stderr merged, in order)."""

    output: str
    exit_code: int | None
    stop: Stop
    dropped_bytes: int
    blocked: tuple[Blocked, ...] = ()  # what the sandbox refused, as the output tells it


class _Tail:
    """Decoded output with a memory cap that drops the oldest text first."""

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._chunks: list[str] = []
        self._size = 0
        self.dropped = 0

    def feed(self, data: bytes, final: bool = False) -> None:
        text = self._decoder.decode(data, final)
        if not text:
            return
        self._chunks.append(text)
        self._size += len(text)
        if self._size > MEMORY_CAP:
            joined = "".join(self._chunks)
            keep = joined[-MEMORY_CAP // 2 :]
            self.dropped += len(joined) - len(keep)
            self._chunks, self._size = [keep], len(keep)

    def text(self) -> str:
        return "".join(self._chunks)

    def last(self, chars: int) -> str:
        return self.text()[-chars:]


def shell() -> list[str]:
    """``bash -c`` when bash exists, else POSIX ``sh -c``."""
    for candidate in ("/bin/bash", "/usr/bin/bash"):
        if os.access(candidate, os.X_OK):
            return [candidate, "-c"]
    return ["/bin/sh", "-c"]


class _Protocol(asyncio.SubprocessProtocol):
    """Collects output and signals exit and end of output separately.

    ``asyncio.subprocess.Process.wait()`` only returns once every pipe is closed, so a background
    child that keeps stdout open would hold the call until the timeout. ``process_exited`` fires
    when the shell itself exits, which is what ends a command.
    """

    def __init__(self, on_data: Callable[[bytes], None]) -> None:
        loop = asyncio.get_running_loop()
        self.on_data = on_data
        self.exited: asyncio.Future[None] = loop.create_future()
        self.eof: asyncio.Future[None] = loop.create_future()

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        self.on_data(data)

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        if fd == 1 and not self.eof.done():
            self.eof.set_result(None)

    def process_exited(self) -> None:
        if not self.exited.done():
            self.exited.set_result(None)


async def run_command(
    command: str,
    *,
    cwd: Path,
    timeout_s: float,
    abort: asyncio.Event,
    on_output: Callable[[str], None] | None = None,
    throttle_s: float = 0.1,
    live_chars: int = 30_000,
    sandbox: Sandbox | None = None,
    session_id: str | None = None,
) -> ProcessResult:
    """Run ``command`` until it exits, times out or ``abort`` is set; report output as it comes.

    With a ``sandbox`` the shell runs confined by it (``session_id``: whose warning a fallback is)."""
    tail = _Tail()
    last_report = 0.0

    def on_data(data: bytes) -> None:
        nonlocal last_report
        tail.feed(data)
        now = time.monotonic()
        if on_output is not None and now - last_report >= throttle_s:
            last_report = now
            on_output(tail.last(live_chars))

    # stdin is closed: a pager would hang. Provider keys agentls holds are not the command's business.
    env = {**child_environment(os.environ), "PAGER": "cat", "GIT_PAGER": "cat"}
    argv = [*shell(), command]
    confined = None
    if sandbox is not None:
        confined = sandbox.confine(argv, cwd, env, session_id=session_id)
        argv, env = confined.argv, confined.env
    loop = asyncio.get_running_loop()
    reaper().start()
    transport, protocol = await loop.subprocess_exec(
        lambda: _Protocol(on_data),
        *argv,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    pid = transport.get_pid()
    reaper().watch(pid)  # the group is killed even if agentls is killed with -9
    aborted = asyncio.create_task(abort.wait())
    stop: Stop = "exited"
    try:
        waiters: set[asyncio.Future[Any]] = {protocol.exited, aborted}
        done, _ = await asyncio.wait(waiters, timeout=timeout_s, return_when=asyncio.FIRST_COMPLETED)
        if protocol.exited not in done:
            stop = "aborted" if aborted in done else "timeout"
            await kill_group(pid, protocol.exited)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(protocol.eof), DRAIN_S)
    finally:
        aborted.cancel()
        if not protocol.exited.done():
            await kill_group(pid, protocol.exited)
        reaper().forget(pid)
        transport.close()
    tail.feed(b"", final=True)
    if on_output is not None:
        on_output(tail.last(live_chars))
    output = tail.text()
    blocked = tuple(confined.blocked(output)) if confined is not None and stop == "exited" else ()
    return ProcessResult(output, transport.get_returncode(), stop, tail.dropped, blocked)


async def kill_group(pgid: int, exited: asyncio.Future[None]) -> None:
    """SIGTERM the process group, then SIGKILL whatever is left of it after a short grace."""
    if not _signal_group(pgid, signal.SIGTERM):
        return
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(asyncio.shield(exited), KILL_GRACE_S)
    # Children may ignore SIGTERM or outlive the shell: finish the group off either way.
    _signal_group(pgid, signal.SIGKILL)
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(asyncio.shield(exited), KILL_GRACE_S)


def _signal_group(pgid: int, sig: signal.Signals) -> bool:
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        return False
    return True
