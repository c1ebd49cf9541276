"""The session service: events, the live delta buffer and its flush policy, over a real store."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import pytest

from core.bus import Bus
from core.errors import InvalidInputError, NotFoundError, StorageError
from core.events import (
    Event,
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
from core.message.models import AnyPart, PartTime, Session, TextPart, Todo
from core.session.sessions import Sessions
from core.storage import Project, Store
from tests.ticks import next_tick
from tests.unit.storage import factories as f


class CountingStore(Store):
    """A real store that counts batched part writes and can fail the next one."""

    batches: int = 0
    fail_next: bool = False
    wrote: asyncio.Event

    async def upsert_parts(self, parts: Sequence[AnyPart]) -> None:
        if self.fail_next:
            self.fail_next = False
            raise StorageError("disk full (test)")
        await super().upsert_parts(parts)
        self.batches += 1
        self.wrote.set()


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[CountingStore]:
    opened = await CountingStore.open(tmp_path / "agentls.db")
    assert isinstance(opened, CountingStore)
    opened.wrote = asyncio.Event()
    try:
        yield opened
    finally:
        await opened.close()


@pytest.fixture
async def project(store: Store, tmp_path: Path) -> Project:
    (tmp_path / "tree").mkdir()
    return await store.ensure_project(tmp_path / "tree")


@pytest.fixture
def bus() -> Bus:
    return Bus()


@pytest.fixture
async def sessions(store: Store, bus: Bus) -> AsyncIterator[Sessions]:
    service = Sessions(store, bus)
    try:
        yield service
    finally:
        await service.close()


def drain(sub: object) -> list[Event]:
    events: list[Event] = []
    while (event := sub.get_nowait()) is not None:  # type: ignore[attr-defined]
        events.append(event)
    return events


async def _live_text(sessions: Sessions, project: Project) -> tuple[Session, TextPart]:
    s = await sessions.create(project, "/tmp/tree")
    u = f.user(s.id)
    a = f.assistant(s.id, u.id, completed=False)
    await sessions.update_message(u)
    await sessions.update_message(a)
    part = TextPart(id=f.text(s.id, a.id).id, sessionID=s.id, messageID=a.id, time=PartTime(start=1))
    await sessions.update_part(part)
    return s, part


async def _stored_text(store: Store, part: TextPart) -> str:
    message = await store.get_message(part.sessionID, part.messageID)
    [stored] = [p for p in message.parts if p.id == part.id]
    assert isinstance(stored, TextPart)
    return stored.text


async def test_create_list_update_publish_and_order(sessions: Sessions, project: Project, bus: Bus) -> None:
    sub = bus.subscribe()
    first = await sessions.create(project, "/tmp/tree")
    second = await sessions.create(project.id, "/tmp/tree", title="named")
    assert first.title.startswith("New session - 20")
    assert second.title == "named"
    assert [s.id for s in await sessions.list(project.id)] == [second.id, first.id]

    def rename(s: Session) -> None:
        s.title = "renamed"

    updated = await sessions.update(first.id, rename)
    assert updated.title == "renamed" and updated.time.updated >= first.time.updated
    assert (await sessions.get(first.id)).title == "renamed"
    events = drain(sub)
    assert [type(e) for e in events] == [SessionCreated, SessionCreated, SessionUpdated]
    assert isinstance(events[2], SessionUpdated) and events[2].info.title == "renamed"


async def test_update_cannot_change_the_id(sessions: Sessions, project: Project) -> None:
    s = await sessions.create(project, "/tmp/tree")
    with pytest.raises(InvalidInputError):
        await sessions.update(s.id, lambda x: x.model_copy(update={"id": "ses_other"}))
    with pytest.raises(NotFoundError):
        await sessions.update("ses_missing", lambda x: None)


async def test_delete_publishes_for_children_too(sessions: Sessions, project: Project, bus: Bus) -> None:
    parent = await sessions.create(project, "/tmp/tree")
    child = await sessions.create(project, "/tmp/tree", parent_id=parent.id)
    assert [c.id for c in await sessions.children(parent.id)] == [child.id]
    sub = bus.subscribe(SessionDeleted)
    await sessions.delete(parent.id)
    assert [e.info.id for e in drain(sub) if isinstance(e, SessionDeleted)] == [child.id, parent.id]
    with pytest.raises(NotFoundError):
        await sessions.get(child.id)


async def test_fork_includes_live_text(sessions: Sessions, project: Project, bus: Bus) -> None:
    s, part = await _live_text(sessions, project)
    sessions.append_delta(part, "text", "streamed so far")
    sub = bus.subscribe(SessionCreated)
    forked = await sessions.fork(s.id)
    assert forked.title.endswith("(fork)") and forked.projectID == project.id
    [created] = drain(sub)
    assert isinstance(created, SessionCreated) and created.info.id == forked.id
    clones = await sessions.messages(forked.id)
    assert [p.text for m in clones for p in m.parts if isinstance(p, TextPart)] == ["streamed so far"]


async def test_message_and_part_events(sessions: Sessions, project: Project, bus: Bus) -> None:
    sub = bus.subscribe()
    s, part = await _live_text(sessions, project)
    events = drain(sub)
    assert [type(e) for e in events] == [SessionCreated, MessageUpdated, MessageUpdated, PartUpdated]

    await sessions.remove_part(s.id, part.messageID, part.id)
    await sessions.remove_message(s.id, part.messageID)
    removed = drain(sub)
    assert [type(e) for e in removed] == [PartRemoved, MessageRemoved]
    with pytest.raises(NotFoundError):
        await sessions.remove_part(s.id, part.messageID, part.id)


async def test_every_delta_is_published_at_once(sessions: Sessions, project: Project, bus: Bus) -> None:
    _, part = await _live_text(sessions, project)
    sub = bus.subscribe(PartDelta)
    for word in ("a", "b", "c"):
        sessions.append_delta(part, "text", word)
    deltas = [e for e in drain(sub) if isinstance(e, PartDelta)]
    assert [(d.partID, d.field, d.delta) for d in deltas] == [(part.id, "text", w) for w in "abc"]
    assert part.text == ""  # not rebuilt per delta (that copied the whole text each time)
    await sessions.flush()
    assert part.text == "abc"  # the caller's part is the live part, joined when written


async def test_a_long_answer_is_joined_once_per_write(
    sessions: Sessions, project: Project, store: CountingStore
) -> None:
    s, part = await _live_text(sessions, project)
    pieces = [f"w{i:05d}" for i in range(20_000)]
    for piece in pieces:
        assert sessions.append_delta(part, "text", piece) is part
    assert store.batches == 0
    [message] = [m for m in await sessions.messages(s.id) if m.info.id == part.messageID]
    assert [p.text for p in message.parts if isinstance(p, TextPart)] == ["".join(pieces)]
    assert part.text == "".join(pieces) and store.batches == 1
    sessions.append_delta(part, "text", "!")
    await sessions.end_part(part)
    assert await _stored_text(store, part) == "".join(pieces) + "!"


async def test_update_part_of_the_live_part_keeps_its_deltas(
    sessions: Sessions, project: Project, store: Store
) -> None:
    _, part = await _live_text(sessions, project)
    sessions.append_delta(part, "text", "kept ")
    part.synthetic = True  # another field changed on the live part itself
    await sessions.update_part(part)
    sessions.append_delta(part, "text", "and more")
    await sessions.flush()
    assert await _stored_text(store, part) == "kept and more"


async def test_many_deltas_become_one_write_per_flush_window(
    sessions: Sessions, project: Project, store: CountingStore
) -> None:
    _, part = await _live_text(sessions, project)
    for i in range(500):
        sessions.append_delta(part, "text", f"{i},")
    assert store.batches == 0  # nothing is written per delta
    await asyncio.wait_for(store.wrote.wait(), timeout=10)  # the flush timer fires
    assert store.batches == 1
    assert await _stored_text(store, part) == "".join(f"{i}," for i in range(500))

    store.wrote.clear()
    for _ in range(500):
        sessions.append_delta(part, "text", "x")
    await asyncio.wait_for(store.wrote.wait(), timeout=10)  # one timer for the next window
    assert store.batches == 2
    assert (await _stored_text(store, part)).endswith("x" * 500)


async def test_deltas_between_awaits_are_not_written_until_a_flush(
    store: CountingStore, bus: Bus, project: Project
) -> None:
    service = Sessions(store, bus, flush_interval=3600)  # the timer never fires in this test
    _, part = await _live_text(service, project)
    other = await _live_text(service, project)
    for _ in range(200):
        service.append_delta(part, "text", "y")
        service.append_delta(other[1], "text", "z")
        await next_tick()  # let other tasks run, as a real stream would
    assert store.batches == 0
    assert await _stored_text(store, part) == ""
    await service.flush()
    assert store.batches == 1  # both parts, one transaction
    assert await _stored_text(store, part) == "y" * 200
    assert await _stored_text(store, other[1]) == "z" * 200
    await service.close()


async def test_end_part_writes_now_and_publishes(store: CountingStore, bus: Bus, project: Project) -> None:
    service = Sessions(store, bus, flush_interval=3600)
    _, part = await _live_text(service, project)
    stale = part.model_copy()
    service.append_delta(part, "text", "hello ")
    service.append_delta(part, "text", "world")
    sub = bus.subscribe(PartUpdated)
    # A copy taken before the deltas (with its end time set) must not lose the streamed text.
    finished = stale.model_copy(update={"time": PartTime(start=1, end=2)})
    await service.end_part(finished)
    assert await _stored_text(store, part) == "hello world"
    [event] = drain(sub)
    assert isinstance(event, PartUpdated) and isinstance(event.part, TextPart)
    assert event.part.text == "hello world" and event.part.time == PartTime(start=1, end=2)
    await service.close()


async def test_close_flushes_and_refuses_more_deltas(
    store: CountingStore, bus: Bus, project: Project
) -> None:
    service = Sessions(store, bus, flush_interval=3600)
    _, part = await _live_text(service, project)
    service.append_delta(part, "text", "last words")
    await service.close()
    assert await _stored_text(store, part) == "last words"
    with pytest.raises(InvalidInputError):
        service.append_delta(part, "text", "more")


async def test_readers_see_live_text(sessions: Sessions, project: Project) -> None:
    s, part = await _live_text(sessions, project)
    sessions.append_delta(part, "text", "live")
    streamed = [m async for m in sessions.stream(s.id)]
    assert [p.text for p in streamed[0].parts if isinstance(p, TextPart)] == ["live"]
    [paged] = await sessions.page(s.id, limit=1)
    assert [p.text for p in paged.parts if isinstance(p, TextPart)] == ["live"]


async def test_update_part_replaces_the_live_part(sessions: Sessions, project: Project, store: Store) -> None:
    _, part = await _live_text(sessions, project)
    sessions.append_delta(part, "text", "draft")
    replaced = part.model_copy(update={"text": "rewritten"})
    await sessions.update_part(replaced)
    sessions.append_delta(replaced, "text", "!")
    await sessions.flush()
    assert await _stored_text(store, part) == "rewritten!"


async def test_delta_to_a_field_that_is_not_text_is_refused(sessions: Sessions, project: Project) -> None:
    s, part = await _live_text(sessions, project)
    tool = f.running_tool(s.id, part.messageID)
    with pytest.raises(InvalidInputError, match="no text field"):
        sessions.append_delta(tool, "text", "x")
    with pytest.raises(InvalidInputError):
        sessions.append_delta(part, "time", "x")


async def test_failed_flush_is_raised_and_retried(store: CountingStore, bus: Bus, project: Project) -> None:
    service = Sessions(store, bus, flush_interval=3600)
    _, part = await _live_text(service, project)
    service.append_delta(part, "text", "kept")
    store.fail_next = True
    with pytest.raises(StorageError, match="disk full"):
        await service.flush()
    await service.flush()
    assert await _stored_text(store, part) == "kept"
    await service.close()


async def test_remove_live_part_that_never_reached_the_database(
    sessions: Sessions, project: Project, bus: Bus
) -> None:
    s, part = await _live_text(sessions, project)
    unsaved = TextPart(id=f.text(s.id, part.messageID).id, sessionID=s.id, messageID=part.messageID)
    sessions.append_delta(unsaved, "text", "x")
    sub = bus.subscribe(PartRemoved)
    await sessions.remove_part(s.id, unsaved.messageID, unsaved.id)
    assert len(drain(sub)) == 1
    await sessions.flush()  # nothing resurrects it
    ids = [p.id for m in await sessions.messages(s.id) for p in m.parts]
    assert unsaved.id not in ids


async def test_todos(sessions: Sessions, project: Project, bus: Bus) -> None:
    s = await sessions.create(project, "/tmp/tree")
    sub = bus.subscribe(TodoUpdated)
    todos = [Todo(content="write tests", status="in_progress")]
    await sessions.set_todos(s.id, todos)
    assert await sessions.get_todos(s.id) == todos
    [event] = drain(sub)
    assert isinstance(event, TodoUpdated) and event.todos == todos


async def test_part_events_carry_a_snapshot_not_the_live_part(tmp_path: Path) -> None:
    """A subscriber that reads an event late must see the part as it was when published."""
    from core.bus import Bus
    from core.events import PartUpdated
    from core.message.models import TextPart
    from core.session.sessions import Sessions
    from core.storage.store import Store

    store = await Store.open(tmp_path / "db.sqlite")
    bus = Bus()
    sessions = Sessions(store, bus)
    try:
        project = await store.ensure_project(tmp_path)
        session = await sessions.create(project, str(tmp_path))
        sub = bus.subscribe(PartUpdated)
        from core import ids
        from core.message.models import ModelRef, UserMessage, UserTime

        user = UserMessage(
            id=ids.ascending("msg"),
            sessionID=session.id,
            time=UserTime(created=1),
            agent="build",
            model=ModelRef(providerID="p", modelID="m"),
        )
        await sessions.update_message(user)
        part = TextPart(id=ids.ascending("prt"), sessionID=session.id, messageID=user.id, text="")
        await sessions.update_part(part)
        sessions.append_delta(part, "text", "later text")
        first = sub.get_nowait()
        assert isinstance(first, PartUpdated) and first.part.text == ""
    finally:
        await sessions.close()
        await store.close()
