"""Full-text search over session titles and message text (SQLite FTS5).

The index (``part_search``, ``session_search``) is kept in step by triggers on the parts and sessions
tables (see migration 5 in ``schema.py``): whatever writes a row, the index follows in the same
transaction. A query is FTS5 query syntax (words, ``"phrases"``, ``prefix*``, ``AND``/``OR``/``NOT``);
a query SQLite cannot parse is an ``InvalidInputError`` saying so, never an empty result.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field

import aiosqlite

from core.errors import InvalidInputError, StorageError
from core.message.models import Session
from core.storage.base import StoreBase
from core.storage.rows import decode_session
from core.storage.schema import SEARCHABLE_PART

log = logging.getLogger(__name__)

# Marks around matched terms in snippets; control characters no stored text is expected to hold
# (any that are there are dropped from the snippet so the highlights stay right).
_OPEN, _CLOSE = "\x02", "\x03"
SNIPPET_TOKENS = 16
MAX_LIMIT = 200
# bm25 scores of the two tables are on different scales; a title names the whole session, so a
# match there counts for more than one in a single part.
_TITLE_WEIGHT = 2.0

_HITS = f"""
WITH hits (session_id, message_id, part_rowid, score) AS (
    SELECT p.session_id, p.message_id, p.rowid, part_search.rank
    FROM part_search JOIN parts p ON p.rowid = part_search.rowid AND p.id = part_search.part_id
    WHERE part_search MATCH :query
    UNION ALL
    SELECT s.id, NULL, NULL, session_search.rank * {_TITLE_WEIGHT}
    FROM session_search
    JOIN sessions s ON s.rowid = session_search.rowid AND s.id = session_search.session_id
    WHERE session_search MATCH :query
)
SELECT s.id, s.body, h.message_id, h.part_rowid, min(h.score), count(*)
FROM hits h JOIN sessions s ON s.id = h.session_id
WHERE (:project IS NULL OR s.project_id = :project)
  AND (:since IS NULL OR s.time_updated >= :since)
  AND (:until IS NULL OR s.time_updated < :until)
  AND (:agent IS NULL OR EXISTS (
      SELECT 1 FROM messages m WHERE m.session_id = s.id AND json_extract(m.body, '$.agent') = :agent))
GROUP BY s.id
ORDER BY min(h.score), s.time_updated DESC
LIMIT :limit
"""


@dataclass(frozen=True)
class SearchFilter:
    """Which sessions a search looks at: a project's, updated in [since, until) (ms), run with an agent."""

    project_id: str | None = None
    since: int | None = None
    until: int | None = None
    agent: str | None = None


@dataclass(frozen=True)
class SearchHit:
    """A session that matches, best first: where it matches best and how often it matches.

    ``message_id``/``part_id`` are None when the title is the best match. ``highlights`` are
    [start, end) offsets of the matched terms in ``snippet``, in Unicode code points.
    """

    session: Session
    snippet: str
    highlights: list[tuple[int, int]] = field(default_factory=list)
    message_id: str | None = None
    part_id: str | None = None
    matches: int = 1


class SearchTable(StoreBase):
    """Searching the FTS5 index the triggers keep."""

    async def search_sessions(
        self, query: str, where: SearchFilter | None = None, limit: int = 20
    ) -> list[SearchHit]:
        """Sessions whose title or finished text parts match ``query`` (FTS5 syntax), best first."""
        text = query.strip()
        if not text:
            raise InvalidInputError("the search query is empty: give one or more words to look for")
        if not 1 <= limit <= MAX_LIMIT:
            raise InvalidInputError(f"the search limit must be between 1 and {MAX_LIMIT}, not {limit}")
        where = where or SearchFilter()
        params = {
            "query": text,
            "project": where.project_id,
            "since": where.since,
            "until": where.until,
            "agent": where.agent,
            "limit": limit,
        }
        async with self._lock:
            self._check_open()
            try:
                async with self._conn.execute(_HITS, params) as cursor:
                    rows = list(await cursor.fetchall())
                snippets = await _snippets(self._conn, text, rows)
            except sqlite3.OperationalError as exc:
                if _is_query_error(exc):
                    raise InvalidInputError(_query_message(text, exc)) from exc
                raise StorageError(f"search failed: {exc}") from exc
            except sqlite3.Error as exc:
                raise StorageError(f"search failed: {exc}") from exc
        hits: list[SearchHit] = []
        for session_id, body, message_id, part_rowid, _score, count in rows:
            found = snippets.get(part_rowid if part_rowid is not None else session_id)
            part_id, marked = found if found is not None else (None, "")
            snippet, highlights = split_marks(marked)
            hits.append(
                SearchHit(
                    session=decode_session(session_id, body),
                    snippet=snippet,
                    highlights=highlights,
                    message_id=message_id,
                    part_id=part_id,
                    matches=int(count),
                )
            )
        return hits

    async def rebuild_search_index(self) -> None:
        """Fill the search index again from the parts and sessions tables (after a VACUUM, or damage)."""
        async with self._tx() as conn:
            await conn.execute("DELETE FROM part_search")
            await conn.execute("DELETE FROM session_search")
            await conn.execute(
                "INSERT INTO part_search (rowid, text, part_id) "
                "SELECT p.rowid, json_extract(p.body, '$.text'), p.id "
                f"FROM parts p WHERE {SEARCHABLE_PART.format(r='p')}"
            )
            await conn.execute(
                "INSERT INTO session_search (rowid, title, session_id) "
                "SELECT s.rowid, json_extract(s.body, '$.title'), s.id FROM sessions s"
            )


async def _snippets(
    conn: aiosqlite.Connection, query: str, rows: Sequence[sqlite3.Row]
) -> dict[object, tuple[str | None, str]]:
    """Snippets of the best match of each hit: part rowid → (part id, text), session id → (None, title).

    Computed for the page of hits only: ``snippet()`` over every match of a common word would cost
    more than the search.
    """
    found: dict[object, tuple[str | None, str]] = {}
    part_rowids = [r[3] for r in rows if r[3] is not None]
    title_ids = [r[0] for r in rows if r[3] is None]
    if part_rowids:
        marks = ",".join("?" * len(part_rowids))
        sql = (
            f"SELECT rowid, part_id, snippet(part_search, 0, '{_OPEN}', '{_CLOSE}', '…', {SNIPPET_TOKENS}) "
            f"FROM part_search WHERE part_search MATCH ? AND rowid IN ({marks})"
        )
        async with conn.execute(sql, [query, *part_rowids]) as cursor:
            for rowid, part_id, snippet in await cursor.fetchall():
                found[rowid] = (str(part_id), str(snippet))
    if title_ids:
        marks = ",".join("?" * len(title_ids))
        sql = (
            f"SELECT session_id, highlight(session_search, 0, '{_OPEN}', '{_CLOSE}') "
            f"FROM session_search WHERE session_search MATCH ? AND session_id IN ({marks})"
        )
        async with conn.execute(sql, [query, *title_ids]) as cursor:
            for session_id, title in await cursor.fetchall():
                found[session_id] = (None, str(title))
    return found


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
