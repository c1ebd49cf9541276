"""Messages and parts: upserts, newest-first streaming in pages, paging, invalid rows, fork."""

from __future__ import annotations

import pytest

from core import ids
from core.errors import NotFoundError, StorageError
from core.message.models import AssistantMessage, MessageWithParts, Session, TextPart, ToolPart
from core.storage import InvalidRow, InvalidRowError, Project, Store
from core.storage.messages import PartFilter
from tests.unit.storage import factories as f


async def _session(store: Store, project: Project) -> Session:
    s = f.session(project.id)
    await store.insert_session(s)
    return s


async def _conversation(store: Store, s: Session, turns: int, parts_per: int = 2) -> list[MessageWithParts]:
    """``turns`` user/assistant pairs, each message with ``parts_per`` text parts; oldest first."""
    made: list[MessageWithParts] = []
    for turn in range(turns):
        u = f.user(s.id)
        a = f.assistant(s.id, u.id)
        for info in (u, a):
            await store.upsert_message(info)
            parts = [f.text(s.id, info.id, f"{turn}-{info.role}-{i}") for i in range(parts_per)]
            await store.upsert_parts(parts)
            made.append(MessageWithParts(info=info, parts=parts))
    return made


def _ids(found: list[MessageWithParts]) -> list[str]:
    return [m.info.id for m in found]


async def test_message_and_parts_round_trip(store: Store, project: Project) -> None:
    s = await _session(store, project)
    u = f.user(s.id)
    a = f.assistant(s.id, u.id)
    await store.upsert_message(u)
    await store.upsert_message(a)
    parts = [f.text(s.id, a.id, "hello"), f.completed_tool(s.id, a.id), f.text(s.id, a.id, "bye")]
    await store.upsert_parts(parts)

    got = await store.get_message(s.id, a.id)
    assert got.info == a
    assert got.parts == parts  # id order, which is creation order
    assert isinstance(got.parts[1], ToolPart)


async def test_upsert_replaces_in_place(store: Store, project: Project) -> None:
    s = await _session(store, project)
    u = f.user(s.id)
    await store.upsert_message(u)
    p = f.text(s.id, u.id, "draft")
    await store.upsert_part(p)
    await store.upsert_part(p.model_copy(update={"text": "final"}))
    got = await store.get_message(s.id, u.id)
    assert [x.text for x in got.parts if isinstance(x, TextPart)] == ["final"]


async def test_part_of_unknown_message_is_refused(store: Store, project: Project) -> None:
    s = await _session(store, project)
    with pytest.raises(StorageError):
        await store.upsert_part(f.text(s.id, "msg_missing", "x"))


async def test_remove_message_and_part(store: Store, project: Project) -> None:
    s = await _session(store, project)
    made = await _conversation(store, s, 1)
    u, a = made
    await store.remove_part(s.id, u.info.id, u.parts[0].id)
    assert [p.id for p in (await store.get_message(s.id, u.info.id)).parts] == [u.parts[1].id]
    await store.remove_message(s.id, a.info.id)
    with pytest.raises(NotFoundError):
        await store.get_message(s.id, a.info.id)
    with pytest.raises(NotFoundError):
        await store.remove_message(s.id, a.info.id)
    with pytest.raises(NotFoundError):
        await store.remove_part(s.id, u.info.id, u.parts[0].id)
    row = await store._fetchone("SELECT count(*) FROM parts WHERE message_id = ?", (a.info.id,))
    assert row is not None and row[0] == 0


async def test_get_message_checks_the_session(store: Store, project: Project) -> None:
    s = await _session(store, project)
    other = await _session(store, project)
    u = f.user(s.id)
    await store.upsert_message(u)
    with pytest.raises(NotFoundError):
        await store.get_message(other.id, u.id)


async def test_stream_is_newest_first_across_pages(store: Store, project: Project) -> None:
    s = await _session(store, project)
    made = await _conversation(store, s, 12)  # 24 messages, several pages of 5
    streamed = [m async for m in store.stream_messages(s.id, page=5)]
    assert _ids(streamed) == list(reversed(_ids(made)))
    assert streamed[0].parts == made[-1].parts
    assert await store.list_messages(s.id) == made


