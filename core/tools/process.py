"""Run a shell command in its own process group, stream its output, kill the whole group on demand."""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

KILL_GRACE_S = 0.3  # between SIGTERM and SIGKILL: short, because an abort must land within a second
DRAIN_S = 0.2  # after the shell exits, background children may hold the pipe open; don't wait on them
MEMORY_CAP = 8 * 1024 * 1024  # keep at most this much output in memory: the tail is what gets shown

Stop = Literal["exited", "timeout", "aborted"]


@dataclass(frozen=True)
class ProcessResult:
    """How a command ended and what it printed (stdout and stderr merged, in order)."""

    output: str
    exit_code: int | None
    stop: Stop
    dropped_bytes: int


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


async def run_command(
    command: str,
    *,
    cwd: Path,
    timeout_s: float,
    abort: asyncio.Event,
    on_output: Callable[[str], None] | None = None,
    throttle_s: float = 0.1,
    live_chars: int = 30_000,
) -> ProcessResult:
    """Run ``command`` until it exits, times out or ``abort`` is set; report output as it comes."""
    env = {**os.environ, "PAGER": "cat", "GIT_PAGER": "cat"}  # stdin is closed: a pager would hang
    proc = await asyncio.create_subprocess_exec(
        *shell(),
        command,
        cwd=cwd,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,
    )
    assert proc.stdout is not None
    tail = _Tail()
    last_report = 0.0

    async def pump(stream: asyncio.StreamReader) -> None:
        nonlocal last_report
        while chunk := await stream.read(65536):
            tail.feed(chunk)
            now = time.monotonic()
            if on_output is not None and now - last_report >= throttle_s:
                last_report = now
                on_output(tail.last(live_chars))

    reader = asyncio.create_task(pump(proc.stdout))
    exited = asyncio.create_task(proc.wait())
    aborted = asyncio.create_task(abort.wait())
    stop: Stop = "exited"
    try:
        done, _ = await asyncio.wait(
            {exited, aborted}, timeout=timeout_s, return_when=asyncio.FIRST_COMPLETED
        )
        if exited not in done:
            stop = "aborted" if aborted in done else "timeout"
            await kill_group(proc)
        await exited
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(reader), DRAIN_S)
    finally:
        if proc.returncode is None:
            await kill_group(proc)
        for task in (reader, aborted, exited):
            task.cancel()
        await asyncio.gather(reader, aborted, exited, return_exceptions=True)
    tail.feed(b"", final=True)
    if on_output is not None:
        on_output(tail.last(live_chars))
    return ProcessResult(tail.text(), proc.returncode, stop, tail.dropped)


async def kill_group(proc: asyncio.subprocess.Process) -> None:
    """SIGTERM the process group, then SIGKILL whatever is left of it after a short grace."""
    pgid = proc.pid  # start_new_session made the shell the leader of its own group
    if not _signal_group(pgid, signal.SIGTERM):
        return
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(proc.wait(), KILL_GRACE_S)
    # Children may ignore SIGTERM or outlive the shell: finish the group off either way.
    _signal_group(pgid, signal.SIGKILL)
    await proc.wait()


def _signal_group(pgid: int, sig: signal.Signals) -> bool:
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        return False
    return True
