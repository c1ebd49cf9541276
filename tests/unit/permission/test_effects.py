"""The table of what a command writes or runs through its options, row by row, and the read-only
list derived from it."""

from __future__ import annotations

import pytest

from core.permission.defaults import READ_ONLY_COMMANDS
from core.permission.effects import COMMANDS, Effects, Found, effects
from core.permission.shell import split_commands


def found(line: str) -> Found:
    (cmd,) = split_commands(line)
    return effects(cmd.words)


def spelled(name: str, row: Effects, option: str, value: str) -> list[str]:
    """The ways to give ``option`` its value: as the next word, and glued (``-oV``, ``--opt=V``)."""
    forms = [f"{name} {option} {value} in.txt"]
    if not row.single_dash:
        forms.append(
            f"{name} {option}{value} in.txt" if len(option) == 2 else f"{name} {option}={value} in.txt"
        )
    return forms


@pytest.mark.parametrize(("name", "row"), list(COMMANDS.items()), ids=list(COMMANDS))
def test_each_row(name: str, row: Effects) -> None:
    plain = found(f"{name} in.txt")
    assert (plain.writes, plain.runs, plain.scripts) == ([], [], [])
    assert plain.opaque == dict(row.opaque).get("*")
    for option in row.writes:
        for line in spelled(name, row, option, "out.txt"):
            assert [w.value for w in found(line).writes] == ["out.txt"], line
    for option in row.runs:
        for line in spelled(name, row, option, "prog"):
            assert [w.value for w in found(line).runs] == ["prog"], line
    for option in row.scripts:
        for line in spelled(name, row, option, "'rm x'"):
            assert [text for text, _ in found(line).scripts] == ["rm x"], line
    for option, reason in row.opaque:
        if option != "*":
            assert found(f"{name} {option} in.txt").opaque == reason
    for position in row.written:
        operands = [f"f{i}" for i in range(position + 1)]
        assert [w.value for w in found(f"{name} {' '.join(operands)}").writes] == [operands[position]]


def test_a_cluster_of_flags_ending_in_a_writing_option_writes() -> None:
    assert [w.value for w in found("sort -ruo out.txt in.txt").writes] == ["out.txt"]
    assert [w.value for w in found("sort -k 2 -uo out.txt in.txt").writes] == ["out.txt"]


def test_the_read_only_list_is_the_tables_read_only_rows() -> None:
    from_table = {f"{name} *" for name, row in COMMANDS.items() if row.read_only}
    assert from_table <= set(READ_ONLY_COMMANDS)
    extra = set(READ_ONLY_COMMANDS) - from_table
    assert extra == {"true"} | {p for p in READ_ONLY_COMMANDS if p.startswith("git branch")}


@pytest.mark.parametrize(
    ("line", "opaque"),
    [
        ("tar tf a.tar", None),
        ("tar -tvf a.tar", None),
        ("tar --list -f a.tar", None),
        ("tar xf a.tar", "tar may write"),
        ("tar -cf a.tar .", "tar may write"),
        ("tar --extract -f a.tar", "tar may write"),
        ("tar -tf a.tar --to-command=sh", "tar may write"),
        ("sed -n 5p f", None),
        ("sed 's/a/b/g' f", None),
        ("sed 's/a/b/w out' f", "the sed script writes"),
        ("sed -e '$e ls' f", "the sed script writes"),
        ("sed -f prog.sed f", "sed reads its script from a file"),
        ("awk '{print $1}' f", None),
        ("awk 'BEGIN { system(\"ls\") }'", "the awk program writes"),
        ("gawk '{ print > \"o\" }' f", "the gawk program writes"),
        ("awk '{ \"date\" | getline d }' f", "the awk program writes"),
        ("awk -f prog.awk f", "awk reads its program from a file"),
        ("git -c core.hooksPath=h commit", "core.hooksPath"),
        ("git --config-env=core.pager=P log", "--config-env"),
        ("git diff --ext-diff", "--ext-diff"),
        ("split -l 5 f", "split writes files"),
    ],
)
def test_what_the_checker_does_not_follow(line: str, opaque: str | None) -> None:
    reason = found(line).opaque
    assert (reason is None) if opaque is None else (reason is not None and opaque in reason), reason


@pytest.mark.parametrize(
    ("line", "scripts"),
    [
        ("git -c core.pager='less -R' log", ["less -R"]),
        ("git -c 'alias.x=!rm y' x", ["rm y"]),
        ("git -c alias.p=push p", ["git push"]),
        ("git -c color.ui=always -c user.name=me log", []),
        ("git -C sub log", []),
    ],
)
def test_git_configuration_that_may_run_a_command(line: str, scripts: list[str]) -> None:
    assert [text for text, _ in found(line).scripts] == scripts
