"""The database schema as a list of forward migrations, tracked in ``PRAGMA user_version``.

A migration is applied once, in its own transaction, together with the version bump, so a crash
mid-migration leaves the previous version intact. Never edit a released migration: append one.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

import aiosqlite

from core.errors import StorageError

log = logging.getLogger(__name__)


@dataclass(frozen=True)
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

MIGRATIONS: tuple[Migration, ...] = (
    _INITIAL,
    _APPROVALS,
    _RECOVERY_INDEXES,
    _PART_TOKENS,
    _REVIEW_HUNKS,
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
