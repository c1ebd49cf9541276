"""What the model sees of the items the editor gathers, and of the git changes before a first commit:
bounded, named relative to the project, never the whole of a long terminal or selection."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from core.attach import editor, project
from core.errors import InvalidInputError
from core.message.context_items import EditorItem, Problem, ProblemsItem, Selection, TerminalItem


def test_a_long_terminal_keeps_its_last_lines_and_says_how_many_were_left_out() -> None:
    text = "\n".join(f"line {n}" for n in range(1000))
    shown = editor.terminal_text(TerminalItem(kind="terminal", name='my "sh"', text=text))
    assert shown.startswith("<terminal name=\"my 'sh'\">\n… (600 earlier lines left out)\nline 600\n")
    assert shown.endswith("line 999\n</terminal>")


def test_the_editor_note_is_short_even_for_a_long_selection(tmp_path: Path) -> None:
    selected = "\n".join(f"x = {n}" for n in range(100))
    item = EditorItem(
        kind="editor",
        path=str(tmp_path / "src" / "a.py"),
        line=9,
        selection=Selection(startLine=9, endLine=108, text=selected),
    )
    note = editor.editor_text(item, tmp_path)
    assert "src/a.py" in note and "line 10" in note and str(tmp_path) not in note
    assert '<editor-selection lines="10-109">' in note and "x = 39\n… (60 more selected lines)" in note
    assert "x = 40" not in note


def test_problems_come_errors_first_one_line_each(tmp_path: Path) -> None:
    problems = [
        Problem(
            path=str(tmp_path / "b.py"), line=4, severity="warning", message="unused\nname", source="lint"
        ),
        Problem(path=str(tmp_path / "a.py"), line=0, column=3, severity="error", message="boom"),
    ]
    text = editor.problems_text(ProblemsItem(kind="problems", problems=problems), tmp_path)
    assert text.splitlines() == [
        '<problems scope="workspace">',
        "a.py:1:4: error: boom",
        "b.py:5:1: warning: unused name [lint]",
        "</problems>",
    ]


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


async def test_changes_before_the_first_commit_are_the_staged_then_the_unstaged(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    (tmp_path / "a.txt").write_text("one\n")
    git(tmp_path, "add", "a.txt")
    (tmp_path / "a.txt").write_text("one\ntwo\n")
    (tmp_path / "new.txt").write_text("new\n")
    text = await project.working_tree_changes(tmp_path)
    assert "+one" in text and "+two" in text, text
    assert "Untracked files (not shown in the diff):\nnew.txt" in text


async def test_changes_outside_a_repository_say_so(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match="is not a git repository"):
        await project.working_tree_changes(tmp_path)
