"""How many times opening the agent runs git: each call is a process start on the way to the
first prompt. A `git` on PATH that logs its arguments and runs the real one counts them."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.harness import Harness, open_test_agent


@pytest.fixture
def git_calls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    real = shutil.which("git")
    assert real is not None, "these tests need git"
    shim = tmp_path / "bin" / "git"
    shim.parent.mkdir()
    log = tmp_path / "git-calls.log"
    shim.write_text(f'#!/bin/sh\necho "$*" >> "{log}"\nexec "{real}" "$@"\n')
    shim.chmod(0o755)
    monkeypatch.setenv("PATH", f"{shim.parent}:{Path(real).parent}")
    for name, value in {"AGENTLS_DATA_DIR": "data", "AGENTLS_CONFIG_DIR": "config", "HOME": "home"}.items():
        monkeypatch.setenv(name, str(tmp_path / value))
    return log


async def open_in(folder: Path) -> Harness:
    return await open_test_agent(
        folder, config={"model": "fake/m", "snapshot": False, "provider": {"fake": {}}}
    )


def calls(log: Path) -> list[str]:
    return log.read_text().splitlines() if log.exists() else []


async def test_a_plain_folder_costs_one_git_call(tmp_path: Path, git_calls: Path) -> None:
    folder = tmp_path / "plain"
    folder.mkdir()
    app = await open_in(folder)
    try:
        assert not app.wiring.place.is_git and app.agent.worktree == folder.resolve()
        assert calls(git_calls) == ["rev-parse --show-toplevel"]
    finally:
        await app.close()


@pytest.fixture
def repo(tmp_path: Path, git_calls: Path) -> Path:
    """A repository with one commit, made before the counting starts."""
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    identity = ["-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(
        ["git", "-C", str(root), *identity, "commit", "-q", "--allow-empty", "-m", "root"], check=True
    )
    git_calls.unlink()
    return root.resolve()


async def test_a_repository_costs_two(repo: Path, git_calls: Path) -> None:
    app = await open_in(repo / "src")
    try:
        assert app.wiring.place.is_git and app.agent.worktree == repo
        assert app.project_id.startswith("prj_") and len(app.project_id) == 44  # prj_ + the root commit
        assert calls(git_calls) == ["rev-parse --show-toplevel", "rev-list --max-parents=0 HEAD"]
    finally:
        await app.close()
