"""Command templates: arguments, ``@file`` references and ``!`shell` `` output, without an agent."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.commands.template import expand, file_references, fill_arguments, run_shells
from core.errors import PermissionRejectedError


@pytest.mark.parametrize(
    ("template", "arguments", "expected"),
    [
        ("Review $ARGUMENTS now", "src/a.py  carefully", "Review src/a.py  carefully now"),
        ("from $1 to $2", "a b", "from a to b"),
        ("first $1, rest: $2", "a b c d", "first a, rest: b c d"),  # the highest $N takes the rest
        ('say "$1" to $2', '"hello world" Bob', 'say "hello world" to Bob'),  # quotes group words
        ("$1 and $2", "only", "only and "),  # a missing argument is empty
        ("$2 before $1", "x y z", "y z before x"),
        ("Fix the bug", "in parser.py", "Fix the bug\n\nin parser.py"),  # no placeholder: appended
        ("Fix the bug", "", "Fix the bug"),
        ("costs $0 and $ARGUMENTS", "", "costs $0 and "),  # $0 is no argument
        ("$2: $1", "it's fine", "fine: it's"),  # an unbalanced quote: plain words
        ("$ARGUMENTS / $1", "p q", "p q / p q"),
    ],
)
def test_arguments_fill_the_template(template: str, arguments: str, expected: str) -> None:
    assert fill_arguments(template, arguments) == expected


def test_file_references_name_existing_files_only(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("x = 1\n")
    (tmp_path / "notes.md").write_text("n\n")
    absolute = tmp_path / "abs.txt"
    absolute.write_text("abs\n")
    text = f"Look at @src/a.py, then @notes.md. Mail me@example.com or @missing.py; also @{absolute} and @src"
    assert file_references(text, tmp_path) == [tmp_path / "src" / "a.py", tmp_path / "notes.md", absolute]


async def test_shell_commands_run_in_order_and_their_output_replaces_them() -> None:
    ran: list[str] = []

    async def run(command: str) -> str:
        ran.append(command)
        return f"<{command}>"

    text = await run_shells("status: !`git status` diff: !` git diff `!", run)
    assert text == "status: <git status> diff: <git diff>!"
    assert ran == ["git status", "git diff"]


async def test_expand_fills_arguments_before_running_shell_and_ignores_files_inside_shell(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.py").write_text("x\n")
    ran: list[str] = []

    async def run(command: str) -> str:
        ran.append(command)
        return "@a.py printed by the command"

    checked: list[Path] = []

    async def check(path: Path) -> None:
        assert ran == [], "files are asked for before any shell command runs"
        checked.append(path)

    expanded = await expand("Log of $1: !`git log $1` (see @a.py)", "main", tmp_path, run, check)
    assert ran == ["git log main"]
    assert expanded.text == "Log of main: @a.py printed by the command (see @a.py)"
    assert expanded.files == checked == [(tmp_path / "a.py").resolve()]


async def test_a_refused_file_runs_no_shell_command(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x\n")
    ran: list[str] = []

    async def run(command: str) -> str:
        ran.append(command)
        return ""

    async def refuse(path: Path) -> None:
        raise PermissionRejectedError(f"no {path.name}")

    with pytest.raises(PermissionRejectedError, match=r"no a\.py"):
        await expand("!`date` @a.py", "", tmp_path, run, refuse)
    assert ran == []


def test_file_references_resolve_dot_dot_and_symlinks(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (tmp_path / "outside.txt").write_text("secret\n")
    (project / "link.txt").symlink_to(tmp_path / "outside.txt")
    found = file_references("see @../outside.txt and @link.txt", project)
    assert found == [(tmp_path / "outside.txt").resolve()]  # one file, named twice
