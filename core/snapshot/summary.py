"""The diff of a session or of one turn, from its patch parts, and the summaries stored from it.

Only files the agent's steps listed are diffed, each from its content before the first step that
changed it to its content after the last one, so edits the user made to other files never show up.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence

from core.bus import Bus
from core.errors import NotFoundError
from core.events import FileDiff, SessionDiff
from core.message.models import AssistantMessage, DiffSummary, MessageWithParts, UserMessage
from core.snapshot.backend import Content, Snapshots
from core.snapshot.history import (
    FileChange,
    SessionAccess,
    StepPatch,
    before_point,
    file_changes,
    find_point,
    patches_by_user_message,
    step_patches,
    unrecorded_steps,
)
from core.snapshot.textdiff import file_diff
from core.storage.messages import PartFilter

log = logging.getLogger(__name__)


_DIFF_PARTS = ("step-start", "step-finish", "patch")


def summary_of(diffs: Sequence[FileDiff]) -> DiffSummary:
    """{additions, deletions, files} of a list of file diffs."""
    return DiffSummary(
        additions=sum(d.additions for d in diffs),
        deletions=sum(d.deletions for d in diffs),
        files=len(diffs),
    )


class SessionDiffs:
    """Session and per-turn diffs; ``summarize`` stores the summaries and publishes ``session.diff``."""

    def __init__(self, sessions: SessionAccess, snapshots: Snapshots, bus: Bus | None = None) -> None:
        self.sessions = sessions
        self.snapshots = snapshots
        self.bus = bus

    async def _live_messages(self, session_id: str) -> list[MessageWithParts]:
        session = await self.sessions.get(session_id)
        # Only the step and patch parts (and the revert point's): a long session's text and tool
        # outputs are most of its bytes, and this runs after every step that changed files.
        also = session.revert.partID if session.revert is not None else None
        messages = await self.sessions.messages(session_id, PartFilter(_DIFF_PARTS, also))
        if session.revert is None:
            return messages
        try:
            point = find_point(messages, session.revert.messageID, session.revert.partID)
        except NotFoundError:
            return messages
        return before_point(messages, point)  # reverted turns no longer count

    async def diff(self, session_id: str, message_id: str | None = None) -> list[FileDiff]:
        """The diff of the whole session, of one user turn, or of one assistant message."""
        messages = await self._live_messages(session_id)
        if message_id is None:
            return await self._diff(step_patches(messages))
        return await self._diff(_patches_of(messages, message_id))

    async def unrecorded(self, session_id: str, message_id: str | None = None) -> int:
        """How many steps that ``diff`` covers changed files it cannot show (a snapshot failed)."""
        messages = await self._live_messages(session_id)
        if message_id is None:
            return unrecorded_steps(messages)
        target = next((m for m in messages if m.info.id == message_id), None)
        if target is None:
            raise NotFoundError(f"message {message_id} not found")
        if isinstance(target.info, AssistantMessage):
            return unrecorded_steps([target])
        return unrecorded_steps(
            [m for m in messages if isinstance(m.info, AssistantMessage) and m.info.parentID == message_id]
        )

    async def _diff(self, patches: Sequence[StepPatch]) -> list[FileDiff]:
        changes = list(file_changes(patches).values())
        if not changes:
            return []
        now: str | None = None
        if any(change.end is None for change in changes):
            # A step without a finish snapshot: compare with the present state.
            now = await self.snapshots.track()
        sides = [(change, change.end or now) for change in changes]
        wanted = [(change.start, change.path) for change in changes]
        wanted += [(end, change.path) for change, end in sides if end]
        contents = await self.snapshots.contents(wanted)  # one read of the store for all files
        return await asyncio.to_thread(lambda: [_file(change, end, contents) for change, end in sides])

    async def summarize(self, session_id: str) -> list[FileDiff]:
        """Recompute the session's and the latest turn's summaries; publish ``session.diff``."""
        messages = await self._live_messages(session_id)
        diffs = await self._diff(step_patches(messages))
        session = await self.sessions.get(session_id)
        summary = summary_of(diffs)
        if session.summary != summary:
            session.summary = summary
            await self.sessions.update_session(session)
        turns = patches_by_user_message(messages)
        users = [m.info for m in messages if isinstance(m.info, UserMessage)]
        latest = next((u.id for u in reversed(users) if turns.get(u.id)), None)
        for user in users:
            # Earlier turns do not change once the next one started; fill in only what is missing.
            if user.id != latest and user.summary is not None:
                continue
            turn = summary_of(await self._diff(turns.get(user.id, [])))
            if user.summary != turn:
                user.summary = turn
                await self.sessions.update_message(user)
        if self.bus is not None:
            self.bus.publish(SessionDiff(sessionID=session_id, diff=diffs))
        return diffs

    async def on_patch(self, session_id: str) -> None:
        """The processor's hook after a step that produced a patch part."""
        await self.summarize(session_id)


def _file(change: FileChange, end: str | None, contents: Mapping[tuple[str, str], Content]) -> FileDiff:
    before = contents[change.start, change.path]
    after = contents[end, change.path] if end else None
    for side in (before, after):
        if isinstance(side, NotFoundError):
            # Say so in the diff rather than dropping the file: the change happened.
            log.warning("no diff for %s: %s", change.path, side)
            return FileDiff(file=change.path, patch=f"(no diff available: {side})\n")
    assert not isinstance(before, NotFoundError) and not isinstance(after, NotFoundError)
    return file_diff(change.path, before, after)


def _patches_of(messages: Sequence[MessageWithParts], message_id: str) -> list[StepPatch]:
    target = next((m for m in messages if m.info.id == message_id), None)
    if target is None:
        raise NotFoundError(f"message {message_id} not found")
    if isinstance(target.info, AssistantMessage):
        return [p for p in step_patches(messages) if p.message_id == message_id]
    return patches_by_user_message(messages).get(message_id, [])
