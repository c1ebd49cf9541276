"""The .gitignore parser and walker."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.tools.ignore import IgnoreFile, glob_matcher, parse_rule, walk

BASE = Path("/repo")


def ignored(text: str, rel: str, is_dir: bool = False) -> bool | None:
    return IgnoreFile.from_text(BASE, text).decide(f"/repo/{rel}", is_dir)


@pytest.mark.parametrize(
    ("rules", "rel", "is_dir", "expected"),
    [
        ("*.log", "a.log", False, True),
        ("*.log", "deep/er/a.log", False, True),
        ("*.log", "a.txt", False, None),
        ("# comment\n\n*.log", "x.log", False, True),
        ("*.log\n!keep.log", "keep.log", False, False),
        ("build/", "build", True, True),
        ("build/", "build", False, None),  # a file named build is not a directory
        ("/top.txt", "top.txt", False, True),
        ("/top.txt", "sub/top.txt", False, None),
        ("doc/*.md", "doc/a.md", False, True),
        ("doc/*.md", "doc/x/a.md", False, None),
        ("doc/**/*.md", "doc/x/y/a.md", False, True),
        ("doc/**/*.md", "doc/a.md", False, True),
        ("**/cache", "a/b/cache", True, True),
        ("logs/**", "logs/a/b.txt", False, True),
        ("file?.txt", "file1.txt", False, True),
        ("file?.txt", "file10.txt", False, None),
        ("[ab].txt", "a.txt", False, True),
        ("[!ab].txt", "a.txt", False, None),
        ("[!ab].txt", "c.txt", False, True),
        ("\\#hash", "#hash", False, True),
        ("\\!bang", "!bang", False, True),
        ("trailing   ", "trailing", False, True),
    ],
)
def test_rule_semantics(rules: str, rel: str, is_dir: bool, expected: bool | None) -> None:
    assert ignored(rules, rel, is_dir) is expected


def test_blank_and_comment_lines_are_not_rules() -> None:
    assert parse_rule("") is None and parse_rule("   ") is None and parse_rule("# x") is None


def test_paths_outside_the_files_folder_are_not_judged() -> None:
    assert IgnoreFile.from_text(BASE, "*").decide("/elsewhere/a", False) is None


def test_glob_matcher_braces_and_depth() -> None:
    m = glob_matcher("*.{ts,tsx}")
    assert m("a/b/c.tsx", "c.tsx") and not m("c.js", "c.js")
    m = glob_matcher("src/**/*.go")
    assert m("src/a/b.go", "b.go") and m("src/b.go", "b.go") and not m("lib/b.go", "b.go")


def test_walk_nested_gitignore_deeper_file_wins(tmp_path: Path) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / ".gitignore").write_text("*.gen\n")
    (tmp_path / "a" / ".gitignore").write_text("!keep.gen\n")
    for name in ("x.gen", "a/keep.gen", "a/drop.gen", "a/b/keep.gen", "a/b/ok.txt"):
        (tmp_path / name).write_text("")
    found = sorted(e.path.relative_to(tmp_path).as_posix() for e in walk(tmp_path) if not e.is_dir)
    assert found == ["a/b/keep.gen", "a/b/ok.txt", "a/keep.gen"]


def test_walk_applies_gitignores_above_the_start_folder(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / ".gitignore").write_text("secret*\n")
    (tmp_path / "sub" / "secret.txt").write_text("")
    (tmp_path / "sub" / "public.txt").write_text("")
    names = [e.path.name for e in walk(tmp_path / "sub", top=tmp_path)]
    assert names == ["public.txt"]
    assert sorted(e.path.name for e in walk(tmp_path / "sub")) == ["public.txt", "secret.txt"]


def test_walk_is_breadth_first_and_skips_hidden_unless_asked(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "inner.txt").write_text("")
    (tmp_path / "z.txt").write_text("")
    (tmp_path / ".hidden").write_text("")
    assert [e.path.name for e in walk(tmp_path)] == ["d", "z.txt", "inner.txt"]
    assert ".hidden" in [e.path.name for e in walk(tmp_path, hidden=True)]


def test_walk_does_not_follow_symlinked_folders(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "f.txt").write_text("")
    (tmp_path / "link").symlink_to(tmp_path / "real")
    paths = [e.path.relative_to(tmp_path).as_posix() for e in walk(tmp_path)]
    assert "link/f.txt" not in paths and "real/f.txt" in paths
