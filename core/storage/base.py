"""The one connection every table module shares, and its transaction discipline.

aiosqlite runs one connection on one thread, so statements never run in parallel; but several
asyncio tasks can interleave *between* statements. One asyncio lock therefore guards each
transaction (and each multi-query read), so no task sees or joins another task's half-done write.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from typing import Any

import aiosqlite

from core.errors import StorageError

Params = Sequence[Any]


class StoreBase:
    """Connection, lock and counters shared by the table mixins of ``Store``."""

    def __init__(self, conn: aiosqlite.Connection, path: str) -> None:
        self._conn = conn
        self._lock = asyncio.Lock()
        self.path = path
        self.closed = False  # set by Store.close: later calls fail with a StorageError saying so
        # Write transactions committed; tests use it to prove that deltas are batched.
        self.write_transactions = 0

    @asynccontextmanager
    async def _tx(self) -> AsyncIterator[aiosqlite.Connection]:
        """A write transaction: committed on success, rolled back on any error."""
        async with self._lock:
            self._check_open()
            try:
                await self._conn.execute("BEGIN IMMEDIATE")
                yield self._conn
                await self._conn.execute("COMMIT")
            except BaseException as exc:
                if self._conn.in_transaction:
                    await self._conn.execute("ROLLBACK")
                if isinstance(exc, sqlite3.Error):
                    raise StorageError(f"database write failed: {exc}") from exc
                raise
            self.write_transactions += 1

    @asynccontextmanager
    async def _reading(self) -> AsyncIterator[aiosqlite.Connection]:
        """Exclusive use of the connection for reads that must see one consistent state."""
        async with self._lock:
            self._check_open()
            try:
                yield self._conn
            except sqlite3.Error as exc:
                raise StorageError(f"database read failed: {exc}") from exc

    def _check_open(self) -> None:
        # A request still in flight while the host shuts down would otherwise meet aiosqlite's bare
        # "ValueError: Connection closed".
        if self.closed:
            raise StorageError("the session store is closed: agentls is shutting down")

    async def _fetchall(self, sql: str, params: Params = ()) -> list[sqlite3.Row]:
        async with self._reading() as conn, conn.execute(sql, params) as cursor:
            return list(await cursor.fetchall())

    async def _fetchone(self, sql: str, params: Params = ()) -> sqlite3.Row | None:
        async with self._reading() as conn, conn.execute(sql, params) as cursor:
            row: sqlite3.Row | None = await cursor.fetchone()
            return row

    async def _write(self, sql: str, params: Params = ()) -> int:
        """One statement in its own transaction; returns the number of rows it changed."""
        async with self._tx() as conn:
            cursor = await conn.execute(sql, params)
            return int(cursor.rowcount)

    async def _write_many(self, sql: str, rows: Iterable[Params]) -> None:
        async with self._tx() as conn:
            await conn.executemany(sql, rows)
