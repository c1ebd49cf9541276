"""Background shells: commands the agent started with ``bash`` ``background: true`` that go on
while the turn does (a dev server, a watcher), read with ``shell_output`` and stopped with
``shell_kill`` (issue 40).

Each runs like any ``bash`` command — its own process group, confined by the sandbox, watched by
the reaper so that it dies with agentls even under kill -9 — but nothing waits for it. Its output
is kept in memory up to ``KEEP_CHARS`` (the oldest text goes first, and a read says how much it
missed); a read returns what came since the last one, at most ``READ_CHARS``. A session may run
``MAX_PER_SESSION`` at once; a deleted session's shells are killed. A background command's
connections to hosts not on the sandbox's allow-list are refused (no turn is there to ask).
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import itertools
import logging
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from core.bus import Bus
from core.errors import NotFoundError, ToolError
from core.events import BackgroundShell, BackgroundShellUpdated, Event, SessionDeleted
from core.tools.process import DRAIN_S, Started, kill_group, start_command

if TYPE_CHECKING:
    from core.sandbox.sandbox import Sandbox

log = logging.getLogger(__name__)

MAX_PER_SESSION = 8
KEEP_CHARS = 1_000_000
READ_CHARS = 30_000
TAIL_LINES = 5  # lines a client's list shows of each shell
TAIL_CHARS = 4_000


@dataclass(eq=False)
class Shell:
    """One background command and what it printed."""

    id: str
    session_id: str
    command: str
    cwd: Path
    started_at: float
    started: Started | None = None
    exit_code: int | None = None
    done: bool = False
    watcher: asyncio.Task[None] | None = None
    _text: list[str] = field(default_factory=list)
    _kept: int = 0  # characters in _text
    _total: int = 0  # characters ever printed
    _read: int = 0  # of _total, how many were read
    _decoder: codecs.IncrementalDecoder = field(
        default_factory=lambda: codecs.getincrementaldecoder("utf-8")("replace")
    )

    def feed(self, data: bytes, final: bool = False) -> None:
        text = self._decoder.decode(data, final)
        if not text:
            return
        self._text.append(text)
        self._kept += len(text)
        self._total += len(text)
        if self._kept > KEEP_CHARS:
            joined = "".join(self._text)[-KEEP_CHARS // 2 :]
            self._text, self._kept = [joined], len(joined)

    def read(self) -> tuple[str, int, bool]:
        """What came since the last read (at most READ_CHARS: the rest waits for the next read),
        how many characters before it were lost to the memory cap, and whether more is waiting."""
        first_kept = self._total - self._kept
        missed = max(0, first_kept - self._read)
        start = max(self._read, first_kept) - first_kept
        joined = "".join(self._text)
        new = joined[start : start + READ_CHARS]
        self._read = first_kept + start + len(new)
        return new, missed, self._read < self._total

    def last(self, chars: int) -> str:
        return "".join(self._text)[-chars:]

    def summary(self, lines: int = TAIL_LINES) -> BackgroundShell:
        """What a client lists: the command, when it started, its state and its last lines."""
        status: Literal["running", "exited", "stopped"] = "running"
        if self.done:
            status = "stopped" if self.exit_code is None or self.exit_code < 0 else "exited"
        tail = "\n".join(self.last(TAIL_CHARS).splitlines()[-lines:])
        return BackgroundShell(
            id=self.id,
            sessionID=self.session_id,
            command=self.command,
            started=int(self.started_at * 1000),
            status=status,
            exitCode=self.exit_code if status == "exited" else None,
            tail=tail,
        )

    @property
    def state(self) -> str:
        if not self.done:
            return "running"
        if self.exit_code is None or self.exit_code < 0:
            return "stopped (killed)"
        return f"exited with code {self.exit_code}"


class BackgroundShells:
    """Every background shell of one agent, by id; a session's are killed when it is deleted."""

    def __init__(self, bus: Bus | None = None) -> None:
        self._shells: dict[str, Shell] = {}
        self._ids = itertools.count(1)
        self._tasks: set[asyncio.Task[None]] = set()
        self._bus = bus
        if bus is not None:
            bus.listen(self._deleted, SessionDeleted)

    def listing(self, session_id: str | None = None) -> list[BackgroundShell]:
        """Every shell (of one session, or all) as a client lists it, oldest first."""
        shells = self._shells.values() if session_id is None else self.of_session(session_id)
        return [s.summary() for s in shells]

    def find(self, shell_id: str) -> Shell:
        """A shell by id, whatever its session (a client's stop button)."""
        shell = self._shells.get(shell_id)
        if shell is None:
            raise NotFoundError(f"there is no background shell {shell_id!r}")
        return shell

    def of_session(self, session_id: str) -> list[Shell]:
        return [s for s in self._shells.values() if s.session_id == session_id]

    async def start(self, command: str, cwd: Path, session_id: str, sandbox: Sandbox | None) -> Shell:
        running = [s for s in self.of_session(session_id) if not s.done]
        if len(running) >= MAX_PER_SESSION:
            ids = ", ".join(s.id for s in running)
            raise ToolError(
                f"this session already runs {len(running)} background shells ({ids}), the most it may: "
                "stop one with shell_kill first"
            )
        shell = Shell(
            id=f"shell_{next(self._ids)}",
            session_id=session_id,
            command=command,
            cwd=cwd,
            started_at=time.time(),
        )
        shell.started = await start_command(
            command, cwd=cwd, on_data=shell.feed, sandbox=sandbox, session_id=session_id
        )
        self._shells[shell.id] = shell
        task = shell.watcher = asyncio.ensure_future(self._watch(shell, shell.started))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        log.info("background shell %s of %s: %s", shell.id, session_id, command)
        self._publish(shell)
        return shell

    def get(self, session_id: str, shell_id: str) -> Shell:
        shell = self._shells.get(shell_id)
        if shell is None or shell.session_id != session_id:
            known = ", ".join(s.id for s in self.of_session(session_id)) or "none"
            raise ToolError(
                f"there is no background shell {shell_id!r} in this session (its shells: {known})"
            )
        return shell

    async def kill(self, shell: Shell) -> None:
        if shell.started is not None and not shell.done:
            await kill_group(shell.started.pid, shell.started.spawned.exited)
        if shell.watcher is not None:  # its state and last output settled before a caller reads them
            await asyncio.wait([shell.watcher], timeout=DRAIN_S + 1)

    async def kill_session(self, session_id: str) -> None:
        await asyncio.gather(*(self.kill(s) for s in self.of_session(session_id)))
        for shell in self.of_session(session_id):
            self._shells.pop(shell.id, None)

    async def close(self) -> None:
        """Kill every shell (the agent closes)."""
        await asyncio.gather(*(self.kill(s) for s in list(self._shells.values())))
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=2)

    async def _watch(self, shell: Shell, started: Started) -> None:
        spawned = started.spawned
        try:
            await spawned.exited
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(spawned.eof), DRAIN_S)
        finally:
            shell.feed(b"", final=True)
            shell.exit_code = spawned.returncode()
            shell.done = True
            started.finish()
            self._publish(shell)

    def _publish(self, shell: Shell) -> None:
        if self._bus is not None:
            self._bus.publish(BackgroundShellUpdated(sessionID=shell.session_id, shell=shell.summary()))

    def _deleted(self, event: Event) -> None:
        if isinstance(event, SessionDeleted):
            task = asyncio.ensure_future(self.kill_session(event.info.id))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
