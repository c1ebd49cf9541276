"""Who wrote a step's changes: the agent's own writes, told apart from the user's typing meanwhile.

A step's snapshots read the whole project at its start and end, so whatever the user changed while
the step ran (another file, or another part of a file the agent edits) lands between them too. The
tools write through the workspace, so the ``AuthoredWorkspace`` logs each of the agent's writes
(the file before and after it) in a ``WriteLog``; the snapshot hooks mark the log where each step
starts and ends. Review then keeps only the agent's lines (``agent_only``), and leaves out a file
the agent's tools never wrote in the step — unless a tool ran that may change files behind the
workspace's back (a shell command, a sub-agent, an MCP tool), when any changed file may be its.
Every write and tool is logged with the session it ran in, and a step reads only its own session's
entries: a parent's step running while a background sub-agent writes does not claim the sub-agent's
changes (they are the sub-agent's hunks, shown in the parent's review as its). What the log cannot
tell is who changed a file behind the workspace: a step that ran a shell command still keeps every
file changed in its window, a concurrent sub-agent's included. ``task`` itself is not such a tool:
its sub-agent's writes are logged under the sub-agent's session.
Without a log for a step (a server restarted in between, or the log's memory cap was reached) the
step's review is as the snapshots have it. A write the user approved in its permission dialog
(``EditContext.approved``) counts as the user's own: it was reviewed before it landed.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import field
from pathlib import Path

from core.bus import Bus
from core.events import Event, PartUpdated, SessionIdle
from core.message.models import ToolPart
from core.record import record, struct
from core.review.merge import hunks_between, split_lines, undo_hunks
from core.review.record import as_text
from core.workspace import EditContext, ForwardingWorkspace, Workspace

log = logging.getLogger(__name__)

# Tools that change files only through the workspace (or not at all); any other tool may write
# behind it, so a step that ran one keeps every changed file in its review.
WORKSPACE_ONLY_TOOLS = frozenset(
    {
        "read",
        "edit",
        "write",
        "apply_patch",
        "glob",
        "grep",
        "list",
        "question",
        "skill",
        "todowrite",
        "todoread",
        "task",  # the sub-agent's own writes and tools are logged under its session
    }
    | {"webfetch", "rename", "format"}  # the last two: edits the editor computed, written as edit writes
)
_LOG_BYTES = 64 * 1024 * 1024  # the contents the log keeps at most (the oldest writes go first)


@record
class Write:
    """One write of the agent: the file before and after it (None: absent / deleted); ``approved``:
    the user accepted this change in its permission dialog; ``session``: the session whose tool
    wrote it (None: not known, any step's)."""

    seq: int
    path: str
    before: bytes | None
    after: bytes | None
    approved: bool = False
    session: str | None = None

    @property
    def size(self) -> int:
        return len(self.before or b"") + len(self.after or b"")


@record
class StepWrites:
    """What the log knows of one step: the agent's writes by file, and whether a tool ran that may
    have changed files without the workspace."""

    by_file: dict[str, list[Write]]
    opaque: bool


@struct
class WriteLog:
    """The agent's writes in order, and the steps' start and end marks into them (in memory); marks
    and steps are per session (two sessions' snapshots of the same files share a hash)."""

    worktree: Path
    limit: int = _LOG_BYTES
    _seq: int = 0
    _writes: list[Write] = field(default_factory=list)
    _bytes: int = 0
    _forgotten: int = 0  # writes with a lower seq were dropped to stay under ``limit``
    _opaque: list[tuple[int, str | None]] = field(default_factory=list)  # (seq, session)
    _marks: dict[tuple[str | None, str], int] = field(default_factory=dict)
    _steps: dict[tuple[str | None, str, str], tuple[int, int]] = field(default_factory=dict)
    # Each busy session's last mark: the start of a step still running, whose writes another
    # session's finished step must not drop (a foreground sub-agent's steps end inside its parent's).
    _running: dict[str | None, int] = field(default_factory=dict)

    def now(self) -> int:
        """The position of the next write."""
        return self._seq

    def key(self, path: Path) -> str:
        """The snapshots' name of a path: worktree-relative when inside it, else absolute."""
        resolved = path.resolve()
        if resolved.is_relative_to(self.worktree):
            return resolved.relative_to(self.worktree).as_posix()
        return resolved.as_posix()

    def wrote(
        self,
        path: Path,
        before: bytes | None,
        after: bytes | None,
        approved: bool = False,
        session: str | None = None,
    ) -> None:
        """Log one write of the agent (``approved``: the user accepted it in its dialog) made by
        ``session``'s tools."""
        entry = Write(self._seq, self.key(path), before, after, approved, session)
        self._seq += 1
        self._writes.append(entry)
        self._bytes += entry.size
        while self._bytes > self.limit and self._writes:
            dropped = self._writes.pop(0)
            self._bytes -= dropped.size
            self._forgotten = dropped.seq + 1

    def tool_ran(self, tool: str, session: str | None = None) -> None:
        """A tool started in ``session``; one that may write behind the workspace makes that
        session's steps opaque."""
        if tool not in WORKSPACE_ONLY_TOOLS and not tool.startswith("editor_"):
            self._opaque.append((self._seq, session))
            self._seq += 1

    def listen(self, bus: Bus) -> None:
        """Follow the tools the agent starts (their parts on ``bus``)."""

        def on_part(event: Event) -> None:
            part = getattr(event, "part", None)
            if isinstance(part, ToolPart) and part.state.status == "running":
                self.tool_ran(part.tool, part.sessionID)

        def on_idle(event: Event) -> None:
            self._running.pop(getattr(event, "sessionID", None), None)

        bus.listen(on_part, PartUpdated)
        bus.listen(on_idle, SessionIdle)

    def mark(self, snapshot: str, at: int, session: str | None = None) -> None:
        """``session`` took snapshot ``snapshot`` when the log stood at ``at``."""
        self._marks[session, snapshot] = at
        self._running[session] = at

    def step(self, start: str, end: str | None, session: str | None = None) -> None:
        """The processor asked for the files ``session``'s step changed from ``start`` to ``end``:
        remember the window."""
        if end is None or (session, start) not in self._marks or (session, end) not in self._marks:
            return
        self._steps[session, start, end] = (self._marks[session, start], self._marks[session, end])

    def writes(self, start: str, end: str | None, session: str | None = None) -> StepWrites | None:
        """``session``'s writes in the step (and those of no known session), or None when the log
        does not know the step (whole)."""
        window = self._steps.get((session, start, end)) if end is not None else None
        if window is None or window[0] < self._forgotten:
            return None
        lo, hi = window
        by_file: dict[str, list[Write]] = {}
        for entry in self._writes:
            if lo <= entry.seq < hi and _ours(entry.session, session):
                by_file.setdefault(entry.path, []).append(entry)
        self._opaque = [o for o in self._opaque if o[0] >= self._oldest_open()]
        opaque = any(lo <= seq < hi and _ours(who, session) for seq, who in self._opaque)
        return StepWrites(by_file, opaque)

    def _oldest_open(self) -> int:
        starts = [lo for lo, _ in self._steps.values()] + list(self._running.values())
        return min(starts, default=self._seq)

    def forget(self, start: str, end: str | None, session: str | None = None) -> None:
        """The step is recorded: drop what no other step still needs."""
        if end is not None:
            self._steps.pop((session, start, end), None)
        oldest = self._oldest_open()
        kept = [w for w in self._writes if w.seq >= oldest]
        self._bytes -= sum(w.size for w in self._writes) - sum(w.size for w in kept)
        self._writes = kept
        live = {m for window in self._steps.values() for m in window} | set(self._running.values())
        self._marks = {h: at for h, at in self._marks.items() if at >= oldest or at in live}


def _ours(who: str | None, session: str | None) -> bool:
    """Whether an entry of ``who`` belongs to a step of ``session`` (either unknown: it may)."""
    return who is None or session is None or who == session


def agent_only(before: bytes | None, after: bytes | None, writes: Sequence[Write]) -> bytes | None:
    """The file as it would be after the step had the agent not written (the user's edits and the
    writes the user approved kept): ``after`` with each unapproved write undone, newest first.
    ``before`` when that cannot be told apart (a file created or deleted, not text, or the user's
    typing over the agent's own lines)."""
    unapproved = [w for w in writes if not w.approved]
    if not unapproved:
        return after
    if after is None or as_text(after) is None:
        return before
    now = split_lines(after)
    for write in reversed(unapproved):
        if write.before is None or write.after is None or as_text(write.before) is None:
            return before
        agent = split_lines(write.after)
        now, clashes = undo_hunks(now, agent, hunks_between(split_lines(write.before), agent))
        if clashes:
            return before
    return b"".join(now)


class AuthoredWorkspace(ForwardingWorkspace):
    """A workspace that logs the agent's writes and deletes (see the module docstring)."""

    def __init__(self, inner: Workspace, log: WriteLog) -> None:
        super().__init__(inner)
        self.log = log

    async def write_bytes(self, path: Path, data: bytes, ctx: EditContext) -> None:
        before = await self._current(path)
        await self.inner.write_bytes(path, data, ctx)
        self.log.wrote(path, before, data, ctx.approved, ctx.session_id)

    async def delete(self, path: Path, ctx: EditContext) -> None:
        before = await self._current(path)
        await self.inner.delete(path, ctx)
        self.log.wrote(path, before, None, ctx.approved, ctx.session_id)

    async def _current(self, path: Path) -> bytes | None:
        try:
            return await self.inner.read_bytes(path)
        except (FileNotFoundError, IsADirectoryError):
            return None
