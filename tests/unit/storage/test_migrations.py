"""Schema migrations: each one is applied to a database of the previous version holding data."""

from __future__ import annotations

from pathlib import Path

import aiosqlite
import pytest

from core.errors import StorageError
from core.message.models import TextPart
from core.storage import Store
from core.storage.rows import encode
from core.storage.schema import (
    LATEST,
    MIGRATIONS,
    UNFINISHED_TOOL,
    UNFINISHED_TURN,
    Migration,
    migrate,
    schema_version,
)
from tests.unit.storage import factories as f


async def _database_at(path: Path, version: int) -> aiosqlite.Connection:
    conn = await aiosqlite.connect(path, isolation_level=None)
    await conn.execute("PRAGMA foreign_keys = ON")
    assert await migrate(conn, target=version) == version
    return conn


async def test_fresh_database_is_at_latest_version(tmp_path: Path) -> None:
    store = await Store.open(tmp_path / "a.db")
    try:
        async with store._conn.execute("PRAGMA user_version") as cursor:
            row = await cursor.fetchone()
        assert row is not None and row[0] == LATEST == MIGRATIONS[-1].version
    finally:
        await store.close()


async def test_version_1_with_data_migrates_to_latest(tmp_path: Path) -> None:
    path = tmp_path / "v1.db"
    conn = await _database_at(path, 1)
    s = f.session("prj_old")
    u = f.user(s.id)
    part = f.text(s.id, u.id, "kept across the upgrade")
    await conn.execute("INSERT INTO projects VALUES ('prj_old', '/old/tree', NULL, 1)")
    await conn.execute(
        "INSERT INTO sessions VALUES (?, ?, NULL, ?, ?, ?)",
        (s.id, s.projectID, s.time.created, s.time.updated, encode(s)),
    )
    await conn.execute(
        "INSERT INTO messages VALUES (?, ?, 'user', ?, ?)", (u.id, s.id, u.time.created, encode(u))
    )
    await conn.execute("INSERT INTO parts VALUES (?, ?, ?, 'text', ?)", (part.id, u.id, s.id, encode(part)))
    async with conn.execute("SELECT name FROM sqlite_master WHERE name = 'permission_approvals'") as cursor:
        assert await cursor.fetchone() is None  # really the old schema
    await conn.close()

    store = await Store.open(path)
    try:
        assert await schema_version(store._conn) == LATEST
        assert await store.get_session(s.id) == s
        [message] = await store.list_messages(s.id)
        assert message.info == u
        assert isinstance(message.parts[0], TextPart) and message.parts[0].text == "kept across the upgrade"
        approval = await store.add_approval("prj_old", "bash", "ls*")
        assert [a.id for a in await store.list_approvals("prj_old")] == [approval]
    finally:
        await store.close()


async def test_version_2_with_unfinished_rows_migrates_and_recovery_uses_the_new_indexes(
    tmp_path: Path,
) -> None:
    path = tmp_path / "v2.db"
    conn = await _database_at(path, 2)
    s = f.session("prj_old")
    u = f.user(s.id)
    a = f.assistant(s.id, u.id, completed=False)
    tool = f.running_tool(s.id, a.id)
    await conn.execute("INSERT INTO projects VALUES ('prj_old', '/old/tree', NULL, 1)")
    await conn.execute(
        "INSERT INTO sessions VALUES (?, ?, NULL, ?, ?, ?)",
        (s.id, s.projectID, s.time.created, s.time.updated, encode(s)),
    )
    for m in (u, a):
        await conn.execute(
            "INSERT INTO messages VALUES (?, ?, ?, ?, ?)", (m.id, s.id, m.role, m.time.created, encode(m))
        )
    await conn.execute("INSERT INTO parts VALUES (?, ?, ?, 'tool', ?)", (tool.id, a.id, s.id, encode(tool)))
    await conn.execute("INSERT INTO permission_approvals VALUES ('per_1', 'prj_old', 'bash', 'ls*', 1)")
    await conn.close()

    store = await Store.open(path)
    try:
        assert await schema_version(store._conn) == LATEST
        # The rows left unfinished before the upgrade were found through the new indexes.
        assert store.recovery is not None
        assert store.recovery.tool_parts == (tool.id,) and store.recovery.messages == (a.id,)
        plans = []
        for table, predicate in (("parts", UNFINISHED_TOOL), ("messages", UNFINISHED_TURN)):
            async with store._conn.execute(
                f"EXPLAIN QUERY PLAN SELECT id FROM {table} WHERE {predicate}"
            ) as c:
                plans.extend(str(row[3]) for row in await c.fetchall())
        assert plans == [
            "SCAN parts USING INDEX parts_unfinished_tools",
            "SCAN messages USING INDEX messages_unfinished",
        ]
        assert [x.pattern for x in await store.list_approvals("prj_old")] == ["ls*"]
        assert len(await store.list_messages(s.id)) == 2
    finally:
        await store.close()


