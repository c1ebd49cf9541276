"""Full-text search: the index follows every write, filters, ranking, and bad queries."""

from __future__ import annotations

from pathlib import Path

import aiosqlite
import pytest

from core import ids
from core.errors import InvalidInputError
from core.message.models import PartTime, Session, TextPart, ToolPart, now_ms
from core.storage import Project, SearchFilter, Store
from core.storage.rows import encode
from core.storage.schema import migrate
from core.storage.search import SEARCH_BATCH, split_marks
from tests.unit.storage import factories as f


def _done(session_id: str, message_id: str, text: str, **extra: object) -> TextPart:
    """A finished streamed text part."""
    now = now_ms()
    return TextPart(
        id=ids.ascending("prt"),
        sessionID=session_id,
        messageID=message_id,
        text=text,
        time=PartTime(start=now, end=now),
        **extra,
    )


async def _session_with(
    store: Store, project: Project, text: str, title: str = "a session", updated: int | None = None
) -> Session:
    s = f.session(project.id, title=title, **({} if updated is None else {"updated": updated}))
    await store.insert_session(s)
    u = f.user(s.id)
    await store.upsert_message(u)
    await store.upsert_part(_done(s.id, u.id, text))
    return s


async def _ids(store: Store, query: str, where: SearchFilter | None = None) -> list[str]:
    return [h.session.id for h in await store.search_sessions(query, where)]


async def test_finds_message_text_with_snippet_and_where(store: Store, project: Project) -> None:
    s = await _session_with(store, project, "the parser chokes on nested generics in Rust")
    await _session_with(store, project, "something else entirely")
    hits = await store.search_sessions("generics")
    assert [h.session.id for h in hits] == [s.id]
    hit = hits[0]
    assert hit.snippet == "the parser chokes on nested generics in Rust"
    assert [hit.snippet[a:b] for a, b in hit.highlights] == ["generics"]
    assert hit.part_id is not None and hit.message_id is not None


async def test_finds_titles_and_follows_renames(store: Store, project: Project) -> None:
    s = await _session_with(store, project, "body text", title="Fix flaky websocket test")
    assert await _ids(store, "websocket") == [s.id]
    hit = (await store.search_sessions("websocket"))[0]
    assert hit.part_id is None and [hit.snippet[a:b] for a, b in hit.highlights] == ["websocket"]
    await store.update_session(s.model_copy(update={"title": "Renamed to sockets"}))
    assert await _ids(store, "websocket") == []
    assert await _ids(store, "sockets") == [s.id]


async def test_streaming_text_is_indexed_once_it_ends(store: Store, project: Project) -> None:
    s = f.session(project.id)
    await store.insert_session(s)
    a = f.assistant(s.id, "msg_parent")
    await store.upsert_message(a)
    part = f.text(s.id, a.id, "half a sent")  # time.start, no end: still streaming
    await store.upsert_part(part)
    part.text = "half a sentence about zebras"
    await store.upsert_parts([part])
    assert await _ids(store, "zebras") == []
    assert part.time is not None
    part.time.end = now_ms()
    await store.upsert_part(part)
    assert await _ids(store, "zebras") == [s.id]


async def test_changes_and_deletes_leave_the_index(store: Store, project: Project) -> None:
    s = f.session(project.id)
    await store.insert_session(s)
    u = f.user(s.id)
    await store.upsert_message(u)
    part = _done(s.id, u.id, "alpha")
    await store.upsert_part(part)
    part.text = "beta"
    await store.upsert_part(part)
    assert await _ids(store, "alpha") == []
    assert await _ids(store, "beta") == [s.id]
    await store.remove_part(s.id, u.id, part.id)
    assert await _ids(store, "beta") == []
    await store.upsert_part(_done(s.id, u.id, "gamma"))
    await store.delete_session(s.id)  # cascades to messages and parts
    assert await _ids(store, "gamma") == []
    await store.index_pending()
    async with store._conn.execute("SELECT count(*) FROM part_search") as cursor:
        row = await cursor.fetchone()
    assert row is not None and row[0] == 0


async def test_synthetic_text_and_tool_parts_are_not_indexed(store: Store, project: Project) -> None:
    s = f.session(project.id)
    await store.insert_session(s)
    u = f.user(s.id)
    await store.upsert_message(u)
    await store.upsert_part(_done(s.id, u.id, "attached file secretword", synthetic=True))
    tool: ToolPart = f.running_tool(s.id, u.id)
    await store.upsert_part(tool)
    assert await _ids(store, "secretword") == []