async def test_stream_of_exact_page_multiple_and_empty_session(store: Store, project: Project) -> None:
    s = await _session(store, project)
    assert [m async for m in store.stream_messages(s.id)] == []
    made = await _conversation(store, s, 5)  # 10 messages, page 5: the last page is full
    assert _ids([m async for m in store.stream_messages(s.id, page=5)]) == list(reversed(_ids(made)))


async def test_ids_minted_in_one_millisecond_keep_creation_order(store: Store, project: Project) -> None:
    s = await _session(store, project)
    minted = [f.user(s.id) for _ in range(50)]  # well within one millisecond on any machine
    for m in reversed(minted):  # insertion order must not matter
        await store.upsert_message(m)
    assert _ids(await store.list_messages(s.id)) == [m.id for m in minted]


async def test_page_messages(store: Store, project: Project) -> None:
    s = await _session(store, project)
    made = _ids(await _conversation(store, s, 5))
    first = await store.page_messages(s.id, limit=4)
    assert _ids(first) == list(reversed(made[-4:]))
    second = await store.page_messages(s.id, limit=4, before=first[-1].info.id)
    assert _ids(second) == list(reversed(made[-8:-4]))
    last = await store.page_messages(s.id, limit=4, before=second[-1].info.id)
    assert _ids(last) == list(reversed(made[:2]))


async def _corrupt(store: Store, table: str, row_id: str) -> None:
    await store._write(f"UPDATE {table} SET body = json_remove(body, '$.sessionID') WHERE id = ?", (row_id,))


async def test_invalid_part_raises_naming_table_and_id(store: Store, project: Project) -> None:
    s = await _session(store, project)
    made = await _conversation(store, s, 2)
    bad = made[1].parts[0].id
    await _corrupt(store, "parts", bad)
    with pytest.raises(InvalidRowError) as caught:
        await store.list_messages(s.id)
    assert f"parts row {bad} is invalid" in str(caught.value)
    assert "sessionID" in str(caught.value)


async def test_invalid_rows_reported_when_asked(store: Store, project: Project) -> None:
    s = await _session(store, project)
    made = await _conversation(store, s, 2)
    bad_part = made[1].parts[0].id
    bad_message = made[2].info.id
    await _corrupt(store, "parts", bad_part)
    await store._write("UPDATE messages SET body = 'not json' WHERE id = ?", (bad_message,))

    reports: list[InvalidRow] = []
    found = await store.list_messages(s.id, on_invalid=reports.append)

    assert sorted((r.table, r.id) for r in reports) == sorted(
        [("parts", bad_part), ("messages", bad_message)]
    )
    assert bad_message not in _ids(found)
    assert len(found) == len(made) - 1
    assert bad_part not in [p.id for m in found for p in m.parts]


async def test_invalid_session_row_raises(store: Store, project: Project) -> None:
    s = await _session(store, project)
    await store._write("UPDATE sessions SET body = json_set(body, '$.time', 'soon') WHERE id = ?", (s.id,))
    with pytest.raises(InvalidRowError, match=f"sessions row {s.id}"):
        await store.get_session(s.id)


async def test_fork_at_message_clones_history_before_it(store: Store, project: Project) -> None:
    s = await _session(store, project)
    made = await _conversation(store, s, 3)  # u0 a0 u1 a1 u2 a2
    cut = made[4].info.id  # fork before the third user message
    forked = await store.fork(s.id, cut, f.session(project.id, title="fork"))

    clones = await store.list_messages(forked.id)
    originals = made[:4]
    assert len(clones) == 4
    assert all(c.info.sessionID == forked.id for c in clones)
    assert not set(_ids(clones)) & set(_ids(made))  # all new ids …
    assert _ids(clones) == sorted(_ids(clones))  # … in the original order
    for clone, original in zip(clones, originals, strict=True):
        assert clone.info.role == original.info.role
        assert [p.text for p in clone.parts if isinstance(p, TextPart)] == [
            p.text for p in original.parts if isinstance(p, TextPart)
        ]
        assert all(p.messageID == clone.info.id and p.sessionID == forked.id for p in clone.parts)
        assert not {p.id for p in clone.parts} & {p.id for p in original.parts}
    # Each assistant clone answers the clone of its user message.
    for i in (1, 3):
        info = clones[i].info
        assert isinstance(info, AssistantMessage) and info.parentID == clones[i - 1].info.id
    # The original is untouched.
    assert await store.list_messages(s.id) == made


