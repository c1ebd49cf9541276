"""Which folders a command searches file by file, and which secrets it reads there."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.permission.searches import Search, searches
from core.permission.shell import split_commands


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    for name in (".env", "a/prod.env", "a/b/.env.local", ".hidden/x.env", "node/dep.env", "a/code.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x")
    return tmp_path


def found(line: str, tree: Path) -> list[str]:
    (cmd,) = split_commands(line)
    out: list[str] = []
    for search in searches(cmd):
        secrets = search.secrets(tree / search.folder.value)
        assert secrets is not None
        out.extend(p.relative_to(tree).as_posix() for p in secrets)
    return sorted(out)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("grep -r T .", [".env", ".hidden/x.env", "a/b/.env.local", "a/prod.env", "node/dep.env"]),
        ("grep -r T a", ["a/b/.env.local", "a/prod.env"]),
        ("grep -r --exclude-dir=node --exclude-dir=.hidden T .", [".env", "a/b/.env.local", "a/prod.env"]),
        ("grep -r --include=prod.env T .", ["a/prod.env"]),
        ("grep -r --exclude='*.env' T a", ["a/b/.env.local"]),
        ("rg T", ["a/prod.env", "node/dep.env"]),  # hidden files and folders skipped
        ("rg -u T", ["a/prod.env", "node/dep.env"]),  # -u: ignore files, not hidden ones
        ("rg -uu T", [".env", ".hidden/x.env", "a/b/.env.local", "a/prod.env", "node/dep.env"]),
        ("rg --hidden -g '!node' T a", ["a/b/.env.local", "a/prod.env"]),
        ("rg -g '*.py' T", []),
        ("ag -u T a", ["a/b/.env.local", "a/prod.env"]),
        ("diff -r a node", ["a/b/.env.local", "a/prod.env", "node/dep.env"]),
        ("find a -name prod.env -exec cat {} +", ["a/prod.env"]),
        ("find a -exec cat {} +", ["a/b/.env.local", "a/prod.env"]),
    ],
)
def test_secrets_a_search_reads(tree: Path, line: str, expected: list[str]) -> None:
    assert found(line, tree) == expected


@pytest.mark.parametrize(
    "line",
    [
        "grep T .env",
        "grep -l T a/prod.env",
        "rg --files",
        "git grep T",
        "diff a b",
        "find . -name x",
        "cat a",
    ],
)
def test_commands_that_search_no_folder(line: str) -> None:
    (cmd,) = split_commands(line)
    assert searches(cmd) == []


def test_a_folder_that_cannot_be_read_holds_no_secret_it_could_show(tmp_path: Path) -> None:
    assert Search(split_commands("x .")[0].words[1]).secrets(tmp_path / "missing") == []