async def test_database_from_a_newer_agentls_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "future.db"
    conn = await _database_at(path, LATEST)
    await conn.execute(f"PRAGMA user_version = {LATEST + 1}")
    await conn.close()
    with pytest.raises(StorageError, match="newer than this agentls"):
        await Store.open(path)


async def test_failed_migration_leaves_the_previous_version(tmp_path: Path) -> None:
    path = tmp_path / "broken.db"
    conn = await _database_at(path, LATEST)
    broken = Migration(LATEST + 1, "broken", ("CREATE TABLE extra (x)", "CREATE TABLE nonsense ("))
    with pytest.raises(StorageError, match=f"schema version {LATEST + 1}"):
        await migrate(conn, migrations=(*MIGRATIONS, broken))
    assert await schema_version(conn) == LATEST
    async with conn.execute("SELECT name FROM sqlite_master WHERE name = 'extra'") as cursor:
        assert await cursor.fetchone() is None  # the half-applied statement was rolled back
    await conn.close()


async def test_not_a_database_is_a_storage_error(tmp_path: Path) -> None:
    path = tmp_path / "junk.db"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StorageError, match="cannot open the database"):
        await Store.open(path)


async def test_version_3_with_data_gains_part_token_counts(tmp_path: Path) -> None:
    path = tmp_path / "v3.db"
    conn = await _database_at(path, 3)
    s = f.session("prj_old")
    u = f.user(s.id)
    part = f.text(s.id, u.id, "counted after the upgrade")
    await conn.execute("INSERT INTO projects VALUES ('prj_old', '/old/tree', NULL, 1)")
    await conn.execute(
        "INSERT INTO sessions VALUES (?, ?, NULL, ?, ?, ?)",
        (s.id, s.projectID, s.time.created, s.time.updated, encode(s)),
    )
    await conn.execute(
        "INSERT INTO messages VALUES (?, ?, 'user', ?, ?)", (u.id, s.id, u.time.created, encode(u))
    )
    await conn.execute("INSERT INTO parts VALUES (?, ?, ?, 'text', ?)", (part.id, u.id, s.id, encode(part)))
    await conn.close()

    store = await Store.open(path)
    try:
        assert await schema_version(store._conn) == LATEST >= 4
        [message] = await store.list_messages(s.id)
        assert message.parts == [part]  # the row survived the new column
        assert await store.part_token_counts(s.id) == {}  # not counted yet
        await store.save_token_counts({part.id: '{"enc":"cl100k_base","key":"k","n":5}'})
        assert await store.part_token_counts(s.id) == {part.id: '{"enc":"cl100k_base","key":"k","n":5}'}
        await store.upsert_part(part.model_copy(update={"text": "edited"}))  # the count stays a cache
        [message] = await store.list_messages(s.id)
        assert message.parts[0].text == "edited"  # type: ignore[union-attr]
        await store.save_token_counts({"prt_gone": "{}"})  # a part deleted meanwhile: skipped
        await store.remove_message(s.id, u.id)
        assert await store.part_token_counts(s.id) == {}  # gone with its part
    finally:
        await store.close()
