"""``AgentApp.open``: git's worktree lookup runs while the store opens, and an open that fails on
either side leaves nothing running and nothing open."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.app import AgentApp
from core.config.loader import Layer
from core.errors import ConfigError, StorageError
from core.storage.store import Store

WAIT = 10.0  # seconds: only reached when the two do not overlap, and then the test fails


class SlowGit:
    """A git_top_level that answers only once ``release`` is set (from another thread)."""

    def __init__(self, top: Path | None) -> None:
        self.top = top
        self.started = threading.Event()
        self.release = threading.Event()
        self.timed_out = False

    def __call__(self, directory: Path) -> Path | None:
        self.started.set()
        self.timed_out = not self.release.wait(WAIT)
        return self.top


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name, value in {"AGENTLS_CONFIG_DIR": "config", "HOME": "home"}.items():
        monkeypatch.setenv(name, str(tmp_path / value))
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    return project


@pytest.fixture
def git(folder: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SlowGit]:
    slow = SlowGit(folder)
    monkeypatch.setattr("core.app.git_top_level", slow)
    yield slow
    slow.release.set()  # a test that failed early leaves no thread waiting


async def open_in(directory: Path, tmp_path: Path, **config: object) -> AgentApp:
    layer = Layer("test", {"model": "fake/m", "snapshot": False, **config}, None)
    return await AgentApp.open(directory, config_layers=[layer], data_dir=tmp_path / "data")


async def test_git_answers_while_the_store_opens(
    folder: Path, tmp_path: Path, git: SlowGit, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_open = Store.open

    async def open_store(path: Path) -> Store:
        git.release.set()  # git may answer once the store has started opening, not before
        return await real_open(path)

    monkeypatch.setattr(Store, "open", open_store)
    app = await open_in(folder / "src", tmp_path)
    try:
        assert not git.timed_out
        assert app.is_git and app.worktree == folder  # what git said, once the store was open
    finally:
        await app.close()


async def test_a_store_that_fails_to_open_leaves_no_git_task_behind(
    folder: Path, tmp_path: Path, git: SlowGit, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def broken(path: Path) -> Store:
        await asyncio.to_thread(git.started.wait, WAIT)  # git is under way, and will stay so
        raise StorageError(f"cannot open the database at {path}: disk I/O error")

    monkeypatch.setattr(Store, "open", broken)
    with pytest.raises(StorageError, match="disk I/O error"):
        await open_in(folder, tmp_path)
    assert asyncio.all_tasks() == {asyncio.current_task()}
    assert not git.release.is_set()  # it was given up, not waited for
    git.release.set()


async def test_a_config_error_closes_the_store_it_opened(
    folder: Path, tmp_path: Path, git: SlowGit, monkeypatch: pytest.MonkeyPatch
) -> None:
    git.release.set()
    opened: list[Store] = []
    real_open = Store.open

    async def open_store(path: Path) -> Store:
        opened.append(await real_open(path))
        return opened[-1]

    monkeypatch.setattr(Store, "open", open_store)
    with pytest.raises(ConfigError, match="snapshot: must be true, false or an object"):
        await open_in(folder, tmp_path, snapshot="maybe")
    assert [store.closed for store in opened] == [True]
    async with await real_open(tmp_path / "data" / "agentls.db") as again:  # and can be opened again
        assert not again.closed
