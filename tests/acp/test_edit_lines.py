"""The line an edit's tool call points at (table-driven, against the diff the edit tool stores)."""

from __future__ import annotations

import pytest

from acp_server.edit_lines import diff_line, first_changed_line
from core.tools.diff import file_diff

CASES = [
    # (before, after, 0-based line of the first change)
    ("a\nb\nc\n", "a\nB\nc\n", 1),
    ("a\nb\nc\n", "A\nb\nc\n", 0),
    ("a\nb\nc\n", "a\nb\nc\nd\n", 3),  # lines added at the end
    ("a\nb\nc\nd\n", "a\nb\n", 2),  # lines removed at the end
    ("a\nb\nc", "a\nb\ncc", 2),  # no newline at the end
    ("", "new file\n", 0),
    ("x\n" * 40 + "old\n" + "y\n" * 40, "x\n" * 40 + "new\n" + "y\n" * 40, 40),
    ("x\n" * 40 + "y\n", "x\n" * 40 + "inserted\ny\n", 40),
    ("a\r\nb\r\n", "a\r\nB\r\n", 1),
]


@pytest.mark.parametrize(("before", "after", "line"), CASES)
def test_first_changed_line(before: str, after: str, line: int) -> None:
    assert first_changed_line(before, after) == line
    assert first_changed_line(None, after) == 0


@pytest.mark.parametrize(("before", "after", "line"), CASES)
def test_the_stored_diff_gives_the_same_line(before: str, after: str, line: int) -> None:
    assert diff_line(file_diff("f.py", before, after).diff) == line


@pytest.mark.parametrize("diff", ["", "no hunk here\n", "--- a/f\n+++ b/f\n"])
def test_a_diff_without_a_hunk_has_no_line(diff: str) -> None:
    assert diff_line(diff) is None
