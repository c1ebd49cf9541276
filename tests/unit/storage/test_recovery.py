"""Crash recovery: interrupted tool calls and turns are marked when the store opens."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from pathlib import Path

import aiosqlite
import pytest

from core.errors import StorageError
from core.message.models import AssistantMessage, MessageError, TextPart, ToolPart, ToolStatePending
from core.storage import TOOL_INTERRUPTED, TURN_INTERRUPTED, Project, Store
from tests.unit.storage import factories as f
from tests.unit.storage.crash_writer import PROMPT, chunk
from tests.unit.storage.damage import store_with_parts, wreck_root_page

ROOT = Path(__file__).resolve().parents[3]
WRITER = Path(__file__).with_name("crash_writer.py")


async def _leave_unfinished(store: Store, project: Project) -> dict[str, str]:
    s = f.session(project.id)
    await store.insert_session(s)
    u = f.user(s.id)
    open_turn = f.assistant(s.id, u.id, completed=False)
    failed_turn = f.assistant(s.id, u.id, completed=False).model_copy(
        update={"error": MessageError(name="api", message="503 from provider", retryable=True)}
    )
    done_turn = f.assistant(s.id, u.id)
    for m in (u, open_turn, failed_turn, done_turn):
        await store.upsert_message(m)
    running = f.running_tool(s.id, open_turn.id)
    pending = f.running_tool(s.id, open_turn.id).model_copy(update={"state": ToolStatePending(raw='{"pa')})
    done = f.completed_tool(s.id, open_turn.id)
    await store.upsert_parts([running, pending, done])
    return {
        "session": s.id,
        "open": open_turn.id,
        "failed": failed_turn.id,
        "done": done_turn.id,
        "running": running.id,
        "pending": pending.id,
        "completed": done.id,
    }


async def _tool(store: Store, session_id: str, message_id: str, part_id: str) -> ToolPart:
    message = await store.get_message(session_id, message_id)
    [part] = [p for p in message.parts if p.id == part_id]
    assert isinstance(part, ToolPart)
    return part


async def _assistant(store: Store, session_id: str, message_id: str) -> AssistantMessage:
    info = (await store.get_message(session_id, message_id)).info
    assert isinstance(info, AssistantMessage)
    return info


async def test_open_marks_interrupted_tools_and_turns(tmp_path: Path) -> None:
    db = tmp_path / "agentls.db"
    (tmp_path / "tree").mkdir()
    async with await Store.open(db) as store:
        project = await store.ensure_project(tmp_path / "tree")
        made = await _leave_unfinished(store, project)

    async with await Store.open(db) as store:
        assert store.recovery is not None
        assert set(store.recovery.tool_parts) == {made["running"], made["pending"]}
        assert set(store.recovery.messages) == {made["open"], made["failed"]}
        sid = made["session"]
        for key in ("running", "pending"):
            state = (await _tool(store, sid, made["open"], made[key])).state
            assert state.status == "error" and state.error == TOOL_INTERRUPTED
            assert state.time.end >= state.time.start
        assert (await _tool(store, sid, made["open"], made["running"])).state.input == {
            "command": "sleep 100"
        }
        assert (await _tool(store, sid, made["open"], made["completed"])).state.status == "completed"

        open_turn = await _assistant(store, sid, made["open"])
        assert open_turn.time.completed is not None
        assert open_turn.error == MessageError(name="aborted", message=TURN_INTERRUPTED)
        failed = await _assistant(store, sid, made["failed"])
        assert failed.time.completed is not None
        assert failed.error is not None and failed.error.name == "api"  # the real cause is kept
        done = await _assistant(store, sid, made["done"])
        assert done.error is None

    async with await Store.open(db) as store:  # nothing left to recover
        assert (
            store.recovery is not None and store.recovery.tool_parts == () and store.recovery.messages == ()
        )


async def test_no_recovery_while_another_process_has_the_store_open(tmp_path: Path) -> None:
    db = tmp_path / "agentls.db"
    (tmp_path / "tree").mkdir()
    live = await Store.open(db)  # holds the shared lock, as a running agentls would
    project = await live.ensure_project(tmp_path / "tree")
    made = await _leave_unfinished(live, project)

    reader = await Store.open(db)  # e.g. `agentls sessions show` while the server runs
    assert reader.recovery is None
    state = (await _tool(reader, made["session"], made["open"], made["running"])).state
    assert state.status == "running"  # a live tool call is not declared dead
    await reader.close()
    await live.close()

    async with await Store.open(db) as store:
        assert store.recovery is not None and made["running"] in store.recovery.tool_parts


async def test_unreadable_row_does_not_block_opening(tmp_path: Path) -> None:
    db = tmp_path / "agentls.db"
    (tmp_path / "tree").mkdir()
    async with await Store.open(db) as store:
        project = await store.ensure_project(tmp_path / "tree")
        made = await _leave_unfinished(store, project)
        await store._write(
            "UPDATE parts SET body = json_remove(body, '$.callID') WHERE id = ?", (made["running"],)
        )
    async with await Store.open(db) as store:
        assert store.recovery is not None
        assert [made["running"] in problem for problem in store.recovery.unreadable] == [True]
        assert store.recovery.tool_parts == (made["pending"],)


async def test_index_out_of_step_with_its_table_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "agentls.db"
    await store_with_parts(db, tmp_path / "tree")
    # Hide the index from SQLite, change the table behind its back, then show the index again.
    async with aiosqlite.connect(db, isolation_level=None) as conn:
        async with conn.execute("SELECT * FROM sqlite_master WHERE name = 'parts_by_session'") as cursor:
            entry = await cursor.fetchone()
        await conn.execute("PRAGMA writable_schema = ON")
        await conn.execute("DELETE FROM sqlite_master WHERE name = 'parts_by_session'")
    async with aiosqlite.connect(db, isolation_level=None) as conn:
        await conn.execute("UPDATE parts SET session_id = 'ses_elsewhere'")
        await conn.execute("PRAGMA writable_schema = ON")
        await conn.execute("INSERT INTO sqlite_master VALUES (?, ?, ?, ?, ?)", tuple(entry or ()))
    with pytest.raises(
        StorageError, match="integrity check failed: row 1 missing from index parts_by_session"
    ):
        await Store.open(db)


async def test_wrecked_page_written_after_the_close_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "agentls.db"
    await store_with_parts(db, tmp_path / "tree")
    await wreck_root_page(db, "parts_by_session")
    with pytest.raises(StorageError, match=r"integrity check failed: .*malformed"):
        await Store.open(db)


async def test_killed_writer_leaves_a_consistent_recoverable_store(tmp_path: Path) -> None:
    db = tmp_path / "agentls.db"
    tree = tmp_path / "tree"
    tree.mkdir()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, str(WRITER), str(db), str(tree), stdout=asyncio.subprocess.PIPE, env=env, cwd=ROOT
    )
    try:
        assert proc.stdout is not None
        line = await asyncio.wait_for(proc.stdout.readline(), timeout=60)
        assert line.decode().rstrip().endswith("ready"), line
        ids = json.loads(line.decode().rsplit(" ", 1)[0])
        assert ids["durable"] > 0
    finally:
        proc.send_signal(signal.SIGKILL)
        await proc.wait()
    assert proc.returncode == -signal.SIGKILL

    async with await Store.open(db) as store:
        assert store.checked  # a process died with the database open
        assert store.recovery is not None
        assert ids["tool"] in store.recovery.tool_parts and ids["message"] in store.recovery.messages
        message = await store.get_message(ids["session"], ids["message"])
        info = message.info
        assert isinstance(info, AssistantMessage)
        assert info.time.completed is not None
        assert info.error is not None and info.error.name == "aborted"
        [tool] = [p for p in message.parts if isinstance(p, ToolPart)]
        assert tool.state.status == "error" and tool.state.error == TOOL_INTERRUPTED
        [text] = [p for p in message.parts if isinstance(p, TextPart)]
        n = len(text.text) // len(chunk(0))
        assert n >= ids["durable"]  # nothing the timer had written is lost
        assert text.text == "".join(chunk(i) for i in range(n))  # a clean prefix of what was streamed
        async with store._conn.execute("PRAGMA integrity_check") as cursor:
            assert [r[0] for r in await cursor.fetchall()] == ["ok"]
        # Search finds the prompt the dead process had queued in its memory only, and the text
        # recovery ended.
        assert [h.session.id for h in await store.search_sessions(PROMPT.split()[2])] == [ids["session"]]
        assert [h.session.id for h in await store.search_sessions(f'"{chunk(0)}"')] == [ids["session"]]
