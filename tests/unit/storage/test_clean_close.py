"""The integrity check runs when the database was not closed cleanly by agentls, not at every open.

The kill -9 case is in test_recovery.py (a real writer process, killed).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from core.errors import StorageError
from core.storage import Store
from core.storage.store import _file_stamp, _OpenersLock
from tests.ticks import past_mtime
from tests.unit.storage.damage import store_with_parts, wreck_root_page


def _lock_text(db: Path) -> str:
    return db.with_name(db.name + ".lock").read_text()


async def _reopened(db: Path) -> bool:
    """Open and close the store; whether that open ran the integrity check."""
    async with await Store.open(db) as store:
        return store.checked


async def test_a_cleanly_closed_database_is_not_checked_again(tmp_path: Path) -> None:
    db = tmp_path / "agentls.db"
    assert await _reopened(db)  # a new file: nothing vouches for it (and the check is instant)
    assert _lock_text(db).startswith("agentls-clean-close ")
    assert not await _reopened(db)
    assert not await _reopened(db)


async def test_a_file_changed_after_the_close_is_checked(tmp_path: Path) -> None:
    db = tmp_path / "agentls.db"
    await _reopened(db)
    await past_mtime(db)  # the change must carry a later file time than the close left
    with sqlite3.connect(db) as other:  # another program writes to it, then closes it
        other.execute("INSERT INTO projects VALUES ('prj_other', '/elsewhere', NULL, 0)")
    other.close()
    assert await _reopened(db)
    assert not await _reopened(db)


async def test_a_log_holding_another_programs_writes_is_checked(tmp_path: Path) -> None:
    db = tmp_path / "agentls.db"
    await _reopened(db)
    other = sqlite3.connect(db)  # still open: its commit sits in the write-ahead log
    try:
        other.execute("INSERT INTO projects VALUES ('prj_other', '/elsewhere', NULL, 0)")
        other.commit()
        assert db.with_name(db.name + "-wal").stat().st_size > 0
        assert await _reopened(db)
    finally:
        other.close()


async def test_garbage_in_the_lock_file_means_a_check(tmp_path: Path) -> None:
    db = tmp_path / "agentls.db"
    await _reopened(db)
    db.with_name(db.name + ".lock").write_text("agentls-clean-close 1 not a stamp")
    assert await _reopened(db)


async def test_only_the_last_of_two_openers_leaves_the_stamp(tmp_path: Path) -> None:
    db = tmp_path / "agentls.db"
    await _reopened(db)
    first = await Store.open(db)
    assert _lock_text(db) == ""  # cleared by the first opener: a crash from here on means a check
    second = await Store.open(db)
    assert not second.checked  # the first one had the database: its open decided
    await first.close()
    assert _lock_text(db) == ""  # the second still has it open, and may yet die
    await second.close()
    assert _lock_text(db).startswith("agentls-clean-close ")
    assert not await _reopened(db)


async def test_a_stamp_that_cannot_be_written_costs_only_a_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "agentls.db"
    await _reopened(db)

    def full_disk(self: _OpenersLock, stamp: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(_OpenersLock, "write_stamp", full_disk)
    store = await Store.open(db)  # cannot clear the stamp either: opens all the same
    await store.close()  # cannot leave one: closes all the same
    monkeypatch.undo()
    assert not await _reopened(db)  # the old stamp still matches: nothing was written
    async with await Store.open(db) as store:
        await store.ensure_project(tmp_path)
        monkeypatch.setattr(_OpenersLock, "write_stamp", full_disk)
    monkeypatch.undo()
    assert await _reopened(db)  # written to, and no new stamp: checked


async def test_damage_the_stamp_cannot_see_fails_the_read_that_meets_it(tmp_path: Path) -> None:
    db = tmp_path / "agentls.db"
    session_id, message_id = await store_with_parts(db, tmp_path / "tree")
    await wreck_root_page(db, "parts")
    stamp = _file_stamp(db)
    assert stamp is not None
    db.with_name(db.name + ".lock").write_text(stamp)  # as if the disk had changed under the file
    async with await Store.open(db) as store:
        assert not store.checked
        with pytest.raises(StorageError, match=r"database read failed: .*malformed"):
            await store.get_message(session_id, message_id)