async def test_filters_by_project_date_and_agent(store: Store, project: Project, tmp_path: Path) -> None:
    old = f.session(project.id, title="kiwi old", updated=1_000)
    await store.insert_session(old)
    new = await _session_with(store, project, "kiwi new")
    (tmp_path / "other-tree").mkdir()
    other = await store.ensure_project(tmp_path / "other-tree")
    elsewhere = await _session_with(store, other, "kiwi elsewhere")
    assert set(await _ids(store, "kiwi")) == {old.id, new.id, elsewhere.id}
    assert set(await _ids(store, "kiwi", SearchFilter(project_id=project.id))) == {old.id, new.id}
    assert await _ids(store, "kiwi", SearchFilter(project_id=project.id, since=2_000)) == [new.id]
    assert await _ids(store, "kiwi", SearchFilter(project_id=project.id, until=2_000)) == [old.id]
    # f.user runs the "build" agent; ``old`` has no messages at all.
    assert set(await _ids(store, "kiwi", SearchFilter(agent="build"))) == {new.id, elsewhere.id}
    assert await _ids(store, "kiwi", SearchFilter(agent="plan")) == []


async def test_one_hit_per_session_newest_first(store: Store, project: Project) -> None:
    older = await _session_with(store, project, "mango in the text", title="mango title")
    newer = f.session(project.id, title="no fruit here", updated=older.time.updated + 10)
    await store.insert_session(newer)
    u = f.user(newer.id)
    await store.upsert_message(u)
    await store.upsert_parts([_done(newer.id, u.id, "mango one"), _done(newer.id, u.id, "mango two")])
    hits = await store.search_sessions("mango")
    assert [h.session.id for h in hits] == [newer.id, older.id]
    assert hits[0].snippet == "mango two"  # its newest matching part
    assert hits[1].part_id is not None  # a part match is shown before the title's


async def test_parts_are_indexed_when_an_answer_completes_and_before_a_search(
    store: Store, project: Project
) -> None:
    s = await _session_with(store, project, "first")
    u = f.user(s.id)
    await store.upsert_message(u)
    answer = f.assistant(s.id, u.id, completed=False)
    await store.upsert_message(answer)

    async def indexed() -> int:
        async with store._conn.execute("SELECT count(*) FROM part_search") as cursor:
            row = await cursor.fetchone()
        return int(row[0]) if row else -1

    await store.index_pending()
    assert await indexed() == 1
    for n in range(SEARCH_BATCH):
        await store.upsert_part(_done(s.id, answer.id, f"word{n}"))
    assert await indexed() == 1  # queued, not indexed while the answer streams: writes stay cheap
    await store.upsert_message(answer)  # tokens, a step: still streaming
    assert await indexed() == 1
    answer.time.completed = now_ms()
    await store.upsert_message(answer)
    assert await indexed() == 1 + SEARCH_BATCH  # the answer ended with a batch due
    await store.upsert_part(_done(s.id, answer.id, "late kumquat"))
    await store.upsert_message(answer)
    assert await indexed() == 1 + SEARCH_BATCH  # less than a batch: it waits
    assert await _ids(store, "kumquat") == [s.id]  # a search indexes what is queued first


async def test_a_long_backlog_is_indexed_by_a_write(store: Store, project: Project) -> None:
    # No answer completes (one very long turn): the queue is still bounded.
    store.search_backlog_max = 5
    s = await _session_with(store, project, "first")
    u = f.user(s.id)
    await store.upsert_message(u)
    await store.index_pending()
    for n in range(4):
        await store.upsert_part(_done(s.id, u.id, f"word{n}"))
    async with store._conn.execute("SELECT count(*) FROM part_search") as cursor:
        assert await cursor.fetchone() == (1,)
    await store.upsert_part(_done(s.id, u.id, "word4"))
    async with store._conn.execute("SELECT count(*) FROM part_search") as cursor:
        assert await cursor.fetchone() == (6,)
    # A batch of parts written at once (streaming flushes) counts the same way.
    await store.upsert_parts([_done(s.id, u.id, f"more{n}") for n in range(4)])
    async with store._conn.execute("SELECT count(*) FROM part_search") as cursor:
        assert await cursor.fetchone() == (6,)
    await store.upsert_parts([_done(s.id, u.id, "more4")])
    async with store._conn.execute("SELECT count(*) FROM part_search") as cursor:
        assert await cursor.fetchone() == (11,)


