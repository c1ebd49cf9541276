"""Data and config folders follow AGENTLS_* overrides, then XDG, then the home defaults."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from core.config.paths import config_dir, data_dir, worktree_of


def test_overrides_win(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTLS_DATA_DIR", str(tmp_path / "d"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert data_dir() == tmp_path / "d"
    assert config_dir() == Path(str(tmp_path / "user-config"))


def test_xdg_then_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AGENTLS_CONFIG_DIR")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    assert data_dir() == tmp_path / "xdg-data" / "agentls"
    assert config_dir() == tmp_path / "xdg-config" / "agentls"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.delenv("XDG_CONFIG_HOME")
    assert data_dir() == tmp_path / "home" / ".local" / "share" / "agentls"
    assert config_dir() == tmp_path / "home" / ".config" / "agentls"


def test_folders_are_not_created(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTLS_DATA_DIR", str(tmp_path / "not-yet"))
    assert not data_dir().exists()


def test_worktree_is_git_top_level(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    inner = root / "a" / "b"
    inner.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    assert worktree_of(inner) == root.resolve()


def test_worktree_outside_git_is_the_directory(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    # tmp_path is outside any repository on these machines; guard so the test cannot pass vacuously.
    probe = subprocess.run(["git", "rev-parse"], cwd=plain, capture_output=True)
    assert probe.returncode != 0
    assert worktree_of(plain / ".." / "plain") == plain.resolve()


def test_worktree_of_missing_directory(tmp_path: Path) -> None:
    assert worktree_of(tmp_path / "gone") == (tmp_path / "gone").resolve()
