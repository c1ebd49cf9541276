"""Unified diffs of a file's text before and after a tool changed it."""

from __future__ import annotations

import difflib

from core.record import record


@record
class FileDiff:
    """A unified diff and its line counts."""

    diff: str
    additions: int
    deletions: int


def file_diff(label: str, before: str, after: str) -> FileDiff:
    """The unified diff from ``before`` to ``after`` (line endings normalised so CRLF is no noise)."""
    old = before.replace("\r\n", "\n").splitlines(keepends=True)
    new = after.replace("\r\n", "\n").splitlines(keepends=True)
    name = label.lstrip("/")  # files outside the project are labelled by their absolute path
    lines = list(difflib.unified_diff(old, new, fromfile=f"a/{name}", tofile=f"b/{name}"))
    # A last line without a newline would glue onto the next diff line; mark it like git does.
    text = "".join(ln if ln.endswith("\n") else ln + "\n\\ No newline at end of file\n" for ln in lines)
    additions = sum(1 for ln in lines if ln.startswith("+") and not ln.startswith("+++"))
    deletions = sum(1 for ln in lines if ln.startswith("-") and not ln.startswith("---"))
    return FileDiff(text, additions, deletions)
