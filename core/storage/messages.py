"""The messages and parts tables: upserts, lookups, and newest-first streaming in pages."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence

import aiosqlite

from core.errors import NotFoundError
from core.message.models import AnyPart, AssistantMessage, MessageWithParts
from core.record import record
from core.storage.rows import AnyMessage, OnInvalid, checked, decode_message, decode_part, encode
from core.storage.search import SearchTable

_UPSERT_MESSAGE = (
    "INSERT INTO messages (id, session_id, role, time_created, body) VALUES (?, ?, ?, ?, ?) "
    "ON CONFLICT (id) DO UPDATE SET session_id = excluded.session_id, role = excluded.role, "
    "time_created = excluded.time_created, body = excluded.body"
)
_UPSERT_PART = (
    "INSERT INTO parts (id, message_id, session_id, type, body) VALUES (?, ?, ?, ?, ?) "
    "ON CONFLICT (id) DO UPDATE SET message_id = excluded.message_id, session_id = excluded.session_id, "
    "type = excluded.type, body = excluded.body"
)

DEFAULT_PAGE = 100


@record
class PartFilter:
    """Load only the parts of ``types`` (and the part ``also``, if any): for readers that want a
    long session's bookkeeping, not its text and tool outputs."""

    types: tuple[str, ...]
    also: str | None = None


def message_row(info: AnyMessage) -> tuple[str, str, str, int, str]:
    """The messages row of a message."""
    return (info.id, info.sessionID, info.role, info.time.created, encode(info))


def part_row(part: AnyPart) -> tuple[str, str, str, str, str]:
    """The parts row of a part."""
    return (part.id, part.messageID, part.sessionID, part.type, encode(part))


class MessageTable(SearchTable):
    """Messages and their parts (text parts written or removed are queued for the search index)."""

    async def upsert_message(self, info: AnyMessage) -> None:
        """Insert or replace a message (its session must exist)."""
        if isinstance(info, AssistantMessage) and (info.time.completed is not None or info.error is not None):
            await self.write_completing(_UPSERT_MESSAGE, message_row(info))
        else:
            await self._write(_UPSERT_MESSAGE, message_row(info))

    async def upsert_part(self, part: AnyPart) -> None:
        """Insert or replace a part (its message must exist)."""
        await self._write(_UPSERT_PART, part_row(part))
        if self.note_for_search((part,)):
            await self.index_pending()

    async def upsert_parts(self, parts: Sequence[AnyPart]) -> None:
        """Insert or replace many parts in one transaction."""
        if parts:
            # Rows are encoded now, before waiting for the lock: the write is a snapshot of this moment.
            await self._write_many(_UPSERT_PART, [part_row(p) for p in parts])
            if self.note_for_search(parts):
                await self.index_pending()

    async def mark_compacted(self, marks: Sequence[tuple[str, int]]) -> None:
        """Set ``state.time.compacted`` of tool parts (part id, time), in one transaction.

        The body is patched in SQL: re-encoding and shipping every pruned output from Python
        took three times as long as the write itself.
        """
        if marks:
            await self._write_many(
                "UPDATE parts SET body = json_set(body, '$.state.time.compacted', ?) WHERE id = ?",
                [(stamp, part_id) for part_id, stamp in marks],
            )

    async def part_token_counts(self, session_id: str) -> dict[str, str]:
        """The token counts stored for a session's parts (part id → JSON), for the counter."""
        rows = await self._fetchall(
            "SELECT part_id, tokens FROM part_tokens WHERE session_id = ?", (session_id,)
        )
        return {str(r[0]): str(r[1]) for r in rows}

    async def save_token_counts(self, counts: Mapping[str, str]) -> None:
        """Keep token counts for their parts (part id → JSON), in one transaction; parts that are
        gone meanwhile are skipped."""
        if counts:
            await self._write_many(
                "INSERT INTO part_tokens (part_id, session_id, tokens) "
                "SELECT id, session_id, ? FROM parts WHERE id = ? "
                "ON CONFLICT (part_id) DO UPDATE SET tokens = excluded.tokens",
                [(v, k) for k, v in counts.items()],
            )

    async def get_message(
        self, session_id: str, message_id: str, on_invalid: OnInvalid | None = None
    ) -> MessageWithParts:
        """A message with its parts in id order (NotFoundError if unknown)."""
        async with self._reading() as conn:
            async with conn.execute(
                "SELECT id, body FROM messages WHERE id = ? AND session_id = ?", (message_id, session_id)
            ) as cursor:
                rows = [(r[0], r[1]) for r in await cursor.fetchall()]
            if not rows:
                raise NotFoundError(f"message {message_id} not found in session {session_id}")
            found = await _with_parts(conn, rows, on_invalid)
        if not found:  # the message row itself was invalid and reported
            raise NotFoundError(f"message {message_id} in session {session_id} is invalid")
        return found[0]

    async def remove_message(self, session_id: str, message_id: str) -> None:
        """Delete a message and its parts (NotFoundError if unknown)."""
        changed = await self._write(
            "DELETE FROM messages WHERE id = ? AND session_id = ?", (message_id, session_id)
        )
        if changed == 0:
            raise NotFoundError(f"message {message_id} not found in session {session_id}")

    async def remove_part(self, session_id: str, message_id: str, part_id: str) -> None:
        """Delete one part (NotFoundError if unknown)."""
        changed = await self._write(
            "DELETE FROM parts WHERE id = ? AND message_id = ? AND session_id = ?",
            (part_id, message_id, session_id),
        )
        if changed == 0:
            raise NotFoundError(f"part {part_id} not found in message {message_id}")

    async def page_messages(
        self,
        session_id: str,
        limit: int = DEFAULT_PAGE,
        before: str | None = None,
        on_invalid: OnInvalid | None = None,
    ) -> list[MessageWithParts]:
        """The ``limit`` messages just before message id ``before`` (the newest when None), newest first."""
        async with self._reading() as conn:
            rows = await _page_rows(conn, session_id, limit, before)
            return await _with_parts(conn, rows, on_invalid)

    async def stream_messages(
        self,
        session_id: str,
        page: int = DEFAULT_PAGE,
        on_invalid: OnInvalid | None = None,
        parts: PartFilter | None = None,
    ) -> AsyncIterator[MessageWithParts]:
        """Every message of the session with its parts (those ``parts`` lets through), newest
        first, read ``page`` messages at a time."""
        before: str | None = None
        while True:
            # The lock is held per page, never across a yield: the consumer may write meanwhile.
            async with self._reading() as conn:
                rows = await _page_rows(conn, session_id, page, before)
                found = await _with_parts(conn, rows, on_invalid, parts)
            for message in found:
                yield message
            if len(rows) < page:
                return
            before = rows[-1][0]

    async def list_messages(
        self, session_id: str, on_invalid: OnInvalid | None = None, parts: PartFilter | None = None
    ) -> list[MessageWithParts]:
        """Every message of the session with its parts (those ``parts`` lets through), oldest first."""
        found = [m async for m in self.stream_messages(session_id, on_invalid=on_invalid, parts=parts)]
        found.reverse()
        return found


