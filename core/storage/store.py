"""``Store``: the SQLite database of projects, sessions, messages, parts, todos and approvals.

One aiosqlite connection in WAL mode (readers in other processes, such as ``agentls sessions``,
never block the writer), foreign keys on, and a busy timeout for the rare cross-process write.

Crash recovery must only touch what a *dead* process left behind: a live agentls in another
process may be running a tool right now. Every open store therefore holds a shared advisory lock
on ``<db>.lock``; recovery runs only when the lock can be taken exclusively, i.e. no other
agentls process has the database open. The kernel drops the lock when a process dies, even on
SIGKILL.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sqlite3
from pathlib import Path

import aiosqlite

from core.errors import StorageError
from core.storage.approvals import ApprovalTable
from core.storage.fork import ForkOps
from core.storage.messages import MessageTable
from core.storage.project import ProjectTable
from core.storage.recovery import RecoveryReport, check_integrity, recover
from core.storage.schema import migrate
from core.storage.sessions import SessionTable

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no advisory locks, recovery always runs
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger(__name__)

BUSY_TIMEOUT_MS = 5000
DB_NAME = "agentls.db"


class _OpenersLock:
    """Shared while a store is open; exclusive only for crash recovery (see module doc)."""

    def __init__(self, path: Path) -> None:
        self._fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)

    def try_exclusive(self) -> bool:
        if fcntl is None:
            return True
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    async def share(self) -> None:
        # Blocks only while another process is recovering (it holds the lock exclusively).
        if fcntl is not None:
            await asyncio.to_thread(fcntl.flock, self._fd, fcntl.LOCK_SH)

    def close(self) -> None:
        os.close(self._fd)


class Store(ProjectTable, SessionTable, MessageTable, ForkOps, ApprovalTable):
    """Async persistence for everything agentls keeps. Pure storage: it publishes no events."""

    recovery: RecoveryReport | None = None
    _openers: _OpenersLock | None = None

    @classmethod
    async def open(cls, path: Path | str) -> Store:
        """Open (creating and migrating as needed) the database at ``path``; recovers after a crash."""
        db_path = Path(path)
        try:
            db_path.parent.mkdir(parents=True, exist_ok=True)
            lock = _OpenersLock(db_path.with_name(db_path.name + ".lock"))
        except OSError as exc:
            raise StorageError(f"cannot open the database at {db_path}: {exc}") from exc
        try:
            conn = await aiosqlite.connect(db_path, isolation_level=None)
        except sqlite3.Error as exc:
            lock.close()
            raise StorageError(f"cannot open the database at {db_path}: {exc}") from exc
        try:
            await _configure(conn)
            await migrate(conn)
            report = None
            if lock.try_exclusive():
                report = await recover(conn)
            else:
                log.info("another agentls process has %s open; crash recovery left to it", db_path)
            await lock.share()
            await check_integrity(conn)
        except BaseException as exc:
            await conn.close()
            lock.close()
            if isinstance(exc, sqlite3.Error):
                raise StorageError(f"cannot open the database at {db_path}: {exc}") from exc
            raise
        store = cls(conn, str(db_path))
        store._openers = lock
        store.recovery = report
        return store

    async def close(self) -> None:
        """Close the connection (checkpointing the WAL) and release the openers lock."""
        async with self._lock:  # a transaction under way finishes first
            self.closed = True
        try:
            await self._conn.close()
        finally:
            if self._openers is not None:
                self._openers.close()
                self._openers = None

    async def __aenter__(self) -> Store:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


async def _configure(conn: aiosqlite.Connection) -> None:
    async with conn.execute("PRAGMA journal_mode = WAL") as cursor:
        row = await cursor.fetchone()
    if row is None or str(row[0]).lower() != "wal":
        raise StorageError(f"the database cannot use WAL mode (journal_mode is {row[0] if row else None})")
    await conn.execute("PRAGMA foreign_keys = ON")
    await conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    # WAL + NORMAL: a crash of agentls loses nothing committed; only a power loss may lose the last commits.
    await conn.execute("PRAGMA synchronous = NORMAL")