async def test_fork_without_message_clones_everything(store: Store, project: Project) -> None:
    s = await _session(store, project)
    made = await _conversation(store, s, 2)
    forked = await store.fork(s.id, None, f.session(project.id))
    assert len(await store.list_messages(forked.id)) == len(made)


async def test_fork_of_unknown_session_creates_nothing(store: Store, project: Project) -> None:
    new = f.session(project.id)
    with pytest.raises(NotFoundError):
        await store.fork("ses_missing", None, new)
    with pytest.raises(NotFoundError):
        await store.get_session(new.id)


async def test_fork_with_corrupt_row_fails_whole(store: Store, project: Project) -> None:
    s = await _session(store, project)
    made = await _conversation(store, s, 2)
    await _corrupt(store, "parts", made[3].parts[1].id)
    new = f.session(project.id)
    with pytest.raises(InvalidRowError):
        await store.fork(s.id, None, new)
    with pytest.raises(NotFoundError):  # rolled back: no half-cloned session
        await store.get_session(new.id)
    assert ids.check(new.id, "ses")


async def test_fork_remaps_references_to_messages_that_are_gone(store: Store, project: Project) -> None:
    from core.message.models import CompactionPart, SessionRevert

    s = await _session(store, project)
    made = await _conversation(store, s, 3)  # u0 a0 u1 a1 u2 a2
    gone = made[2].info.id  # the tail started at u1, which a revert cleanup removed since
    request = f.user(s.id)
    await store.upsert_message(request)
    await store.upsert_part(
        CompactionPart(
            id=ids.ascending("prt"), sessionID=s.id, messageID=request.id, auto=True, tailStart=gone
        )
    )
    await store.remove_message(s.id, gone)
    reverted = s.model_copy(
        update={"revert": SessionRevert(messageID=made[4].info.id, partID=made[4].parts[1].id)}
    )
    await store.update_session(reverted)

    forked = await store.fork(s.id, None, f.session(project.id))
    clones = await store.list_messages(forked.id)
    by_text = {getattr(m.parts[0], "text", "compaction"): m for m in clones}
    [part] = [p for m in clones for p in m.parts if isinstance(p, CompactionPart)]
    assert part.tailStart == by_text["1-assistant-0"].info.id  # the first message after the gone one
    assert forked.revert is not None and (await store.get_session(forked.id)).revert == forked.revert
    assert forked.revert.messageID == by_text["2-user-0"].info.id
    assert forked.revert.partID == by_text["2-user-0"].parts[1].id

    # Forked before the reverted messages: the fork holds nothing the revert covers.
    early = await store.fork(s.id, made[4].info.id, f.session(project.id))
    assert early.revert is None


async def test_a_part_filter_keeps_every_message_and_only_the_parts_asked_for(
    store: Store, project: Project
) -> None:
    s = await _session(store, project)
    made = await _conversation(store, s, turns=3)
    reply = made[1].info
    tool = f.completed_tool(s.id, reply.id)
    await store.upsert_parts([tool])
    wanted = made[3].parts[1]  # a text part, let through by id
    found = await store.list_messages(s.id, parts=PartFilter(("tool",), also=wanted.id))
    assert _ids(found) == _ids(made)  # every message, oldest first
    assert [[p.id for p in m.parts] for m in found] == [[], [tool.id], [], [wanted.id], [], []]
    assert (await store.list_messages(s.id, parts=PartFilter(("patch",)))) == [
        MessageWithParts(info=m.info, parts=[]) for m in made
    ]
