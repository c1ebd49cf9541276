"""``open_app`` (through the test harness): git's worktree lookup runs while the store opens, and an
open that fails on either side leaves nothing running and nothing open."""

from __future__ import annotations

import asyncio
import ssl
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.api import Agent
from core.config.loader import Layer
from core.errors import ConfigError, StorageError
from core.llm import transport
from core.open import open_agent
from core.permission.service import Permissions
from core.storage.store import Store
from tests.harness import Harness, open_test_agent

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
    monkeypatch.setattr("core.project.git_top_level", slow)
    yield slow
    slow.release.set()  # a test that failed early leaves no thread waiting


async def open_in(directory: Path, tmp_path: Path, **config: object) -> Harness:
    settings = {"model": "fake/m", "snapshot": False, "provider": {"fake": {}}, **config}
    return await open_test_agent(directory, config=settings, data_dir=tmp_path / "data")


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
        assert (
            app.wiring.place.is_git and app.agent.worktree == folder
        )  # what git said, once the store was open
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


@pytest.fixture
def opened_stores(monkeypatch: pytest.MonkeyPatch) -> list[Store]:
    opened: list[Store] = []
    real_open = Store.open

    async def open_store(path: Path) -> Store:
        opened.append(await real_open(path))
        return opened[-1]

    monkeypatch.setattr(Store, "open", open_store)
    return opened


async def test_a_config_error_closes_the_store_it_opened(
    folder: Path, tmp_path: Path, git: SlowGit, opened_stores: list[Store]
) -> None:
    git.release.set()
    with pytest.raises(ConfigError, match="snapshot: must be true, false or an object"):
        await open_in(folder, tmp_path, snapshot="maybe")
    assert [store.closed for store in opened_stores] == [True]
    async with await Store.open(tmp_path / "data" / "agentls.db") as again:  # and can be opened again
        assert not again.closed


async def test_a_failure_after_the_app_is_made_closes_it(
    folder: Path, tmp_path: Path, git: SlowGit, monkeypatch: pytest.MonkeyPatch, opened_stores: list[Store]
) -> None:
    git.release.set()

    async def reload_breaks(self: Permissions) -> None:
        raise RuntimeError("the approvals could not be read")

    monkeypatch.setattr(Permissions, "reload", reload_breaks)  # the first step once the app is made
    with pytest.raises(RuntimeError, match="approvals could not be read"):
        await open_in(folder, tmp_path)
    assert [store.closed for store in opened_stores] == [True]


@pytest.fixture
def tls_made(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    made: list[str] = []
    real = transport._new_tls

    def new_tls() -> ssl.SSLContext:
        made.append("made")
        return real()

    transport._tls = None
    monkeypatch.setattr(transport, "_new_tls", new_tls)
    yield made
    transport._tls = None


async def warm_open(directory: Path, tmp_path: Path, api_base: str) -> Agent:
    provider = {"litellm_provider": "openai", "options": {"api_base": api_base}, "models": {"m": {}}}
    layer = Layer("test", {"model": "fake/m", "snapshot": False, "provider": {"fake": provider}}, None)
    return await open_agent(directory, layers=[layer], data_dir=tmp_path / "data", warm=True)


async def test_the_warm_up_loads_the_ca_bundle_for_an_https_model_only(
    folder: Path, tmp_path: Path, git: SlowGit, tls_made: list[str]
) -> None:
    git.release.set()
    app = await warm_open(folder, tmp_path, "http://127.0.0.1:9/v1")  # a local server: never TLS
    await app.close()
    assert tls_made == []
    app = await warm_open(folder, tmp_path, "HTTPS://models.example.invalid/v1")
    await app.close()
    assert tls_made == ["made"]


async def test_a_ca_bundle_that_cannot_load_does_not_stop_the_warm_open(
    folder: Path, tmp_path: Path, git: SlowGit, tls_made: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The prompt says so when it connects (tests/unit/llm/test_tls_context.py); the host still starts.
    git.release.set()
    monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "missing.pem"))
    app = await warm_open(folder, tmp_path, "https://models.example.invalid/v1")
    try:
        assert tls_made == ["made"] and transport._tls is None
    finally:
        await app.close()
