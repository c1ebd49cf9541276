"""The search index follows writes the store queues itself (migration 7): databases of the previous
schema, forks, parts that stop being searchable, and a close that could not index."""

from __future__ import annotations

from pathlib import Path

import aiosqlite

from core import ids
from core.message.models import PartTime, TextPart, now_ms
from core.storage import Project, Store
from core.storage.rows import encode
from core.storage.schema import migrate
from tests.unit.storage import factories as f


def _done(session_id: str, message_id: str, text: str, **extra: object) -> TextPart:
    now = now_ms()
    return TextPart(
        id=ids.ascending("prt"),
        sessionID=session_id,
        messageID=message_id,
        text=text,
        time=PartTime(start=now, end=now),
        **extra,
    )


async def _ids(store: Store, query: str) -> list[str]:
    return [h.session.id for h in await store.search_sessions(query)]


async def _triggers(conn: aiosqlite.Connection) -> set[str]:
    async with conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'") as cursor:
        return {str(r[0]) for r in await cursor.fetchall()}


async def test_a_database_of_schema_6_migrates_and_still_finds_its_text(tmp_path: Path) -> None:
    path = tmp_path / "v6.db"
    conn = await aiosqlite.connect(path, isolation_level=None)
    await conn.execute("PRAGMA foreign_keys = ON")
    assert await migrate(conn, target=6) == 6
    assert {"parts_search_insert", "parts_search_update"} <= await _triggers(conn)
    s = f.session("prj_old", title="durian notes")
    u = f.user(s.id)
    indexed = _done(s.id, u.id, "lychee indexed before the upgrade")
    queued = _done(s.id, u.id, "longan only queued before the upgrade")
    doomed = _done(s.id, u.id, "jackfruit deleted after the upgrade")
    await conn.execute("INSERT INTO projects VALUES ('prj_old', '/old/tree', NULL, 1)")
    await conn.execute(
        "INSERT INTO sessions VALUES (?, ?, NULL, ?, ?, ?)",
        (s.id, s.projectID, s.time.created, s.time.updated, encode(s)),
    )
    await conn.execute("INSERT INTO messages VALUES (?, ?, 'user', ?, ?)", (u.id, s.id, 1, encode(u)))
    for part in (indexed, queued, doomed):
        row = (part.id, u.id, s.id, encode(part))
        await conn.execute("INSERT INTO parts VALUES (?, ?, ?, 'text', ?)", row)
    # What a version-6 store did: the triggers queued the parts, a batch indexed some of them.
    await conn.execute(
        "INSERT INTO part_search (rowid, text, session_id, message_id, part_id) "
        "SELECT rowid, json_extract(body, '$.text'), session_id, message_id, id FROM parts "
        "WHERE id IN (?, ?)",
        (indexed.id, doomed.id),
    )
    await conn.execute(
        "DELETE FROM search_queue WHERE part_rowid IN (SELECT rowid FROM parts WHERE id IN (?, ?))",
        (indexed.id, doomed.id),
    )
    await conn.close()

    store = await Store.open(path)
    try:
        assert await _triggers(store._conn) == {
            "parts_search_delete",
            "sessions_search_insert",
            "sessions_search_update",
            "sessions_search_delete",
        }
        assert await _ids(store, "lychee") == [s.id]
        assert await _ids(store, "longan") == [s.id]  # the old queue is still indexed
        assert await _ids(store, "durian") == [s.id]
        # Insert, update and delete after the upgrade.
        await store.upsert_part(_done(s.id, u.id, "mangosteen after the upgrade"))
        assert await _ids(store, "mangosteen") == [s.id]
        await store.upsert_part(indexed.model_copy(update={"text": "lychee rewritten as salak"}))
        assert await _ids(store, "salak") == [s.id]
        assert await _ids(store, "indexed") == []
        await store.remove_part(s.id, u.id, doomed.id)
        assert await _ids(store, "jackfruit") == []
        await store.update_session(s.model_copy(update={"title": "pomelo notes"}))
        assert await _ids(store, "durian") == [] and await _ids(store, "pomelo") == [s.id]
        await store.delete_session(s.id)
        assert await _ids(store, "salak OR mangosteen OR longan OR pomelo") == []
    finally:
        await store.close()


