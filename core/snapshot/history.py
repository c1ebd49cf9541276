"""Reading step patches out of a session's messages: what changed after a point, and where from."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from core.errors import NotFoundError
from core.message.models import (
    MessageWithParts,
    PatchPart,
    Session,
    StepFinishPart,
    StepStartPart,
    UserMessage,
)
from core.record import record
from core.storage.messages import PartFilter


class SessionAccess(Protocol):
    """What revert and the diff summary need of the session service."""

    async def get(self, session_id: str) -> Session:
        """A session by id (NotFoundError if unknown)."""
        ...

    async def messages(self, session_id: str, parts: PartFilter | None = None) -> list[MessageWithParts]:
        """Every message with its parts (those ``parts`` lets through), oldest first."""
        ...

    async def update_session(self, session: Session) -> Any:
        """Store a changed session (and tell clients)."""
        ...

    async def update_message(self, info: Any) -> Any:
        """Store a changed message (and tell clients)."""
        ...

    async def remove_message(self, session_id: str, message_id: str) -> Any:
        """Delete a message and its parts."""
        ...

    async def remove_part(self, session_id: str, message_id: str, part_id: str) -> Any:
        """Delete one part."""
        ...


@record
class StepPatch:
    """A patch part with the snapshot after its step (the step-finish snapshot before it)."""

    message_id: str
    part_id: str
    hash: str
    after: str | None
    files: tuple[str, ...]


@record
class FileChange:
    """A file changed by the agent: its content at ``start`` is the "before", at ``end`` the agent's last."""

    path: str
    start: str
    end: str | None


@record
class RevertPoint:
    """Where a revert cuts: ``message_index`` into the list, and the first reverted part index in it."""

    message_index: int
    part_index: int


def find_point(messages: Sequence[MessageWithParts], message_id: str, part_id: str | None) -> RevertPoint:
    """The position of a message (or one of its parts); NotFoundError when absent."""
    for mi, message in enumerate(messages):
        if message.info.id != message_id:
            continue
        if part_id is None:
            return RevertPoint(mi, 0)
        for pi, part in enumerate(message.parts):
            if part.id == part_id:
                return RevertPoint(mi, pi)
        raise NotFoundError(f"part {part_id} not found in message {message_id}")
    raise NotFoundError(f"message {message_id} not found")


def step_patches(messages: Sequence[MessageWithParts], point: RevertPoint | None = None) -> list[StepPatch]:
    """The patch parts at or after ``point`` (all when None), oldest first."""
    out: list[StepPatch] = []
    for mi, message in enumerate(messages):
        if point is not None and mi < point.message_index:
            continue
        finish: str | None = None
        for pi, part in enumerate(message.parts):
            if isinstance(part, StepFinishPart):
                finish = part.snapshot
            if not isinstance(part, PatchPart):
                continue
            if point is not None and mi == point.message_index and pi < point.part_index:
                continue
            # The processor writes the step-finish part (the after-snapshot) just before the patch.
            after = finish if finish is not None else _next_finish(message, pi)
            out.append(StepPatch(message.info.id, part.id, part.hash, after, tuple(part.files)))
    return out


def unrecorded_steps(messages: Sequence[MessageWithParts], point: RevertPoint | None = None) -> int:
    """How many steps at or after ``point`` ran tools but could not record their file changes."""
    count = 0
    for mi, message in enumerate(messages):
        if point is not None and mi < point.message_index:
            continue
        for pi, part in enumerate(message.parts):
            if point is not None and mi == point.message_index and pi < point.part_index:
                continue
            if isinstance(part, StepFinishPart) and part.unrecorded:
                count += 1
    return count


@record
class OpenStep:
    """A step that took its start snapshot but never wrote its finish and patch parts (aborted, failed,
    or cut by a crash): its changes run from ``start`` to the next step's start (``until``; now if None)."""

    message_id: str
    part_id: str
    start: str
    until: str | None


def open_steps(messages: Sequence[MessageWithParts], point: RevertPoint | None = None) -> list[OpenStep]:
    """The unfinished steps at or after ``point`` (all when None), oldest first."""
    starts: list[tuple[int, int, MessageWithParts, StepStartPart, bool]] = []
    for mi, message in enumerate(messages):
        for pi, part in enumerate(message.parts):
            if isinstance(part, StepStartPart) and part.snapshot is not None:
                starts.append((mi, pi, message, part, False))
            elif isinstance(part, StepFinishPart | PatchPart) and starts and starts[-1][2] is message:
                starts[-1] = (*starts[-1][:4], True)
    out: list[OpenStep] = []
    for i, (mi, pi, message, part, finished) in enumerate(starts):
        if finished or (point is not None and (mi, pi) < (point.message_index, point.part_index)):
            continue
        until = starts[i + 1][3].snapshot if i + 1 < len(starts) else None
        assert part.snapshot is not None
        out.append(OpenStep(message.info.id, part.id, part.snapshot, until))
    return out


def _next_finish(message: MessageWithParts, index: int) -> str | None:
    for part in message.parts[index + 1 :]:
        if isinstance(part, StepFinishPart):
            return part.snapshot
    return None


def file_changes(patches: Sequence[StepPatch]) -> dict[str, FileChange]:
    """Each file any patch lists: the first patch's start and the last patch's end."""
    changes: dict[str, FileChange] = {}
    for patch in patches:
        for path in patch.files:
            first = changes.get(path)
            changes[path] = FileChange(path, first.start if first else patch.hash, patch.after)
    return dict(sorted(changes.items()))


def patches_by_user_message(messages: Sequence[MessageWithParts]) -> dict[str, list[StepPatch]]:
    """The patches of each user message's turn (its assistant replies), keyed by the user message id."""
    owner: dict[str, str] = {}
    grouped: dict[str, list[StepPatch]] = {}
    current: str | None = None
    for message in messages:
        if isinstance(message.info, UserMessage):
            current = message.info.id
            grouped[current] = []
        else:
            owner[message.info.id] = message.info.parentID
    for patch in step_patches(messages):
        user_id = owner.get(patch.message_id, current)
        if user_id is not None and user_id in grouped:
            grouped[user_id].append(patch)
    return grouped


def before_point(messages: Sequence[MessageWithParts], point: RevertPoint | None) -> list[MessageWithParts]:
    """The messages (and parts) that stay when a revert at ``point`` is cleaned up."""
    if point is None:
        return list(messages)
    kept = list(messages[: point.message_index])
    if point.part_index > 0:
        head = messages[point.message_index]
        kept.append(head.model_copy(update={"parts": head.parts[: point.part_index]}))
    return kept
