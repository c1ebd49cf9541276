"""Full-text search over session titles and message text (SQLite FTS5).

Titles are indexed by triggers as they are written. Parts go through ``search_queue`` (see
migration 6 in ``schema.py``): the triggers queue the rowid of a text part that was written or
deleted, and ``index_pending`` indexes the queue in one transaction, every ``SEARCH_BATCH`` text
writes, before every search and at close. A query is FTS5 query syntax (words, ``"phrases"``,
``prefix*``, ``AND``/``OR``/``NOT``); a query SQLite cannot parse is an ``InvalidInputError`` saying
so, never an empty result.

Hits come newest first. Matching parts are read newest first (by rowid, the order they were
written) until ``limit`` sessions have one, so a common word costs a few hundred index rows, not
every match; bm25 ranking over tens of thousands of matches took close to a second.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Sequence

import aiosqlite

from core.errors import InvalidInputError, StorageError
from core.message.models import AnyPart, TextPart
from core.message.search import SearchFilter, SearchHit
from core.storage.base import StoreBase
from core.storage.rows import decode_session
from core.storage.schema import INDEX_PARTS, INDEX_TITLES, SEARCHABLE_PART, USER_AGENT

log = logging.getLogger(__name__)

# Marks around matched terms in snippets; control characters that stored text is not expected to
# hold (any that are there are dropped from the snippet, so the highlights stay right).
_OPEN, _CLOSE = "\x02", "\x03"
SNIPPET_TOKENS = 16
MAX_LIMIT = 200
SEARCH_BATCH = 64  # text-part writes queued before they are indexed in one transaction
_FETCH = 256


async def index_pending(conn: aiosqlite.Connection) -> int:
    """Index the queued parts (inside the caller's write transaction); returns how many were queued."""
    async with conn.execute("SELECT part_rowid FROM search_queue") as cursor:
        queued = [(int(r[0]),) for r in await cursor.fetchall()]
    if queued:
        # One rowid at a time: FTS5 cannot look up ``rowid IN (subquery)`` and scanned the whole
        # index for it (over a second per batch at 100,000 parts).
        await conn.executemany("DELETE FROM part_search WHERE rowid = ?", queued)
        await conn.execute(
            f"INSERT INTO part_search (rowid, text, session_id, message_id, part_id) {INDEX_PARTS} "
            # CROSS JOIN keeps the queue outermost: without statistics SQLite chose to scan every
            # part instead (0.3 s for six queued parts at 100,000).
            "FROM search_queue q CROSS JOIN parts p ON p.rowid = q.part_rowid "
            f"WHERE {SEARCHABLE_PART.format(r='p')}"
        )
        await conn.execute("DELETE FROM search_queue")
    return len(queued)


class SearchTable(StoreBase):
    """Searching the FTS5 index, and keeping the queue of parts to index short."""

    _search_backlog = 0

    async def index_pending(self) -> None:
        """Index every queued part now."""
        self._search_backlog = 0
        # Most searches find the queue empty: a read first, so they take no write lock.
        row = await self._fetchone("SELECT EXISTS (SELECT 1 FROM search_queue)")
        if row is not None and row[0]:
            async with self._tx() as conn:
                await index_pending(conn)

    async def queued_for_search(self, parts: Sequence[AnyPart]) -> None:
        """``parts`` were written: index the queue once a batch of searchable ones is due."""
        self._search_backlog += sum(searchable(p) for p in parts)
        if self._search_backlog >= SEARCH_BATCH:
            await self.index_pending()

    async def search_sessions(
        self, query: str, where: SearchFilter | None = None, limit: int = 20
    ) -> list[SearchHit]:
        """Sessions whose title or finished text parts match ``query`` (FTS5 syntax), newest first."""
        text = query.strip()
        if not text:
            raise InvalidInputError("the search query is empty: give one or more words to look for")
        if not 1 <= limit <= MAX_LIMIT:
            raise InvalidInputError(f"the search limit must be between 1 and {MAX_LIMIT}, not {limit}")
        await self.index_pending()
        async with self._lock:
            self._check_open()
            try:
                return await _search(self._conn, text, where or SearchFilter(), limit)
            except sqlite3.OperationalError as exc:
                if _is_query_error(exc):
                    raise InvalidInputError(_query_message(text, exc)) from exc
                raise StorageError(f"search failed: {exc}") from exc
            except sqlite3.Error as exc:
                raise StorageError(f"search failed: {exc}") from exc

    async def rebuild_search_index(self) -> None:
        """Fill the search index again from the parts and sessions tables (after a VACUUM, which may
        renumber the parts' rowids, or damage)."""
        async with self._tx() as conn:
            await conn.execute("DELETE FROM search_queue")
            await conn.execute("DELETE FROM part_search")
            await conn.execute("DELETE FROM session_search")
            await conn.execute(
                f"INSERT INTO part_search (rowid, text, session_id, message_id, part_id) {INDEX_PARTS} "
                f"FROM parts p WHERE {SEARCHABLE_PART.format(r='p')}"
            )
            await conn.execute(
                f"INSERT INTO session_search (rowid, title, session_id) {INDEX_TITLES} FROM sessions s"
            )


class _Sessions:
    """The sessions a filter lets through (id → last update); bodies are read for the hits only."""

    def __init__(self, conn: aiosqlite.Connection, where: SearchFilter) -> None:
        self.conn = conn
        self.where = where
        self.updated: dict[str, int] = {}

    async def load(self) -> None:
        w = self.where
        sql = (
            "SELECT id, time_updated FROM sessions WHERE (:p IS NULL OR project_id = :p) "
            "AND (:since IS NULL OR time_updated >= :since) AND (:until IS NULL OR time_updated < :until)"
        )
        if w.agent is not None:
            sql += (
                f" AND id IN (SELECT session_id FROM messages WHERE role = 'user' AND {USER_AGENT} = :agent)"
            )
        params = {"p": w.project_id, "since": w.since, "until": w.until, "agent": w.agent}
        async with self.conn.execute(sql, params) as cursor:
            self.updated = {str(r[0]): int(r[1]) for r in await cursor.fetchall()}

    async def bodies(self, ids: list[str]) -> dict[str, str]:
        marks = ",".join("?" * len(ids))
        async with self.conn.execute(f"SELECT id, body FROM sessions WHERE id IN ({marks})", ids) as cursor:
            return {str(r[0]): str(r[1]) for r in await cursor.fetchall()}


async def _search(conn: aiosqlite.Connection, query: str, where: SearchFilter, limit: int) -> list[SearchHit]:
    sessions = _Sessions(conn, where)
    await sessions.load()
    allowed = sessions.updated
    async with conn.execute(
        f"SELECT session_id, highlight(session_search, 0, '{_OPEN}', '{_CLOSE}') "
        "FROM session_search WHERE session_search MATCH ?",
        (query,),
    ) as cursor:
        titles = {str(r[0]): str(r[1]) for r in await cursor.fetchall() if r[0] in allowed}
    best: dict[str, tuple[int, str, str]] = {}  # session id → (part rowid, message id, part id)
    if allowed:
        async with conn.execute(
            "SELECT rowid, session_id, message_id, part_id FROM part_search WHERE part_search MATCH ? "
            "ORDER BY rowid DESC",
            (query,),
        ) as cursor:
            while len(best) < limit:
                rows = list(await cursor.fetchmany(_FETCH))
                for rowid, session_id, message_id, part_id in rows:
                    if session_id in allowed and session_id not in best:
                        best[session_id] = (int(rowid), str(message_id), str(part_id))
                if len(rows) < _FETCH:
                    break
    # Newest first; a session's newest matching part is shown before its title.
    chosen = sorted({*best, *titles}, key=lambda sid: (allowed[sid], sid), reverse=True)[:limit]
    snippets = await _part_snippets(conn, query, [best[sid][0] for sid in chosen if sid in best])
    bodies = await sessions.bodies(chosen)
    hits: list[SearchHit] = []
    for sid in chosen:
        if sid in best:
            rowid, message_id, part_id = best[sid]
            snippet, highlights = split_marks(snippets.get(rowid, ""))
            hit = SearchHit(decode_session(sid, bodies[sid]), snippet, highlights, message_id, part_id)
        else:
            snippet, highlights = split_marks(titles[sid])
            hit = SearchHit(decode_session(sid, bodies[sid]), snippet, highlights)
        hits.append(hit)
    return hits


async def _part_snippets(conn: aiosqlite.Connection, query: str, rowids: list[int]) -> dict[int, str]:
    # For the hits only. FTS5 cannot seek ``rowid IN (…)`` (it walked every match of the query: 0.4 s
    # for a prefix at 100,000 parts), and a query per rowid expands a prefix each time; a rowid range
    # it can seek, and SQLite drops the rows between before snippet() runs.
    if not rowids:
        return {}
    marks = ",".join("?" * len(rowids))
    sql = (
        f"SELECT rowid, snippet(part_search, 0, '{_OPEN}', '{_CLOSE}', '…', {SNIPPET_TOKENS}) "
        f"FROM part_search WHERE part_search MATCH ? AND rowid BETWEEN ? AND ? AND +rowid IN ({marks})"
    )
    async with conn.execute(sql, [query, min(rowids), max(rowids), *rowids]) as cursor:
        return {int(r[0]): str(r[1]) for r in await cursor.fetchall()}


def searchable(part: AnyPart) -> bool:
    """Whether the index takes ``part`` (as ``SEARCHABLE_PART`` decides in SQL)."""
    if not isinstance(part, TextPart) or part.synthetic:
        return False
    return part.time is None or part.time.end is not None


def split_marks(marked: str) -> tuple[str, list[tuple[int, int]]]:
    """A snippet with match marks as plain text and the [start, end) ranges of the marked terms."""
    plain: list[str] = []
    ranges: list[tuple[int, int]] = []
    start: int | None = None
    length = 0
    for ch in marked:
        if ch == _OPEN:
            start = length
        elif ch == _CLOSE:
            if start is not None and length > start:
                ranges.append((start, length))
            start = None
        else:
            plain.append(ch)
            length += 1
    return "".join(plain), ranges


def _is_query_error(exc: sqlite3.OperationalError) -> bool:
    # A bad MATCH expression is a plain SQLITE_ERROR ("fts5: syntax error near …", "unterminated
    # string", "no such column: bar" for foo-bar); the SQL around it is fixed, so that code means the
    # query. Busy, I/O and corruption have codes of their own and stay storage errors.
    return exc.sqlite_errorcode == sqlite3.SQLITE_ERROR


def _query_message(query: str, exc: sqlite3.OperationalError) -> str:
    return (
        f"the search query {query!r} is not valid FTS5 query syntax ({exc}). Words match as they "
        'are; put text in double quotes to search for it literally, e.g. "foo-bar"; '
        "other syntax: prefix*, AND, OR, NOT, (groups)"
    )
