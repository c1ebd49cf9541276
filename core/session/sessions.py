"""The session service: the store plus events, and the live buffer of streaming parts.

Streaming text must not rewrite the database per delta. ``append_delta`` publishes the delta at
once and keeps it in memory; dirty live parts are written in one batch at most every
``flush_interval`` (one timer for all of them) and at once on ``end_part``, ``flush`` and
``close``. After a crash at most the last flush window of text is missing.

Nor is the live part's text rebuilt per delta: a string grows by copying, so appending each delta
to it copied the whole answer each time (quadratic: ~8 µs a delta at 60 KB of answer). The deltas
of a window wait as a list and are joined into the live part when it is written (each flush,
``end_part``, ``update_part`` of the live part) and before every read of the service, so what is
stored and what is read are never behind, and the live part's own text at most one window.
"""

from __future__ import annotations

import asyncio
import builtins
import logging
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime

from core import ids
from core.bus import Bus
from core.errors import InvalidInputError, NotFoundError
from core.events import (
    MessageRemoved,
    MessageUpdated,
    PartDelta,
    PartRemoved,
    PartUpdated,
    SessionCreated,
    SessionDeleted,
    SessionUpdated,
    TodoUpdated,
)
from core.message.models import (
    AnyPart,
    AssistantMessage,
    MessageWithParts,
    Session,
    SessionTime,
    SessionWorktree,
    Todo,
    ToolPart,
    UserMessage,
    now_ms,
)
from core.message.title_text import clean_title
from core.storage import OnInvalid, Project, Store
from core.storage.messages import PartFilter

log = logging.getLogger(__name__)

FLUSH_INTERVAL = 0.05  # seconds: the most text a crash can lose


