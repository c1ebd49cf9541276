"""The database schema as a list of forward migrations, tracked in ``PRAGMA user_version``.

A migration is applied once, in its own transaction, together with the version bump, so a crash
mid-migration leaves the previous version intact. Never edit a released migration: append one.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Sequence

import aiosqlite

from core.errors import StorageError
from core.record import record

log = logging.getLogger(__name__)


@record
class Migration:
    version: int
    description: str
    statements: tuple[str, ...]


_INITIAL = Migration(
    1,
    "projects, sessions, messages, parts, todos",
    (
        """CREATE TABLE projects (
            id TEXT PRIMARY KEY,
            worktree TEXT NOT NULL,
            vcs TEXT,
            time_created INTEGER NOT NULL
        )""",
        """CREATE TABLE sessions (
            id TEXT PRIMARY KEY,
            project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
            parent_id TEXT REFERENCES sessions(id) ON DELETE CASCADE,
            time_created INTEGER NOT NULL,
            time_updated INTEGER NOT NULL,
            body TEXT NOT NULL
        )""",
        "CREATE INDEX sessions_by_project ON sessions(project_id, time_updated DESC, id DESC)",
        "CREATE INDEX sessions_by_parent ON sessions(parent_id)",
        """CREATE TABLE messages (
            id TEXT PRIMARY KEY,
            session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            role TEXT NOT NULL,
            time_created INTEGER NOT NULL,
            body TEXT NOT NULL
        )""",
        "CREATE INDEX messages_by_session ON messages(session_id, id)",
        """CREATE TABLE parts (
            id TEXT PRIMARY KEY,
            message_id TEXT NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
            session_id TEXT NOT NULL,
            type TEXT NOT NULL,
            body TEXT NOT NULL
        )""",
        "CREATE INDEX parts_by_message ON parts(message_id, id)",
        "CREATE INDEX parts_by_session ON parts(session_id)",
        """CREATE TABLE todos (
            session_id TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
            body TEXT NOT NULL
        )""",
    ),
)

_APPROVALS = Migration(
    2,
    "permission approvals remembered per project ('always' replies)",
    (
        """CREATE TABLE permission_approvals (
            id TEXT PRIMARY KEY,
            project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
            permission TEXT NOT NULL,
            pattern TEXT NOT NULL,
            time_created INTEGER NOT NULL,
            UNIQUE (project_id, permission, pattern)
        )""",
        "CREATE INDEX approvals_by_project ON permission_approvals(project_id, time_created)",
    ),
)

# Crash recovery looks for these rows on every open; partial indexes keep that lookup
# proportional to the (few) unfinished rows instead of a scan of every part. The recovery queries
# must use exactly these predicates for SQLite to pick the indexes.
UNFINISHED_TOOL = "type = 'tool' AND json_extract(body, '$.state.status') IN ('pending', 'running')"
UNFINISHED_TURN = "role = 'assistant' AND json_extract(body, '$.time.completed') IS NULL"

_RECOVERY_INDEXES = Migration(
    3,
    "partial indexes of unfinished tool parts and turns, for crash recovery on open",
    (
        f"CREATE INDEX parts_unfinished_tools ON parts(id) WHERE {UNFINISHED_TOOL}",
        f"CREATE INDEX messages_unfinished ON messages(id) WHERE {UNFINISHED_TURN}",
    ),
)

_PART_TOKENS = Migration(
    4,
    "token counts kept beside each part, so a restart does not re-tokenise long sessions",
    # JSON {"enc", "key", "n", "out"} from TokenCounter.take_fresh. A table of its own, not a
    # column of parts: updating a parts row rewrites its whole body (a tool output of tens of kB).
    # A cache: an upsert of the part leaves it, and the counter checks "key" against the part.
    (
        """CREATE TABLE part_tokens (
            part_id TEXT PRIMARY KEY REFERENCES parts(id) ON DELETE CASCADE,
            session_id TEXT NOT NULL,
            tokens TEXT NOT NULL
        )""",
        "CREATE INDEX part_tokens_by_session ON part_tokens(session_id)",
    ),
)

_REVIEW_HUNKS = Migration(
    5,
    "the agent's changes as hunks to review (pending, kept, undone), kept with the session",
    # The row's columns are what the queries select on; the Hunk itself is the JSON body. A hunk
    # goes with its message: a revert's cleanup (or a deleted session) takes its hunks along.
    (
        """CREATE TABLE review_hunks (
            id TEXT PRIMARY KEY,
            session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            message_id TEXT NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
            step_id TEXT NOT NULL,
            state TEXT NOT NULL,
            body TEXT NOT NULL
        )""",
        "CREATE INDEX review_hunks_by_session ON review_hunks(session_id, id)",
        "CREATE INDEX review_hunks_by_message ON review_hunks(message_id)",
    ),
)

# Full-text search (core/storage/search.py). What is indexed: session titles, and the text parts that
# are finished: a user's text (no time), or a streamed text part once ``time.end`` is set. Streaming
# flushes write a part many times before it ends; indexing each of those writes would tokenise the
# growing text again and again, so the index takes the part once, when it is complete. Synthetic
# text (attached file contents, reminders) is not what anyone wrote or read in the chat: left out.
# A body that is not JSON (damage; tests write such rows) must not make its write fail: json_extract
# would raise, so it is only asked of a valid body (CASE, unlike AND, fixes the order).
SEARCHABLE_PART = (
    "({r}.type = 'text' AND CASE WHEN json_valid({r}.body) THEN "
    "json_extract({r}.body, '$.synthetic') IS NOT 1 "
    "AND (json_extract({r}.body, '$.time.start') IS NULL "
    "OR json_extract({r}.body, '$.time.end') IS NOT NULL) "
    "ELSE 0 END)"
)
# Parts: an FTS5 transaction writes a new index segment at commit, which tripled the cost of writing
# one part in its own transaction. So the triggers only queue the part's rowid (an upsert keeps it);
# the store indexes the queue in batches, and always before a search (``search.py``). Migration 7
# drops the insert and update triggers: the store queues what it writes. Titles change rarely: their
# triggers index at once.
_TITLE = "(CASE WHEN json_valid({r}.body) THEN json_extract({r}.body, '$.title') END)"
# The agent a user message prompted (an expression index below: queries must use it exactly).
USER_AGENT = "(CASE WHEN json_valid(body) THEN json_extract(body, '$.agent') END)"
# The columns of session_search, selected from a sessions row ``s``.
INDEX_TITLES = f"SELECT s.rowid, {_TITLE.format(r='s')}, s.id"
# The columns of part_search, selected from a parts row ``p``.
INDEX_PARTS = "SELECT p.rowid, json_extract(p.body, '$.text'), p.session_id, p.message_id, p.id"
_FTS_OPTIONS = "tokenize = 'unicode61 remove_diacritics 2'"
# Not INSERT OR IGNORE: inside a trigger the conflict policy of the statement that fired it wins.
_QUEUE = (
    "INSERT INTO search_queue (part_rowid) SELECT {r}.rowid "
    "WHERE NOT EXISTS (SELECT 1 FROM search_queue WHERE part_rowid = {r}.rowid);"
)

_SEARCH = Migration(
    6,
    "full-text search over session titles and finished text parts (FTS5), filled from existing data",
    (
        "CREATE VIRTUAL TABLE part_search USING fts5("
        f"text, session_id UNINDEXED, message_id UNINDEXED, part_id UNINDEXED, {_FTS_OPTIONS})",
        # FTS5 merges segments as it writes (default: four of a level make one of the next). Eight
        # halved the CPU cost of indexing a batch at 40,000 parts; searches stayed within a few ms.
        "INSERT INTO part_search (part_search, rank) VALUES ('automerge', 8)",
        f"CREATE VIRTUAL TABLE session_search USING fts5(title, session_id UNINDEXED, {_FTS_OPTIONS})",
        # The agent filter: which sessions had a prompt to an agent, without reading every message.
        f"CREATE INDEX messages_by_agent ON messages({USER_AGENT}, session_id) WHERE role = 'user'",
        "CREATE TABLE search_queue (part_rowid INTEGER PRIMARY KEY)",
        f"""CREATE TRIGGER parts_search_insert AFTER INSERT ON parts WHEN {SEARCHABLE_PART.format(r="new")}
        BEGIN {_QUEUE.format(r="new")} END""",
        # Tool parts are updated often (state, prune marks): the WHEN keeps them off the queue.
        # Nor do streaming flushes (a text part not finished yet, before and after).
        f"""CREATE TRIGGER parts_search_update AFTER UPDATE ON parts
        WHEN (old.type = 'text' OR new.type = 'text') AND old.body IS NOT new.body
            AND (({SEARCHABLE_PART.format(r="old")}) OR ({SEARCHABLE_PART.format(r="new")}))
        BEGIN """
        + _QUEUE.format(r="old")
        + " END",
        f"""CREATE TRIGGER parts_search_delete AFTER DELETE ON parts WHEN old.type = 'text'
        BEGIN {_QUEUE.format(r="old")} END""",
        f"""CREATE TRIGGER sessions_search_insert AFTER INSERT ON sessions
        BEGIN
            INSERT INTO session_search (rowid, title, session_id)
                VALUES (new.rowid, {_TITLE.format(r="new")}, new.id);
        END""",
        # Sessions are rewritten at every turn (time.updated); only a new title touches the index.
        f"""CREATE TRIGGER sessions_search_update AFTER UPDATE ON sessions
        WHEN {_TITLE.format(r="old")} IS NOT {_TITLE.format(r="new")}
        BEGIN
            DELETE FROM session_search WHERE rowid = old.rowid;
            INSERT INTO session_search (rowid, title, session_id)
                VALUES (new.rowid, {_TITLE.format(r="new")}, new.id);
        END""",
        """CREATE TRIGGER sessions_search_delete AFTER DELETE ON sessions
        BEGIN
            DELETE FROM session_search WHERE rowid = old.rowid;
        END""",
        # Existing data, in this one transaction (later writes go through the queue).
        f"INSERT INTO part_search (rowid, text, session_id, message_id, part_id) {INDEX_PARTS} "
        f"FROM parts p WHERE {SEARCHABLE_PART.format(r='p')}",
        f"INSERT INTO session_search (rowid, title, session_id) {INDEX_TITLES} FROM sessions s",
    ),
)

# The store queues the text parts it writes itself (``search.py``): it knows which part it wrote and
# whether the index takes it, so it keeps their ids in memory. The two triggers evaluated the JSON of
# every part written, and put an ended text part's row in ``search_queue`` within the part's own
# transaction: +7.5 to +22 % on writing it. What is queued already stays queued; deletes keep their
# trigger (a deleted message or session takes its parts along by cascade, which no code sees).
_SEARCH_QUEUED_BY_STORE = Migration(
    7,
    "the store queues written text parts for the search index (the insert and update triggers go)",
    ("DROP TRIGGER parts_search_insert", "DROP TRIGGER parts_search_update"),
)

_REVIEW_STEPS = Migration(
    8,
    "the steps review has examined, with hunks or without, so that none is examined twice",
    # A step that left no hunk (the user's own typing, an edit the user approved in its dialog) was
    # looked at again at the next step, when the agent's write log no longer knew it: then its whole
    # change became hunks. Steps recorded before this migration were examined when they ran.
    (
        """CREATE TABLE review_steps (
            step_id TEXT PRIMARY KEY,
            session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            message_id TEXT NOT NULL REFERENCES messages(id) ON DELETE CASCADE
        )""",
        "CREATE INDEX review_steps_by_session ON review_steps(session_id)",
        "INSERT INTO review_steps (step_id, session_id, message_id) "
        "SELECT id, session_id, message_id FROM parts WHERE type = 'patch'",
    ),
)

MIGRATIONS: tuple[Migration, ...] = (
    _INITIAL,
    _APPROVALS,
    _RECOVERY_INDEXES,
    _PART_TOKENS,
    _REVIEW_HUNKS,
    _SEARCH,
    _SEARCH_QUEUED_BY_STORE,
    _REVIEW_STEPS,
)
LATEST = MIGRATIONS[-1].version


async def schema_version(conn: aiosqlite.Connection) -> int:
    """The version recorded in the database (0 for a new file)."""
    async with conn.execute("PRAGMA user_version") as cursor:
        row = await cursor.fetchone()
    return int(row[0]) if row else 0


async def migrate(
    conn: aiosqlite.Connection,
    target: int | None = None,
    migrations: Sequence[Migration] = MIGRATIONS,
) -> int:
    """Apply every migration above the recorded version up to ``target`` (the last); returns the version.

    ``conn`` must be in autocommit mode (``isolation_level=None``): each migration opens its own
    transaction.
    """
    latest = migrations[-1].version
    target = latest if target is None else target
    current = await schema_version(conn)
    if current > latest:
        raise StorageError(
            f"the database is at schema version {current}, newer than this agentls knows ({latest}); "
            "upgrade agentls"
        )
    for migration in migrations:
        if migration.version <= current or migration.version > target:
            continue
        log.info("migrating the database to version %s: %s", migration.version, migration.description)
        try:
            await conn.execute("BEGIN IMMEDIATE")
            for statement in migration.statements:
                await conn.execute(statement)
            # PRAGMA takes no bound parameters; the version is our own integer.
            await conn.execute(f"PRAGMA user_version = {migration.version}")
            await conn.execute("COMMIT")
        except sqlite3.Error as exc:
            if conn.in_transaction:
                await conn.execute("ROLLBACK")
            raise StorageError(f"migration to schema version {migration.version} failed: {exc}") from exc
        current = migration.version
    return current