async def test_a_part_that_stops_being_searchable_leaves_the_index(store: Store, project: Project) -> None:
    s = f.session(project.id)
    await store.insert_session(s)
    u = f.user(s.id)
    await store.upsert_message(u)
    part = _done(s.id, u.id, "carambola")
    await store.upsert_part(part)
    assert await _ids(store, "carambola") == [s.id]
    await store.upsert_part(part.model_copy(update={"synthetic": True}))
    assert await _ids(store, "carambola") == []
    await store.upsert_part(part.model_copy(update={"time": PartTime(start=1)}))  # streaming again
    assert await _ids(store, "carambola") == []
    await store.upsert_part(part)
    assert await _ids(store, "carambola") == [s.id]


async def test_a_fork_is_found_by_its_copied_text(store: Store, project: Project) -> None:
    s = f.session(project.id)
    await store.insert_session(s)
    u = f.user(s.id)
    await store.upsert_message(u)
    await store.upsert_part(_done(s.id, u.id, "feijoa"))
    fork = await store.fork(s.id, None, f.session(project.id))
    assert set(await _ids(store, "feijoa")) == {s.id, fork.id}


async def test_a_clean_close_indexes_what_is_queued(tmp_path: Path) -> None:
    path = tmp_path / "agentls.db"
    store = await Store.open(path)
    project = await store.ensure_project(tmp_path)
    s = f.session(project.id)
    await store.insert_session(s)
    u = f.user(s.id)
    await store.upsert_message(u)
    await store.upsert_part(_done(s.id, u.id, "sapodilla"))
    assert store.unindexed
    await store.close()
    reopened = await Store.open(path)
    try:
        assert not reopened.checked  # closed cleanly: no catching up to do
        async with reopened._conn.execute("SELECT count(*) FROM part_search") as cursor:
            assert await cursor.fetchone() == (1,)
    finally:
        await reopened.close()


async def test_a_close_that_cannot_index_leaves_the_next_open_to_catch_up(tmp_path: Path) -> None:
    path = tmp_path / "agentls.db"
    store = await Store.open(path)
    project = await store.ensure_project(tmp_path)
    s = f.session(project.id)
    await store.insert_session(s)
    u = f.user(s.id)
    await store.upsert_message(u)
    await store.upsert_part(_done(s.id, u.id, "cloudberry"))
    # Indexing fails (a TEMP trigger lives in this connection only: the file stays as it was).
    await store._conn.execute(
        "CREATE TEMP TRIGGER broken BEFORE INSERT ON main.search_queue BEGIN SELECT RAISE(ABORT, 'no'); END"
    )
    await store.close()  # logs the failure; the part's id dies with this store
    reopened = await Store.open(path)
    try:
        assert reopened.checked  # no clean-close stamp was left
        assert await _ids(reopened, "cloudberry") == [s.id]
    finally:
        await reopened.close()


async def test_another_process_finds_a_completed_answer(tmp_path: Path) -> None:
    # Two stores on one file: as the server and `agentls sessions search` beside it.
    path = tmp_path / "agentls.db"
    server = await Store.open(path)
    reader = await Store.open(path)
    try:
        project = await server.ensure_project(tmp_path)
        s = f.session(project.id)
        await server.insert_session(s)
        u = f.user(s.id)
        await server.upsert_message(u)
        await server.upsert_part(_done(s.id, u.id, "why is the guava parser slow"))
        answer = f.assistant(s.id, u.id, completed=False)
        await server.upsert_message(answer)
        await server.upsert_part(_done(s.id, answer.id, "the quince lexer backtracks"))
        answer.time.completed = now_ms()
        await server.upsert_message(answer)  # far less than a batch: not indexed by the server yet
        assert await _ids(reader, "guava") == [s.id]
        assert await _ids(reader, "quince") == [s.id]
    finally:
        await reader.close()
        await server.close()
