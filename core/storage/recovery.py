"""Crash recovery: what a process killed mid-turn left behind is marked as interrupted.

Runs when the store opens and no other agentls process has it open (see ``store.py``), so a
tool call that was running when agentls died is not left "running" forever, and a turn that
never completed shows an aborted error instead of spinning in every client.
"""

from __future__ import annotations

import logging
import sqlite3

import aiosqlite

from core.errors import StorageError
from core.message.models import (
    AssistantMessage,
    MessageError,
    ToolPart,
    ToolStateError,
    ToolStateRunning,
    ToolTimeError,
    now_ms,
)
from core.record import record
from core.storage.messages import message_row, part_row
from core.storage.rows import InvalidRowError, decode_message, decode_part
from core.storage.schema import UNFINISHED_TOOL, UNFINISHED_TURN

log = logging.getLogger(__name__)

TOOL_INTERRUPTED = "Tool execution was interrupted (agentls stopped before it finished)"
TURN_INTERRUPTED = "interrupted: agentls stopped during this turn"


@record
class RecoveryReport:
    """What recovery changed (ids), and the rows it could not read (left for readers to report)."""

    tool_parts: tuple[str, ...] = ()
    messages: tuple[str, ...] = ()
    unreadable: tuple[str, ...] = ()


async def recover(conn: aiosqlite.Connection) -> RecoveryReport:
    """Mark interrupted tool parts and unfinished assistant messages, in one transaction."""
    now = now_ms()
    unreadable: list[str] = []
    await conn.execute("BEGIN IMMEDIATE")
    try:
        async with conn.execute(f"SELECT id, body FROM parts WHERE {UNFINISHED_TOOL}") as cursor:
            part_rows = list(await cursor.fetchall())
        fixed_parts = []
        for row_id, body in part_rows:
            try:
                part = decode_part(row_id, body)
            except InvalidRowError as exc:
                unreadable.append(str(exc))
                continue
            if isinstance(part, ToolPart):
                fixed_parts.append(interrupt_tool(part, now))
        await conn.executemany(
            "UPDATE parts SET body = ? WHERE id = ?", [(part_row(p)[4], p.id) for p in fixed_parts]
        )

        async with conn.execute(f"SELECT id, body FROM messages WHERE {UNFINISHED_TURN}") as cursor:
            message_rows = list(await cursor.fetchall())
        fixed_messages = []
        for row_id, body in message_rows:
            try:
                info = decode_message(row_id, body)
            except InvalidRowError as exc:
                unreadable.append(str(exc))
                continue
            if isinstance(info, AssistantMessage):
                fixed_messages.append(interrupt_turn(info, now))
        await conn.executemany(
            "UPDATE messages SET body = ? WHERE id = ?", [(message_row(m)[4], m.id) for m in fixed_messages]
        )
        # Their text stops where the crash cut it: ended, so search indexes it (it takes finished
        # text). Queued here: no trigger queues a part written behind the store's back.
        streamed = (
            "WHERE message_id = ? AND type = 'text' AND json_extract(body, '$.time.start') IS NOT NULL "
            "AND json_extract(body, '$.time.end') IS NULL"
        )
        await conn.executemany(
            f"INSERT OR IGNORE INTO search_queue (part_rowid) SELECT rowid FROM parts {streamed}",
            [(m.id,) for m in fixed_messages],
        )
        await conn.executemany(
            f"UPDATE parts SET body = json_set(body, '$.time.end', ?) {streamed}",
            [(now, m.id) for m in fixed_messages],
        )
        await conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            await conn.execute("ROLLBACK")
        raise
    for problem in unreadable:
        log.warning("crash recovery skipped a row: %s", problem)
    report = RecoveryReport(
        tuple(p.id for p in fixed_parts), tuple(m.id for m in fixed_messages), tuple(unreadable)
    )
    if report.tool_parts or report.messages:
        log.warning(
            "recovered after an unclean stop: %s tool calls and %s turns marked interrupted",
            len(report.tool_parts),
            len(report.messages),
        )
    return report


def interrupt_tool(part: ToolPart, now: int, reason: str = TOOL_INTERRUPTED) -> ToolPart:
    """A pending or running tool part as ended by the interruption (its input kept)."""
    state = part.state
    if isinstance(state, ToolStateRunning):
        start, metadata = state.time.start, state.metadata
    else:  # pending: the call never started
        start, metadata = now, None
    error = ToolStateError(
        input=state.input, error=reason, metadata=metadata, time=ToolTimeError(start=start, end=now)
    )
    return part.model_copy(update={"state": error})


def interrupt_turn(info: AssistantMessage, now: int, reason: str = TURN_INTERRUPTED) -> AssistantMessage:
    """An unfinished turn as ended now by the interruption (an error it had already is kept)."""
    time = info.time.model_copy(update={"completed": now})
    error = info.error or MessageError(name="aborted", message=reason)
    return info.model_copy(update={"time": time, "error": error})


async def check_integrity(conn: aiosqlite.Connection) -> None:
    """Raise StorageError unless ``PRAGMA integrity_check`` answers ok."""
    try:
        async with conn.execute("PRAGMA integrity_check") as cursor:
            rows = [str(r[0]) for r in await cursor.fetchall()]
    except sqlite3.DatabaseError as exc:  # too damaged even to be checked
        raise StorageError(f"database integrity check failed: {exc}") from exc
    if rows != ["ok"]:
        raise StorageError("database integrity check failed: " + "; ".join(rows[:5]))
