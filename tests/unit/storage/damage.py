"""A store with some rows, and damage done to its file behind agentls' back (integrity tests)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import aiosqlite

from core.storage import Store
from tests.ticks import past_mtime
from tests.unit.storage import factories as f


async def store_with_parts(db: Path, tree: Path) -> tuple[str, str]:
    """A session whose user message has 400 text parts, closed cleanly; (session, message) ids."""
    await asyncio.to_thread(tree.mkdir, exist_ok=True)
    async with await Store.open(db) as store:
        project = await store.ensure_project(tree)
        s = f.session(project.id)
        await store.insert_session(s)
        u = f.user(s.id)
        await store.upsert_message(u)
        await store.upsert_parts([f.text(s.id, u.id, "x" * 50) for _ in range(400)])
    # What follows changes the file after agentls closed it: it must carry a later time than the
    # close left, which the next open compares.
    await past_mtime(db)
    return s.id, u.id


async def wreck_root_page(db: Path, name: str) -> None:
    """Overwrite the cells of the root page of table or index ``name``, keeping the page header."""
    async with aiosqlite.connect(db) as conn:
        async with conn.execute("PRAGMA page_size") as cursor:
            page_size = (await cursor.fetchone())[0]  # type: ignore[index]
        async with conn.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (name,)) as cursor:
            root = (await cursor.fetchone())[0]  # type: ignore[index]
    await asyncio.to_thread(_overwrite, db, (root - 1) * page_size + 8, page_size - 8)


def _overwrite(path: Path, offset: int, size: int) -> None:
    data = bytearray(path.read_bytes())
    data[offset : offset + size] = b"\xa5" * size
    path.write_bytes(bytes(data))