class Sessions:
    """Sessions, messages, parts and todos, persisted in the store and announced on the bus."""

    def __init__(self, store: Store, bus: Bus, flush_interval: float = FLUSH_INTERVAL) -> None:
        self.store = store
        self.bus = bus
        self._interval = flush_interval
        self._live: dict[str, AnyPart] = {}
        self._dirty: set[str] = set()
        self._fields: dict[str, str] = {}  # part id -> the field its deltas append to
        self._pending: dict[str, builtins.list[str]] = {}  # part id -> deltas not yet in its text
        self._timer: asyncio.Task[None] | None = None
        self._closed = False

    # The method ``list`` shadows the builtin inside this class, hence ``builtins.list`` in annotations.

    # --- sessions ----------------------------------------------------------------------

    async def create(
        self,
        project: Project | str,
        directory: str,
        title: str | None = None,
        parent_id: str | None = None,
        worktree: SessionWorktree | None = None,
    ) -> Session:
        """A new session in ``project`` (publishes session.created); ``worktree``: the agentls
        worktree ``directory`` is in."""
        now = now_ms()
        session = Session(
            # Ascending: listings sort by (time.updated, id) descending, so a tie goes to the newest.
            id=ids.ascending("ses"),
            projectID=project if isinstance(project, str) else project.id,
            parentID=parent_id,
            title=clean_title(title or "") or _default_title(now),
            directory=directory,
            time=SessionTime(created=now, updated=now),
            worktree=worktree,
        )
        await self.store.insert_session(session)
        self.bus.publish(SessionCreated(info=session))
        return session

    async def get(self, session_id: str) -> Session:
        """A session by id (NotFoundError if unknown)."""
        return await self.store.get_session(session_id)

    async def list(
        self, project_id: str, limit: int = 50, before: str | None = None
    ) -> builtins.list[Session]:
        """A project's sessions, last updated first, paged by the last id of the previous page."""
        return await self.store.list_sessions(project_id, limit=limit, before=before)

    async def children(self, session_id: str) -> builtins.list[Session]:
        """The sessions started from ``session_id`` (subtasks), oldest first."""
        return await self.store.child_sessions(session_id)

    async def update(self, session_id: str, edit: Callable[[Session], Session | None]) -> Session:
        """Apply ``edit`` to a copy of the session (it may return a new one), touch time.updated, save."""
        current = await self.store.get_session(session_id)
        draft = current.model_copy(deep=True)
        edited = edit(draft) or draft
        if edited.id != session_id:
            raise InvalidInputError(f"a session update cannot change the id ({session_id} → {edited.id})")
        edited.time.updated = max(now_ms(), current.time.updated)
        edited.title = clean_title(edited.title)  # what clients get back is what is stored
        await self.store.update_session(edited)
        self.bus.publish(SessionUpdated(info=edited))
        return edited

    async def delete(self, session_id: str) -> builtins.list[Session]:
        """Delete a session and its child sessions (publishes session.deleted for each)."""
        deleted = await self.store.delete_session(session_id)
        gone = {s.id for s in deleted} | {session_id}
        for part_id in [p for p, part in self._live.items() if part.sessionID in gone]:
            self._drop_live(part_id)
        for session in deleted:
            self.bus.publish(SessionDeleted(info=session))
        return deleted

    async def fork(self, session_id: str, message_id: str | None = None) -> Session:
        """A new session holding a copy of the history before ``message_id`` (all of it when None)."""
        await self.flush()
        source = await self.store.get_session(session_id)
        now = now_ms()
        new = Session(
            id=ids.ascending("ses"),
            projectID=source.projectID,
            title=f"{source.title} (fork)",
            directory=source.directory,
            time=SessionTime(created=now, updated=now),
            worktree=source.worktree,
        )
        stored = await self.store.fork(session_id, message_id, new)
        self.bus.publish(SessionCreated(info=stored))
        return stored

    # --- messages ----------------------------------------------------------------------

    async def update_message(self, info: UserMessage | AssistantMessage) -> None:
        """Save a message (publishes message.updated)."""
        await self.store.upsert_message(info)
        self.bus.publish(MessageUpdated(info=info.model_copy(deep=True)))

    async def remove_message(self, session_id: str, message_id: str) -> None:
        """Delete a message and its parts (publishes message.removed)."""
        for part_id in [p for p, part in self._live.items() if part.messageID == message_id]:
            self._drop_live(part_id)
        await self.store.remove_message(session_id, message_id)
        self.bus.publish(MessageRemoved(sessionID=session_id, messageID=message_id))

    async def messages(
        self, session_id: str, on_invalid: OnInvalid | None = None, parts: PartFilter | None = None
    ) -> builtins.list[MessageWithParts]:
        """Every message with its parts (those ``parts`` lets through), oldest first (live text
        included)."""
        await self.flush()
        return await self.store.list_messages(session_id, on_invalid=on_invalid, parts=parts)

    async def stream(
        self, session_id: str, on_invalid: OnInvalid | None = None
    ) -> AsyncIterator[MessageWithParts]:
        """Every message with its parts, newest first (live text included)."""
        await self.flush()
        async for message in self.store.stream_messages(session_id, on_invalid=on_invalid):
            yield message

    async def page(
        self, session_id: str, limit: int = 100, before: str | None = None
    ) -> builtins.list[MessageWithParts]:
        """The ``limit`` messages before message id ``before`` (the newest when None), newest first."""
        await self.flush()
        return await self.store.page_messages(session_id, limit=limit, before=before)

    # --- parts -------------------------------------------------------------------------

    async def update_part(self, part: AnyPart) -> None:
        """Save a part now (publishes message.part.updated); a live part is replaced by it."""
        if part.id in self._live:
            if self._live[part.id] is part:
                self._fold(part.id)
            else:  # the caller's new part replaces the live one, text and all
                self._pending.pop(part.id, None)
                self._live[part.id] = part
            self._dirty.discard(part.id)
        await self.store.upsert_part(part)
        self.bus.publish(PartUpdated(part=_snapshot(part)))

    async def mark_compacted(self, parts: builtins.list[ToolPart]) -> None:
        """Store the prune marks of completed tool parts (``state.time.compacted``), one transaction,
        and publish message.part.updated for each."""
        marks: builtins.list[tuple[str, int]] = []
        for part in parts:
            if part.state.status != "completed" or part.state.time.compacted is None:
                raise InvalidInputError(f"tool part {part.id} carries no prune mark to store")
            marks.append((part.id, part.state.time.compacted))
        await self.store.mark_compacted(marks)
        for part in parts:
            # Not copied for the event (a deep copy of each output cost more than the write): the
            # caller hands over fresh copies that nothing mutates, unlike the live streaming parts.
            self.bus.publish(PartUpdated(part=part))

    def append_delta(self, part: AnyPart, field: str, delta: str) -> AnyPart:
        """Append ``delta`` to ``part.<field>`` (``"text"`` for text and reasoning parts), publish
        message.part.delta now, and schedule the batched write. Returns the live part, whose text
        has the delta once the part is next written (or read through this service)."""
        if self._closed:
            raise InvalidInputError("the session service is closed")
        part_id = part.id
        pending = self._pending.get(part_id)
        if pending is None or self._fields[part_id] != field:
            pending = self._track(part, field)
        pending.append(delta)
        self._dirty.add(part_id)
        self.bus.publish(
            PartDelta(
                sessionID=part.sessionID, messageID=part.messageID, partID=part_id, field=field, delta=delta
            )
        )
        if self._timer is None:
            self._timer = asyncio.get_running_loop().create_task(self._flush_later())
        return self._live[part_id]

    def _track(self, part: AnyPart, field: str) -> builtins.list[str]:
        """Start keeping the deltas of ``part.<field>`` (the first delta, or another field)."""
        live = self._live.setdefault(part.id, part)
        if not isinstance(getattr(live, field, None), str):
            raise InvalidInputError(f"{part.type} part {part.id} has no text field {field!r} to append to")
        self._fold(part.id)
        self._fields[part.id] = field
        pending: builtins.list[str] = []
        self._pending[part.id] = pending
        return pending

    def _fold(self, part_id: str) -> None:
        """Join the waiting deltas of a live part into its text."""
        pending = self._pending.get(part_id)
        if pending:
            live, field = self._live[part_id], self._fields[part_id]
            setattr(live, field, getattr(live, field) + "".join(pending))
            pending.clear()

    async def end_part(self, part: AnyPart) -> None:
        """The part is complete: write it now, stop tracking it, publish message.part.updated."""
        live = self._live.get(part.id)
        field = self._fields.get(part.id)
        if live is not None:
            self._fold(part.id)
        if live is not None and live is not part and field is not None:
            # A copy taken before the last deltas must not cut the streamed text short.
            streamed, given = getattr(live, field, None), getattr(part, field, None)
            if isinstance(streamed, str) and isinstance(given, str) and streamed.startswith(given):
                setattr(part, field, streamed)
        self._drop_live(part.id)
        await self.store.upsert_part(part)
        self.bus.publish(PartUpdated(part=_snapshot(part)))

    async def remove_part(self, session_id: str, message_id: str, part_id: str) -> None:
        """Delete a part (publishes message.part.removed)."""
        was_live = self._drop_live(part_id)
        try:
            await self.store.remove_part(session_id, message_id, part_id)
        except NotFoundError:
            if not was_live:  # a live part may never have reached the database
                raise
        self.bus.publish(PartRemoved(sessionID=session_id, messageID=message_id, partID=part_id))

    async def flush(self) -> None:
        """Write every dirty live part now, in one transaction."""
        if not self._dirty:
            return
        for part_id in self._dirty:
            if part_id in self._live:
                self._fold(part_id)
        batch = [self._live[p] for p in self._dirty if p in self._live]
        self._dirty.clear()
        try:
            await self.store.upsert_parts(batch)
        except BaseException:
            self._dirty.update(p.id for p in batch if p.id in self._live)  # retried by the next flush
            raise

    async def close(self) -> None:
        """Flush what is live and stop the timer (the store stays open: its owner closes it)."""
        self._closed = True
        timer, self._timer = self._timer, None
        if timer is not None and timer is not asyncio.current_task():
            timer.cancel()
            await asyncio.gather(timer, return_exceptions=True)
        await self.flush()

    async def _flush_later(self) -> None:
        try:
            await asyncio.sleep(self._interval)
        finally:
            self._timer = None  # deltas appended during the write below start the next window
        try:
            await self.flush()
        except Exception:
            # Nobody awaits the timer; the parts stay dirty and the next flush (or end_part) retries.
            log.exception("flushing %s streaming parts failed", len(self._dirty))

    def _drop_live(self, part_id: str) -> bool:
        self._dirty.discard(part_id)
        self._fields.pop(part_id, None)
        self._pending.pop(part_id, None)
        return self._live.pop(part_id, None) is not None

    # --- todos -------------------------------------------------------------------------

    async def get_todos(self, session_id: str) -> builtins.list[Todo]:
        """The session's todo list."""
        return await self.store.get_todos(session_id)

    async def set_todos(self, session_id: str, todos: builtins.list[Todo]) -> None:
        """Replace the session's todo list (publishes todo.updated)."""
        await self.store.set_todos(session_id, todos)
        self.bus.publish(TodoUpdated(sessionID=session_id, todos=todos))


def _default_title(now: int) -> str:
    stamp = datetime.fromtimestamp(now / 1000, tz=UTC).isoformat(timespec="seconds")
    return f"New session - {stamp}"


def _snapshot(part: AnyPart) -> AnyPart:
    """A copy for an event: the live part keeps changing with deltas after it is published."""
    return part.model_copy(deep=True)
