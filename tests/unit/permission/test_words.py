"""A shell word resolved to paths without running anything, or the reason it cannot be."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.permission.command import Word
from core.permission.shell import split_commands
from core.permission.words import ShellState, Unknown, resolve_word, set_on_line


def last_word(line: str) -> Word:
    return split_commands(line)[-1].words[-1]


@pytest.fixture
def state(tmp_path: Path) -> ShellState:
    (tmp_path / "a.py").write_text("")
    (tmp_path / "b.py").write_text("")
    return ShellState(cwd=tmp_path.resolve(), home="/home/me")


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("cat $OUT/f", "the variable $OUT"),
        ("cat ${OUT}/f", "the variable ${OUT}"),
        ("cat $1", "the variable $1"),
        ("cat $(echo /x)/f", "command substitution $(echo /x)"),
        ("cat `echo /x`/f", "command substitution `echo /x`"),
        ("cat $((1+1))", "arithmetic expansion"),
        ("cat $'\\x2e'env", "ANSI-C quoted"),
        ("cat {a,b}.py", "brace expansion"),
        ("cat x{1..3}", "brace expansion"),
        ("cat <(ls)", "process substitution"),
        ("cat .e*v", "may match a guarded file"),
        ("cat ~-/x", "~- names an unknown folder"),
        ("cat /proc/self/fd/3", "depends on the process"),
    ],
)
def test_unknown_words_say_why(state: ShellState, line: str, reason: str) -> None:
    result = resolve_word(last_word(line), state)
    assert isinstance(result, Unknown) and reason in result.reason


def test_static_words_resolve(state: ShellState) -> None:
    cwd = state.cwd
    assert cwd is not None
    assert resolve_word(last_word('cat "$PWD/a.py"'), state) == [cwd / "a.py"]
    assert resolve_word(last_word("cat ~/notes"), state) == [Path("/home/me/notes")]
    matches = resolve_word(last_word("cat *.py"), state)
    assert not isinstance(matches, Unknown) and sorted(matches) == [cwd / "a.py", cwd / "b.py"]
    assert resolve_word(last_word("cat '*.txt'"), state) == [cwd / "*.txt"]
    assert resolve_word(last_word("cat /proc/self/cwd/a.py"), state) == [cwd / "a.py"]


def test_a_relative_word_in_an_unknown_folder_is_unknown() -> None:
    result = resolve_word(last_word("cat notes.txt"), ShellState(cwd=None))
    assert isinstance(result, Unknown) and "not known" in result.reason


@pytest.mark.parametrize(
    ("line", "names"),
    [
        ("cat $PWD/x ${HOME}/y", set()),
        ("PWD=/x; cat $PWD", {"PWD"}),
        ("export HOME=/x", {"HOME"}),
        ("read OLDPWD", {"OLDPWD"}),
        ("echo ${PWD:=/x}", {"PWD"}),
        ("IFS=: read a b", {"IFS"}),
        ("unset HOME PWD", {"HOME", "PWD"}),
        ("echo $PWDX", set()),
    ],
)
def test_variables_the_line_sets(line: str, names: set[str]) -> None:
    assert set_on_line(line) == names
