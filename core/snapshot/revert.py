"""Revert a session to a message or part, and undo that revert, touching only the agent's files.

Safety rules: a file is rewritten only if it still holds what the agent last wrote (otherwise the user
changed it by hand: it is kept and the result says so); a file the agent created is removed under the
same rule; the state before the revert is snapshotted so ``unrevert`` puts back exactly what the revert
changed. All writes go through the workspace seam, so in an editor a revert is an ordinary undoable edit.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable
from pathlib import Path

from core.api import RevertResult
from core.errors import BusyError, NotFoundError
from core.message.models import MessageWithParts, SessionRevert
from core.snapshot.backend import Snapshots
from core.snapshot.history import (
    FileChange,
    RevertPoint,
    SessionAccess,
    StepPatch,
    file_changes,
    find_point,
    open_steps,
    step_patches,
    unrecorded_steps,
)
from core.snapshot.textdiff import file_diff
from core.workspace import EditContext, Workspace

log = logging.getLogger(__name__)

_UNKNOWN = object()  # the agent's last content could not be looked up


class Reverter:
    """Revert, unrevert and clean up reverted messages for the sessions of one project."""

    def __init__(
        self,
        sessions: SessionAccess,
        snapshots: Snapshots,
        workspace: Workspace,
        is_busy: Callable[[str], bool],
        worktree: Path | None = None,
    ) -> None:
        self.worktree = worktree or workspace.root
        self.sessions = sessions
        self.snapshots = snapshots
        self.workspace = workspace
        self.is_busy = is_busy

    def _check_idle(self, session_id: str) -> None:
        if self.is_busy(session_id):
            raise BusyError(f"session {session_id} is running; stop it before reverting")

    async def revert(self, session_id: str, message_id: str, part_id: str | None = None) -> RevertResult:
        """Undo the agent's file changes from a message (or part) onward; the messages stay until cleanup."""
        self._check_idle(session_id)
        result = RevertResult()
        session = await self.sessions.get(session_id)
        if session.revert is not None:
            # Reverting again starts from the real state, so that unrevert stays exact.
            result.warnings += (await self.unrevert(session_id)).warnings
            session = await self.sessions.get(session_id)
        messages = await self.sessions.messages(session_id)
        point = find_point(messages, message_id, part_id)
        if missed := unrecorded_steps(messages, point):
            result.warnings.append(
                f"{missed} step(s) being reverted changed files that were not recorded (a snapshot "
                "failed then): those changes cannot be undone here"
            )
        changes = await self._changes(messages, point)
        snapshot = await self.snapshots.track() if changes else None
        if changes and snapshot is None:
            result.warnings.append("snapshots are off: files were not restored")
            changes = {}
        ctx = EditContext(f"Revert to {message_id}", session_id=session_id, message_id=message_id)
        diffs: list[str] = []
        for change in changes.values():
            await self._revert_file(change, ctx, result, diffs)
        touched = sorted([*result.restored, *result.removed])
        session.revert = SessionRevert(
            messageID=message_id,
            partID=part_id,
            snapshot=snapshot,
            diff="".join(diffs) or None,
            files=touched,
        )
        await self.sessions.update_session(session)
        log.info(
            "session %s reverted to %s: %d restored, %d removed, %d kept",
            session_id,
            message_id,
            len(result.restored),
            len(result.removed),
            len(result.kept),
        )
        return result

    async def _changes(
        self, messages: list[MessageWithParts], point: RevertPoint, *, until_now: bool = True
    ) -> dict[str, FileChange]:
        """Each file the agent changed from ``point`` on: the steps' patch parts, plus what steps that
        never finished (aborted, failed, killed) changed up to the next step (or up to now)."""
        patches = step_patches(messages, point)
        for step in open_steps(messages, point):
            if step.until is None and not until_now:
                continue  # unrevert only undoes what the revert recorded
            try:
                files = (await self.snapshots.patch(step.start, step.until)).files
            except NotFoundError:
                continue  # the snapshot was pruned: nothing left to compare with
            if files:
                patches.append(StepPatch(step.message_id, step.part_id, step.start, step.until, tuple(files)))
        # Part ids ascend with time, so this restores the order the steps ran in.
        return file_changes(sorted(patches, key=lambda p: p.part_id))

    async def _revert_file(
        self, change: FileChange, ctx: EditContext, result: RevertResult, diffs: list[str]
    ) -> None:
        path = change.path
        try:
            target = await self.snapshots.file_at(change.start, path)
        except NotFoundError as exc:
            result.kept.append(path)
            result.warnings.append(f"{path}: cannot restore, {exc}")
            return
        last = await self._agent_last(change)
        current = await self._read(path)
        if current == target:
            return  # already as it was at that point
        if last is _UNKNOWN:
            result.warnings.append(f"{path}: could not check for edits made after the agent's; restored")
        elif current != last:
            result.kept.append(path)
            what = "created by the agent" if target is None else "changed by the agent"
            result.warnings.append(f"{path}: {what} and edited since; kept the current version")
            return
        await self._write(path, target, ctx, await self._executable(change.start, path, result))
        (result.removed if target is None else result.restored).append(path)
        diffs.append(file_diff(path, current, target).patch or "")

    async def _agent_last(self, change: FileChange) -> bytes | object | None:
        if change.end is None:
            return _UNKNOWN
        try:
            return await self.snapshots.file_at(change.end, change.path)
        except NotFoundError:
            return _UNKNOWN

    async def unrevert(self, session_id: str) -> RevertResult:
        """Put back what the last revert changed, exactly as it was; files edited since are kept."""
        self._check_idle(session_id)
        result = RevertResult()
        session = await self.sessions.get(session_id)
        revert = session.revert
        if revert is None:
            return result
        messages = await self.sessions.messages(session_id)
        touched = revert.files or []
        if touched and revert.snapshot is not None:
            point = find_point(messages, revert.messageID, revert.partID)
            changes = await self._changes(messages, point, until_now=False)
            ctx = EditContext("Undo revert", session_id=session_id, message_id=revert.messageID)
            for path in touched:
                change = changes.get(path)
                if change is None:
                    result.warnings.append(f"{path}: no longer in the session's history; left as is")
                    result.kept.append(path)
                    continue
                await self._unrevert_file(change, revert.snapshot, ctx, result)
        session.revert = None
        await self.sessions.update_session(session)
        return result

    async def _unrevert_file(
        self, change: FileChange, snapshot: str, ctx: EditContext, result: RevertResult
    ) -> None:
        path = change.path
        try:
            before_revert = await self.snapshots.file_at(snapshot, path)
            written = await self.snapshots.file_at(change.start, path)
        except NotFoundError as exc:
            result.kept.append(path)
            result.warnings.append(f"{path}: cannot undo the revert, {exc}")
            return
        current = await self._read(path)
        if current == before_revert:
            return
        if current != written:
            result.kept.append(path)
            result.warnings.append(f"{path}: edited since the revert; kept the current version")
            return
        await self._write(path, before_revert, ctx, await self._executable(snapshot, path, result))
        (result.removed if before_revert is None else result.restored).append(path)

    async def cleanup(self, session_id: str) -> list[str]:
        """Drop the reverted messages and parts and clear ``revert`` (called when the next prompt arrives)."""
        session = await self.sessions.get(session_id)
        revert = session.revert
        if revert is None:
            return []
        messages = await self.sessions.messages(session_id)
        try:
            point = find_point(messages, revert.messageID, revert.partID)
        except NotFoundError:
            point = None  # already gone: just clear the marker
        removed: list[str] = []
        if point is not None:
            later = messages[point.message_index :]
            if point.part_index > 0:
                head, later = later[0], later[1:]
                for part in head.parts[point.part_index :]:
                    await self.sessions.remove_part(session_id, head.info.id, part.id)
            for message in later:
                await self.sessions.remove_message(session_id, message.info.id)
                removed.append(message.info.id)
            log.info("session %s: removed %d reverted messages", session_id, len(removed))
        session.revert = None
        await self.sessions.update_session(session)
        return removed

    async def _read(self, path: str) -> bytes | None:
        try:
            return await self.workspace.read_bytes(self._abs(path))
        except FileNotFoundError:
            return None

    async def _executable(self, snapshot: str, path: str, result: RevertResult) -> bool | None:
        try:
            return path in await self.snapshots.executables_at(snapshot, [path])
        except NotFoundError as exc:
            result.warnings.append(f"{path}: file mode unknown, {exc}")
            return None

    async def _write(
        self, path: str, content: bytes | None, ctx: EditContext, executable: bool | None
    ) -> None:
        target = self._abs(path)
        if content is None:
            await self.workspace.delete(target, ctx)
            return
        await self.workspace.write_bytes(target, content, ctx)
        if executable is not None:
            # The workspace seam carries text only; a re-created script must run again as before.
            await asyncio.to_thread(_set_executable, target, executable)

    def _abs(self, path: str) -> Path:
        return self.worktree / path  # an absolute journal key stays absolute


def _set_executable(path: Path, executable: bool) -> None:
    """Give ``path`` execute bits where it has read bits (or take them all away)."""
    try:
        mode = os.stat(path).st_mode & 0o7777
    except FileNotFoundError:
        return  # an editor that has not saved the file yet: nothing on disk to mark
    wanted = mode | ((mode & 0o444) >> 2) if executable else mode & ~0o111
    if wanted != mode:
        os.chmod(path, wanted)
