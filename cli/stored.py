"""What the `agentls sessions …` commands share: the store and how they print a time."""

from __future__ import annotations

from datetime import datetime

from core.config.paths import data_dir
from core.storage import DB_NAME, Store


async def open_store() -> Store:
    """The store in agentls's data directory."""
    return await Store.open(data_dir() / DB_NAME)


def stamp(ms: int) -> str:
    """A time as the listings print it (local time)."""
    return datetime.fromtimestamp(ms / 1000).strftime("%Y-%m-%d %H:%M")
