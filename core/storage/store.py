"""``Store``: the SQLite database of projects, sessions, messages, parts, todos and approvals.

One aiosqlite connection in WAL mode (readers in other processes, such as ``agentls sessions``,
never block the writer), foreign keys on, and a busy timeout for the rare cross-process write.

Crash recovery must only touch what a *dead* process left behind: a live agentls in another
process may be running a tool right now. Every open store therefore holds a shared advisory lock
on ``<db>.lock``; recovery runs only when the lock can be taken exclusively, i.e. no other
agentls process has the database open. The kernel drops the lock when a process dies, even on
SIGKILL.

``PRAGMA integrity_check`` reads the whole file: 0.3 s warm and over 2 s from a cold disk cache
for a 200 MB history, at every start. So it runs only when the database may have come to harm: the
last agentls process to close it (after SQLite's final checkpoint) writes the file's identity
(inode, size, modification and change times) into the lock file, and the first to open it next
compares that *clean-close stamp* with the file as it finds it, then clears it. A process that
died with the database open, a write-ahead log with frames in it, or a file changed since (a copy,
another program, a restore) all mean a mismatch, and the check. Damage that changes nothing the
stamp sees (a failing disk) is not caught at open; SQLite reports it when it reads the page, as a
``StorageError`` from that read or write.
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
from core.storage.review import ReviewTable
from core.storage.schema import migrate
from core.storage.search import queue_unindexed
from core.storage.sessions import SessionTable

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no advisory locks, recovery always runs
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger(__name__)

BUSY_TIMEOUT_MS = 5000
DB_NAME = "agentls.db"


class _OpenersLock:
    """Shared while a store is open; exclusive for crash recovery and the last close (see module
    doc). The file's text is the clean-close stamp."""

    def __init__(self, path: Path) -> None:
        self._fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)

    def read_stamp(self) -> str:
        return os.pread(self._fd, 512, 0).decode("utf-8", "replace")

    def write_stamp(self, stamp: str) -> None:
        os.ftruncate(self._fd, 0)
        if stamp:
            os.pwrite(self._fd, stamp.encode(), 0)

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


class Store(ProjectTable, SessionTable, MessageTable, ForkOps, ApprovalTable, ReviewTable):
    """Async persistence for everything agentls keeps. Pure storage: it publishes no events."""

    recovery: RecoveryReport | None = None
    # Whether this open ran ``PRAGMA integrity_check`` (the database was not closed cleanly).
    checked = False
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
        found = _file_stamp(db_path)  # before this process's own connection touches the files
        try:
            conn = await aiosqlite.connect(db_path, isolation_level=None)
        except sqlite3.Error as exc:
            lock.close()
            raise StorageError(f"cannot open the database at {db_path}: {exc}") from exc
        try:
            await _configure(conn)
            await migrate(conn)
            report = None
            check = False  # another agentls process has it open: it has done both when due
            if lock.try_exclusive():
                report = await recover(conn)
                check = found is None or lock.read_stamp() != found
                try:
                    lock.write_stamp("")  # until a clean last close says otherwise
                except OSError as exc:  # the old stamp stays: the file will not match it once written
                    log.debug("cannot clear the clean-close stamp of %s: %s", db_path, exc)
            else:
                log.info("another agentls process has %s open; crash recovery left to it", db_path)
            await lock.share()
            if check:
                log.info("%s was not closed cleanly by agentls: checking its integrity", db_path)
                await check_integrity(conn)
                # A process that died took the ids of the parts it had not indexed yet along.
                await conn.execute("BEGIN IMMEDIATE")
                queued = await queue_unindexed(conn)
                await conn.execute("COMMIT")
                if queued:
                    log.info("%s parts written before the unclean stop wait to be indexed for search", queued)
        except BaseException as exc:
            await conn.close()
            lock.close()
            if isinstance(exc, sqlite3.Error):
                raise StorageError(f"cannot open the database at {db_path}: {exc}") from exc
            raise
        store = cls(conn, str(db_path))
        store._openers = lock
        store.recovery = report
        store.checked = check
        return store

    async def close(self) -> None:
        """Close the connection (checkpointing the WAL) and release the openers lock, leaving the
        clean-close stamp when no other agentls process has the database open."""
        if not self.closed:
            try:
                await self.index_pending()  # the queue would wait for the next search otherwise
            except StorageError as exc:
                log.warning("could not index the parts queued for search (the next open will): %s", exc)
        async with self._lock:  # a transaction under way finishes first
            self.closed = True
        closed = False
        try:
            await self._conn.close()
            closed = True
        finally:
            openers, self._openers = self._openers, None
            if openers is not None:
                try:
                    # Not when parts wait to be indexed (the next open must catch them up).
                    if closed and not self.unindexed and openers.try_exclusive():  # the last one
                        openers.write_stamp(_file_stamp(Path(self.path)) or "")
                except OSError as exc:  # no stamp: the next open checks, nothing worse
                    log.debug("cannot write the clean-close stamp of %s: %s", self.path, exc)
                openers.close()

    async def __aenter__(self) -> Store:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


def _file_stamp(db_path: Path) -> str | None:
    """The database file's identity, or None when it is missing or its write-ahead log holds
    frames (left by a process that died, or by another program still using the file)."""
    wal = db_path.with_name(db_path.name + "-wal")  # SQLite removes it at the last clean close
    try:
        st = os.stat(db_path)
        if wal.exists() and os.stat(wal).st_size:
            return None
    except OSError:
        return None
    return f"agentls-clean-close 1 {st.st_dev} {st.st_ino} {st.st_size} {st.st_mtime_ns} {st.st_ctime_ns}"


async def _configure(conn: aiosqlite.Connection) -> None:
    async with conn.execute("PRAGMA journal_mode = WAL") as cursor:
        row = await cursor.fetchone()
    if row is None or str(row[0]).lower() != "wal":
        raise StorageError(f"the database cannot use WAL mode (journal_mode is {row[0] if row else None})")
    await conn.execute("PRAGMA foreign_keys = ON")
    await conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    # WAL + NORMAL: a crash of agentls loses nothing committed; only a power loss may lose the last commits.
    await conn.execute("PRAGMA synchronous = NORMAL")
