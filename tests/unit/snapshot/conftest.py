"""Real git projects in tmp_path for the snapshot tests."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from core.snapshot.store import SnapshotStore


def git(cwd: Path, *args: str) -> str:
    """Run git in the project itself (as the user would) and return stdout."""
    cmd = ["git", "-c", "user.email=t@example.com", "-c", "user.name=t", *args]
    return subprocess.run(cmd, cwd=cwd, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A committed git project with text, CRLF and binary files and a .gitignore."""
    root = tmp_path / "project"
    root.mkdir()
    (root / "src").mkdir()
    (root / "src" / "main.py").write_text("print('hello')\n")
    (root / "crlf.txt").write_bytes(b"line one\r\nline two\r\n")
    (root / "image.bin").write_bytes(bytes(range(256)) * 4)
    (root / "old_name.txt").write_text("to be renamed\n")
    (root / ".gitignore").write_text("build/\n*.log\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "initial")
    return root


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    path = tmp_path / "data"
    path.mkdir()
    return path


@pytest.fixture
def store(data_dir: Path, project: Path) -> SnapshotStore:
    s = SnapshotStore(data_dir, "prj_test", project)
    assert s.enabled, s.disabled_reason
    return s
