"""Snapshots as the app uses them: step hooks, the recording workspace, revert, unrevert, diffs."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from core.api import RevertResult
from core.bus import Bus
from core.config.schema import Config
from core.errors import AgentError
from core.events import AgentWarning, FileDiff
from core.message.models import MessageWithParts, Session
from core.review.authorship import AuthoredWorkspace, WriteLog
from core.review.service import ReviewService
from core.session.sessions import Sessions
from core.snapshot.backend import Snapshots
from core.snapshot.factory import open_snapshots
from core.snapshot.journal import RecordingWorkspace
from core.snapshot.revert import Reverter
from core.snapshot.summary import SessionDiffs
from core.storage.messages import PartFilter
from core.workspace import Workspace

log = logging.getLogger(__name__)


class _SessionAccess:
    """Adapts Sessions to what core.snapshot expects of the session service."""

    def __init__(self, sessions: Sessions) -> None:
        self._s = sessions

    async def get(self, session_id: str) -> Session:
        return await self._s.get(session_id)

    async def messages(self, session_id: str, parts: PartFilter | None = None) -> list[MessageWithParts]:
        return await self._s.messages(session_id, parts=parts)

    async def update_session(self, session: Session) -> Session:
        return await self._s.update(session.id, lambda _current: session)

    async def update_message(self, info: Any) -> None:
        await self._s.update_message(info)

    async def remove_message(self, session_id: str, message_id: str) -> None:
        await self._s.remove_message(session_id, message_id)

    async def remove_part(self, session_id: str, message_id: str, part_id: str) -> None:
        await self._s.remove_part(session_id, message_id, part_id)


class _Hooks:
    """The processor's snapshot hooks over a backend; they mark the agent's write log at each one."""

    def __init__(self, snapshots: Snapshots, writes: WriteLog) -> None:
        self._snapshots = snapshots
        self._writes = writes

    async def track(self, session_id: str | None = None) -> str | None:
        at = self._writes.now()
        snapshot = await self._snapshots.track()
        if snapshot is not None:
            self._writes.mark(snapshot, at, session_id)
        return snapshot

    async def changed_files(
        self, since: str, until: str | None = None, session_id: str | None = None
    ) -> list[str]:
        self._writes.step(since, until, session_id)
        files = (await self._snapshots.patch(since, until)).files
        if not files:  # no patch part, so review never asks for this step
            self._writes.forget(since, until, session_id)
        return files


class SnapshotService:
    """One project's snapshots: the backend, the workspace tools write through, and revert."""

    def __init__(
        self,
        snapshots: Snapshots,
        workspace: Workspace,
        sessions: Sessions,
        bus: Bus,
        is_busy: Callable[[str], bool],
        worktree: Path,
    ) -> None:
        self.backend = snapshots
        # Tools write through this one, so review can tell the agent's writes from the user's.
        self.writes = WriteLog(worktree.resolve())
        self.writes.listen(bus)
        self.workspace = AuthoredWorkspace(workspace, self.writes)
        self._sessions = sessions
        self._bus = bus
        access = _SessionAccess(sessions)
        self._reverter = Reverter(access, snapshots, workspace, is_busy, worktree)
        self._diffs = SessionDiffs(access, snapshots, bus)
        # Undo is the user's: it writes around the agent's write log and the edit journal (a journaled
        # undo would stand in for the agent's version of the file, and the next undo would not find
        # its hunks there).
        users = workspace.inner if isinstance(workspace, RecordingWorkspace) else workspace
        self.review = ReviewService(
            sessions.store, access, snapshots, users, bus, worktree, self.writes, sessions.children
        )

    @classmethod
    def create(
        cls,
        config: Config,
        data_dir: Path,
        project_id: str,
        worktree: Path,
        workspace: Workspace,
        sessions: Sessions,
        bus: Bus,
        is_busy: Callable[[str], bool],
    ) -> SnapshotService:
        """The git store when enabled and possible, else the edit journal (revert still works)."""
        snap = config.snapshot
        setup = open_snapshots(
            data_dir,
            project_id,
            worktree,
            workspace,
            enabled=snap.enabled,
            max_file_bytes=snap.max_file_bytes,
            max_blob_bytes=snap.max_blob_bytes,
            max_store_bytes=snap.max_store_bytes,
            keep_days=snap.keep_days,
        )
        if setup.fallback_reason:
            log.info("snapshots: %s", setup.fallback_reason)
        return cls(setup.snapshots, setup.workspace, sessions, bus, is_busy, worktree)

    def hooks(self) -> _Hooks:
        """What the processor calls at step start and finish."""
        return _Hooks(self.backend, self.writes)

    async def on_patch(self, session_id: str) -> None:
        """After a step changed files: store the diff summaries and publish session.diff, and
        record the step's hunks for review."""
        await self._diffs.on_patch(session_id)
        try:
            await self.review.record(session_id)
        except (AgentError, OSError) as exc:  # the turn goes on; the user is told what is missing
            log.warning("review hunks of session %s not recorded: %s", session_id, exc)
            message = (
                f"this step's changes could not be recorded for review ({exc}); "
                "diff and revert still see them"
            )
            self._bus.publish(AgentWarning(kind="review", sessionID=session_id, message=message))

    async def revert(self, session_id: str, message_id: str, part_id: str | None = None) -> RevertResult:
        """Restore the files the agent changed from that point on (BusyError while running)."""
        return await self._reverter.revert(session_id, message_id, part_id)

    async def unrevert(self, session_id: str) -> RevertResult:
        """Put back what the last revert replaced."""
        return await self._reverter.unrevert(session_id)

    async def cleanup(self, session_id: str) -> None:
        """Drop the reverted messages (a new prompt makes the revert final)."""
        await self._reverter.cleanup(session_id)

    async def diff(self, session_id: str, message_id: str | None = None) -> list[FileDiff]:
        """Unified diffs of what the agent changed in the session, or from ``message_id`` on."""
        return await self._diffs.diff(session_id, message_id)

    async def unrecorded(self, session_id: str, message_id: str | None = None) -> int:
        """How many steps that ``diff`` covers changed files it cannot show (a snapshot failed)."""
        return await self._diffs.unrecorded(session_id, message_id)
