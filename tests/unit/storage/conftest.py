"""Fixtures: a real SQLite store in tmp_path and a project in it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from core.storage import Project, Store


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    opened = await Store.open(tmp_path / "data" / "agentls.db")
    try:
        yield opened
    finally:
        await opened.close()


@pytest.fixture
async def project(store: Store, tmp_path: Path) -> Project:
    worktree = tmp_path / "worktree"
    worktree.mkdir()
    return await store.ensure_project(worktree)
