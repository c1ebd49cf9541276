"""What a wrapper runs, from its table row; an option the row does not know hides the command."""

from __future__ import annotations

import pytest

from core.permission.command import Word
from core.permission.shell import split_commands
from core.permission.wrappers import WRAPPERS, Hidden, Wrapped, unwrap


def run(line: str) -> Wrapped | Hidden | None:
    (cmd,) = split_commands(line)
    return unwrap(cmd.words[0].value, cmd.words[1:])


def words(result: Wrapped | Hidden | None) -> list[str]:
    assert isinstance(result, Wrapped), result
    return [w.value for w in result.words]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("env -i A=1 B=2 rm x", ["A=1", "B=2", "rm", "x"]),  # set for it: checked with it
        ("env - rm x", ["rm", "x"]),
        ("env -u HOME rm x", ["rm", "x"]),
        ("nice -n 5 rm x", ["rm", "x"]),
        ("nice -19 rm x", ["rm", "x"]),
        ("timeout -k 1 5s rm x", ["rm", "x"]),
        ("chrt -f 10 rm x", ["rm", "x"]),
        ("taskset -c 0-3 rm x", ["rm", "x"]),
        ("flock -w 3 lockfile rm x", ["rm", "x"]),
        ("sudo -u bob -g staff -- rm x", ["rm", "x"]),
        ("stdbuf -oL -e0 rm x", ["rm", "x"]),
        ("busybox rm x", ["rm", "x"]),
        ("exec -a name rm x", ["rm", "x"]),
    ],
)
def test_the_wrapped_command(line: str, expected: list[str]) -> None:
    assert words(run(line)) == expected


@pytest.mark.parametrize(
    ("line", "script"),
    [
        ("env -S 'rm -f x' y", "rm -f x y"),
        ("flock lockfile -c 'rm x'", "rm x"),
        ("flock -c 'rm x' lockfile", "rm x lockfile"),
        ("watch -n 1 rm x", "rm x"),
    ],
)
def test_a_script_the_wrapper_hands_to_a_shell(line: str, script: str) -> None:
    result = run(line)
    assert isinstance(result, Wrapped) and result.script == script


@pytest.mark.parametrize(
    "line", ["command -v rm", "sudo -l", "ionice -p 42", "chrt -p 42", "exec", "flock 9"]
)
def test_forms_that_run_nothing(line: str) -> None:
    assert words(run(line)) == []


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("nice --frobnicate rm x", "nice is given --frobnicate, an option the checker does not know"),
        ("sudo -Z rm x", "sudo is given -Z"),
        ("env -C /tmp rm x", "runs the command in another folder"),
        ("sudo -e x", "sudo -e edits files"),
        ("sudo -s", "starts a shell that reads its commands from standard input"),
        ("doas -s", "starts a shell that reads its commands from standard input"),
    ],
)
def test_a_wrapper_whose_command_cannot_be_told_says_why(line: str, reason: str) -> None:
    result = run(line)
    assert isinstance(result, Hidden) and reason in result.reason


def test_a_program_that_is_no_wrapper() -> None:
    assert run("rm x") is None
    assert unwrap("ls", [Word("x", "x")]) is None


def test_every_wrapper_row_names_its_options_as_options() -> None:
    for name, row in WRAPPERS.items():
        for option in row.valued | row.flags | row.quiet | row.scripts:
            assert option.startswith("-"), (name, option)
        assert row.scripts <= row.valued, name  # a script is an option's value