async def _page_rows(
    conn: aiosqlite.Connection, session_id: str, limit: int, before: str | None
) -> list[tuple[str, str]]:
    if before is None:
        sql = "SELECT id, body FROM messages WHERE session_id = ? ORDER BY id DESC LIMIT ?"
        params: tuple[str | int, ...] = (session_id, limit)
    else:
        sql = "SELECT id, body FROM messages WHERE session_id = ? AND id < ? ORDER BY id DESC LIMIT ?"
        params = (session_id, before, limit)
    async with conn.execute(sql, params) as cursor:
        return [(r[0], r[1]) for r in await cursor.fetchall()]


async def _with_parts(
    conn: aiosqlite.Connection,
    rows: Sequence[tuple[str, str]],
    on_invalid: OnInvalid | None,
    only: PartFilter | None = None,
) -> list[MessageWithParts]:
    """Validate message rows and attach their parts (one query), in the order of ``rows``."""
    if not rows:
        return []
    ids = [r[0] for r in rows]
    marks = ",".join("?" * len(ids))
    parts: dict[str, list[AnyPart]] = {i: [] for i in ids}
    where, params = f"message_id IN ({marks})", list(ids)
    if only is not None:
        where += f" AND (type IN ({','.join('?' * len(only.types))}) OR id = ?)"
        params += [*only.types, only.also or ""]
    async with conn.execute(
        f"SELECT id, message_id, body FROM parts WHERE {where} ORDER BY message_id, id", params
    ) as cursor:
        # fetchall: iterating an aiosqlite cursor costs one thread round trip per row.
        for part_id, message_id, body in await cursor.fetchall():
            part = checked(decode_part, part_id, body, on_invalid)
            if part is not None:
                parts[message_id].append(part)
    result: list[MessageWithParts] = []
    for message_id, body in rows:
        info = checked(decode_message, message_id, body, on_invalid)
        if info is not None:
            # Already validated piece by piece: construct without validating the whole again.
            result.append(MessageWithParts.model_construct(info=info, parts=parts[message_id]))
    return result