async def test_a_narrow_filter_finds_the_newest_match_of_its_few_sessions(
    store: Store, project: Project
) -> None:
    # One plan session among many build ones: the search scans only the plan session's parts.
    # One millisecond apart (several written within one would make ``since`` below ambiguous).
    start = now_ms()
    sessions = [
        await _session_with(store, project, f"papaya number {n}", updated=start + n) for n in range(8)
    ]
    plan = sessions[2]
    u = f.user(plan.id).model_copy(update={"agent": "plan"})
    await store.upsert_message(u)
    await store.upsert_parts(
        [_done(plan.id, u.id, "papaya plan one"), _done(plan.id, u.id, "papaya plan two")]
    )
    await store.upsert_part(_done(sessions[5].id, u.id, "papaya later elsewhere"))
    hits = await store.search_sessions("papaya", SearchFilter(project_id=project.id, agent="plan"))
    assert [h.session.id for h in hits] == [plan.id]
    assert hits[0].snippet == "papaya plan two" and hits[0].message_id == u.id
    assert len(await store.search_sessions("papaya", SearchFilter(project_id=project.id))) == 8
    since = sessions[6].time.updated
    recent = await store.search_sessions("papaya", SearchFilter(project_id=project.id, since=since))
    assert {h.session.id for h in recent} == {sessions[6].id, sessions[7].id}
    assert await _ids(store, "nothinglikeit", SearchFilter(project_id=project.id, agent="plan")) == []


TYPED = "the parser chokes on nested generics in Rust: foo-bar (v2) AND naïve café 東京"


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        # what a user types into a search box: words, never syntax, and all of them must match
        ("generics", True),
        ("RUST", True),  # any case
        ("cafe naive", True),  # accents ignored
        ("foo-bar", True),  # hyphen: "no such column: bar" when it was FTS5 syntax
        ("rust:", True),  # a colon: a column filter in FTS5 syntax
        ("parser AND rust", True),  # AND, OR, NOT, NEAR are words to find
        ("parser OR nothingatall", False),
        ("NOT", False),
        ("NEAR", False),
        ("and", True),
        ("(v2)", True),  # parentheses
        ("(open", False),
        ('"nested generics"', True),  # a phrase in balanced quotes
        ('"generics nested"', False),
        ('unbalanced "quote', False),  # a lone quote is a character, not an unterminated string
        ('say "hi', False),
        ('"', False),
        ("gener*", True),  # a trailing star: a prefix
        ("*", False),
        ("**", False),
        ("gen*rics", False),
        ("-", False),
        ("-- ; DROP TABLE sessions", False),
        ("東京", True),
        ("\\x00 \t tab", False),
    ],
)
async def test_typed_text_is_searched_as_words(
    store: Store, project: Project, query: str, expected: bool
) -> None:
    s = await _session_with(store, project, TYPED)
    assert await _ids(store, query) == ([s.id] if expected else [])


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ('fts:"nested generics"', True),
        ("fts:gener*", True),
        ("fts:parser AND rust", True),
        ("fts:parser NOT rust", False),
        ("FTS: parser OR nothingatall", True),
        ("fts:NEAR(parser generics, 5)", True),
        ('fts:"foo-bar"', True),
    ],
)
async def test_fts_syntax_when_asked_for(store: Store, project: Project, query: str, expected: bool) -> None:
    s = await _session_with(store, project, TYPED)
    assert await _ids(store, query) == ([s.id] if expected else [])


@pytest.mark.parametrize(
    ("query", "says"),
    [
        ('fts:unbalanced "quote', "not valid FTS5 query syntax"),
        ("fts:foo-bar", "not valid FTS5 query syntax"),
        ("fts:AND", "not valid FTS5 query syntax"),
        ("fts:(open", "not valid FTS5 query syntax"),
        ("fts:   ", "empty after 'fts:'"),
        ("   ", "query is empty"),
    ],
)
async def test_bad_queries_are_clear_errors(store: Store, project: Project, query: str, says: str) -> None:
    await _session_with(store, project, "foo bar")
    with pytest.raises(InvalidInputError) as caught:
        await store.search_sessions(query)
    assert says in str(caught.value)
    if "FTS5" in says:  # and how to search without the syntax
        assert "leave out 'fts:'" in str(caught.value)


async def test_limit_is_checked_and_applied(store: Store, project: Project) -> None:
    for _ in range(3):
        await _session_with(store, project, "plum")
    assert len(await store.search_sessions("plum", limit=2)) == 2
    with pytest.raises(InvalidInputError):
        await store.search_sessions("plum", limit=0)


