"""Full-text search over session titles and message text (SQLite FTS5).

Titles are indexed by triggers as they are written. Text parts are queued, then indexed in batches
(see migrations 6 and 7 in ``schema.py``): the store keeps the ids of the text parts it writes in
memory (a set: a part streamed in a hundred flushes is one id) and moves them into ``search_queue``
when an answer completes, in the answer's own transaction (so another process's search, such as
``agentls sessions search``, finds a completed answer); a trigger puts the rowid of a deleted text
part in ``search_queue`` (a cascade from a deleted message or session deletes parts no code sees).
``index_pending`` indexes both in one transaction: when an answer completes with
``SEARCH_BATCH`` searchable writes queued (off the streaming path: a part write only adds an id),
before every search and at close, and inside a write only when ``SEARCH_BACKLOG_MAX`` are queued.
The ids still in memory die with a process that is killed: the next open that finds the database not
closed cleanly queues every searchable part the index lacks or holds with other text
(``queue_unindexed``), and a close that could not index them leaves no clean-close stamp.

A query is what the user typed, made into an expression SQLite always parses (``search_query``);
FTS5 syntax only after ``fts:``, and such a query SQLite cannot parse is an ``InvalidInputError``
saying so, never an empty result.

Hits come newest first. Matching parts are read newest first (by rowid, the order they were
written) until ``limit`` sessions have one, so a common word costs a few hundred index rows, not
every match; bm25 ranking over tens of thousands of matches took close to a second. Which session a
match belongs to is read from ``parts`` by rowid: the index's own columns sit after the text in its
content table, so reading them read every matching text (70 ms for 15,000 matches). When a filter
leaves a small share of the project's sessions (an agent, a date range), the scan keeps only the
rowids of their parts: otherwise it would read most matches of the whole project to find the few
sessions it may show.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Collection, Sequence

import aiosqlite

from core.errors import InvalidInputError, StorageError
from core.message.models import AnyPart, TextPart
from core.message.search import SearchFilter, SearchHit
from core.storage.base import StoreBase
from core.storage.rows import decode_session
from core.storage.schema import INDEX_PARTS, INDEX_TITLES, SEARCHABLE_PART, USER_AGENT
from core.storage.search_query import FTS_PREFIX, match_query

log = logging.getLogger(__name__)

# Marks around matched terms in snippets; control characters that stored text is not expected to
# hold (any that are there are dropped from the snippet, so the highlights stay right).
_OPEN, _CLOSE = "\x02", "\x03"
SNIPPET_TOKENS = 16
MAX_LIMIT = 200
SEARCH_BATCH = 64  # text-part writes queued before a completed answer indexes them in one transaction
SEARCH_BACKLOG_MAX = 1024  # queued text-part writes that a write indexes at once (no answer completed)
NARROW = 4  # a filter leaving at most 1/NARROW of the project's sessions scans their parts only
_FETCH = 256


async def index_pending(conn: aiosqlite.Connection, part_ids: Collection[str] = ()) -> int:
    """Index the parts ``part_ids`` and those queued in ``search_queue`` (inside the caller's write
    transaction); returns how many were queued."""
    await queue_parts(conn, part_ids)
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


async def queue_parts(conn: aiosqlite.Connection, part_ids: Collection[str]) -> None:
    """Put the parts ``part_ids`` in ``search_queue`` (inside the caller's write transaction)."""
    if part_ids:
        # A part deleted since it was written has no row any more: its delete queued its rowid.
        await conn.execute(
            "INSERT OR IGNORE INTO search_queue (part_rowid) "
            "SELECT rowid FROM parts WHERE id IN (SELECT value FROM json_each(?))",
            (json.dumps(sorted(part_ids)),),
        )


async def queue_unindexed(conn: aiosqlite.Connection) -> int:
    """Queue every searchable part that the index lacks or holds with other text (inside the
    caller's write transaction): after a process died with written parts not indexed yet."""
    cursor = await conn.execute(
        "INSERT OR IGNORE INTO search_queue (part_rowid) SELECT p.rowid FROM parts p "
        f"WHERE {SEARCHABLE_PART.format(r='p')} AND NOT EXISTS (SELECT 1 FROM part_search f "
        "WHERE f.rowid = p.rowid AND f.text IS json_extract(p.body, '$.text'))"
    )
    return int(cursor.rowcount)


class SearchTable(StoreBase):
    """Searching the FTS5 index, and keeping the queue of parts to index short."""

    _search_backlog = 0
    search_backlog_max = SEARCH_BACKLOG_MAX

    def __init__(self, conn: aiosqlite.Connection, path: str) -> None:
        super().__init__(conn, path)
        self._search_ids: set[str] = set()  # text parts written since the last indexing

    async def index_pending(self) -> None:
        """Index every queued part now."""
        self._search_backlog = 0
        written = frozenset(self._search_ids)
        if not written:
            # Most searches find nothing queued: a read first, so they take no write lock.
            row = await self._fetchone("SELECT EXISTS (SELECT 1 FROM search_queue)")
            if row is None or not row[0]:
                return
        async with self._tx() as conn:
            await index_pending(conn, written)
        # Only once committed (a failed transaction keeps them queued); ids written meanwhile stay.
        self._search_ids -= written

    async def queued_for_search(self, parts: Sequence[AnyPart]) -> None:
        """``parts`` were written: their text parts wait in the queue (indexing them here would slow
        the streaming writes down), unless it has grown too long without an answer completing."""
        if self.note_for_search(parts):
            await self.index_pending()

    def note_for_search(self, parts: Sequence[AnyPart]) -> bool:
        """Keep the ids of ``parts``' text parts for the queue; True when it has grown too long
        without an answer completing, so that the caller indexes it now (``index_pending``).

        Not a coroutine: every streaming flush of a part calls it, and almost always it only adds
        an id."""
        # Every text part, not only those the index takes: one that no longer does (no longer
        # ended, made synthetic) must leave the index. Indexing drops what it does not take.
        for part in parts:
            if isinstance(part, TextPart):
                self._search_ids.add(part.id)
                self._search_backlog += searchable(part)
        return self._search_backlog >= self.search_backlog_max

    async def write_completing(self, sql: str, params: Sequence[object]) -> None:
        """Run ``sql`` (the write of an answer that completed) in one transaction with moving the
        ids of the parts written so far into ``search_queue``: from there another process's search
        indexes them too, and they outlive this process. Then index the queue if a batch is due."""
        written = frozenset(self._search_ids)
        async with self._tx() as conn:
            await conn.execute(sql, params)
            await queue_parts(conn, written)
        self._search_ids -= written
        await self.answer_completed()

    @property
    def unindexed(self) -> bool:
        """Whether parts written by this store wait to be indexed (only this process knows them)."""
        return bool(self._search_ids)

    async def answer_completed(self) -> None:
        """An answer ended: index the queue if a batch is due (the next search would otherwise)."""
        if self._search_backlog >= SEARCH_BATCH:
            await self.index_pending()

    async def search_sessions(
        self, query: str, where: SearchFilter | None = None, limit: int = 20
    ) -> list[SearchHit]:
        """Sessions whose title or finished text parts match ``query`` (typed words; FTS5 syntax
        after ``fts:``), newest first."""
        match = match_query(query)
        if not 1 <= limit <= MAX_LIMIT:
            raise InvalidInputError(f"the search limit must be between 1 and {MAX_LIMIT}, not {limit}")
        await self.index_pending()
        async with self._lock:
            self._check_open()
            try:
                return await _search(self._conn, match.expression, where or SearchFilter(), limit)
            except sqlite3.OperationalError as exc:
                # Typed words are always quoted: only a query in FTS5 syntax can be the user's error.
                if match.raw and _is_query_error(exc):
                    raise InvalidInputError(_query_message(match.expression, exc)) from exc
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
        self.narrow = False  # the filter leaves a small share of the project's sessions

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
        if w.agent is not None or w.since is not None or w.until is not None:
            async with self.conn.execute(
                "SELECT count(*) FROM sessions WHERE (:p IS NULL OR project_id = :p)", params
            ) as cursor:
                row = await cursor.fetchone()
            self.narrow = row is not None and len(self.updated) * NARROW <= int(row[0])

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
    best = await _newest_matches(conn, query, sessions, limit) if allowed else {}
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


async def _newest_matches(
    conn: aiosqlite.Connection, query: str, sessions: _Sessions, limit: int
) -> dict[str, tuple[int, str, str]]:
    """Session id → (rowid, message id, part id) of its newest matching part, for the first
    ``limit`` sessions (of those allowed) met reading the matches newest first."""
    sql = (
        "SELECT f.rowid, p.session_id FROM part_search f CROSS JOIN parts p ON p.rowid = f.rowid "
        "WHERE part_search MATCH ?"
    )
    params: list[object] = [query]
    if sessions.narrow:
        # ``+``: a filter on each match, not a rowid lookup FTS5 would answer by scanning the index.
        sql += (
            " AND +f.rowid IN (SELECT rowid FROM parts WHERE session_id IN (SELECT value FROM json_each(?)))"
        )
        params.append(json.dumps(list(sessions.updated)))
    rowids: dict[str, int] = {}
    allowed = sessions.updated
    async with conn.execute(sql + " ORDER BY f.rowid DESC", params) as cursor:
        while len(rowids) < limit:
            rows = list(await cursor.fetchmany(_FETCH))
            for rowid, session_id in rows:
                if session_id in allowed and session_id not in rowids:
                    rowids[session_id] = int(rowid)
            if len(rows) < _FETCH:
                break
    if not rowids:
        return {}
    marks = ",".join("?" * len(rowids))
    async with conn.execute(
        f"SELECT rowid, message_id, id FROM parts WHERE rowid IN ({marks})", list(rowids.values())
    ) as cursor:
        ids = {int(r[0]): (str(r[1]), str(r[2])) for r in await cursor.fetchall()}
    return {sid: (rowid, *ids[rowid]) for sid, rowid in rowids.items() if rowid in ids}


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


def _query_message(expression: str, exc: sqlite3.OperationalError) -> str:
    return (
        f"the search query {FTS_PREFIX + expression!r} is not valid FTS5 query syntax ({exc}). Inside "
        'FTS5 syntax put text with punctuation in double quotes, e.g. "foo-bar"; or leave out '
        f"{FTS_PREFIX!r} to search for the words as typed"
    )