async def test_rebuild_restores_a_lost_index(store: Store, project: Project) -> None:
    s = await _session_with(store, project, "cherry", title="fig")
    await store.index_pending()
    await store._conn.execute("DELETE FROM part_search")
    await store._conn.execute("DELETE FROM session_search")
    assert await _ids(store, "cherry OR fig") == []
    await store.rebuild_search_index()
    assert await _ids(store, "cherry") == [s.id]
    assert await _ids(store, "fig") == [s.id]


def test_split_marks() -> None:
    assert split_marks("a \x02b\x03 c \x02dd\x03") == ("a b c dd", [(2, 3), (6, 8)])
    assert split_marks("plain") == ("plain", [])


async def test_migration_indexes_existing_data(tmp_path: Path) -> None:
    path = tmp_path / "v4.db"
    conn = await aiosqlite.connect(path, isolation_level=None)
    await conn.execute("PRAGMA foreign_keys = ON")
    assert await migrate(conn, target=4) == 4
    s = f.session("prj_old", title="durian notes")
    u = f.user(s.id)
    done = _done(s.id, u.id, "lychee from before the upgrade")
    streaming = f.text(s.id, u.id, "rambutan cut short")
    await conn.execute("INSERT INTO projects VALUES ('prj_old', '/old/tree', NULL, 1)")
    await conn.execute(
        "INSERT INTO sessions VALUES (?, ?, NULL, ?, ?, ?)",
        (s.id, s.projectID, s.time.created, s.time.updated, encode(s)),
    )
    await conn.execute("INSERT INTO messages VALUES (?, ?, 'user', ?, ?)", (u.id, s.id, 1, encode(u)))
    for part in (done, streaming):
        row = (part.id, u.id, s.id, encode(part))
        await conn.execute("INSERT INTO parts VALUES (?, ?, ?, 'text', ?)", row)
    await conn.close()
    store = await Store.open(path)
    try:
        assert [h.session.id for h in await store.search_sessions("lychee")] == [s.id]
        assert [h.session.id for h in await store.search_sessions("durian")] == [s.id]
        assert await store.search_sessions("rambutan") == []  # never finished: as in a live store
    finally:
        await store.close()


async def test_text_cut_short_by_a_crash_is_indexed_after_recovery(tmp_path: Path) -> None:
    path = tmp_path / "crash.db"
    store = await Store.open(path)
    project = await store.ensure_project(tmp_path)
    s = f.session(project.id)
    await store.insert_session(s)
    a = f.assistant(s.id, "msg_parent", completed=False)
    await store.upsert_message(a)
    await store.upsert_part(f.text(s.id, a.id, "streamed half a thought about quinces"))
    assert await store.search_sessions("quinces") == []  # still streaming when the process died
    await store.close()  # as far as the file goes, a dead process leaves the same rows
    reopened = await Store.open(path)
    try:
        assert reopened.recovery is not None and reopened.recovery.messages == (a.id,)
        assert [h.session.id for h in await reopened.search_sessions("quinces")] == [s.id]
    finally:
        await reopened.close()


async def test_the_queue_is_read_by_rowid_not_by_scanning_parts(store: Store) -> None:
    # Without statistics SQLite once chose to scan every part for a handful of queued ones.
    sql = (
        "EXPLAIN QUERY PLAN SELECT p.rowid FROM search_queue q CROSS JOIN parts p ON p.rowid = q.part_rowid "
        "WHERE p.type = 'text'"
    )
    async with store._conn.execute(sql) as cursor:
        plan = " / ".join(str(r[3]) for r in await cursor.fetchall())
    assert "SCAN q" in plan and "SEARCH p USING INTEGER PRIMARY KEY" in plan, plan


@pytest.mark.parametrize("table", ["parts", "messages", "sessions"])
async def test_a_body_that_is_not_json_can_still_be_written(
    store: Store, project: Project, table: str
) -> None:
    # Damage must stay readable as damage (InvalidRow reports), not make writes fail in the index.
    s = await _session_with(store, project, "fine text")
    row = await store._fetchone(
        f"SELECT id FROM {table} WHERE {'id' if table == 'sessions' else 'session_id'} = ?", (s.id,)
    )
    assert row is not None
    await store._write(f"UPDATE {table} SET body = 'not json' WHERE id = ?", (row[0],))
    await store.index_pending()
