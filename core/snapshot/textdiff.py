"""Turning a file's two versions into a ``FileDiff`` (unified diff text and line counts)."""

from __future__ import annotations

import difflib

from core.events import FileDiff

# git's own heuristic: a NUL byte in the first 8000 bytes makes a file binary.
_SNIFF = 8000


def is_binary(data: bytes) -> bool:
    """Whether content looks binary (a NUL byte near the start)."""
    return b"\0" in data[:_SNIFF]


def _text(data: bytes | None) -> str | None:
    if data is None:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def file_diff(path: str, before: bytes | None, after: bytes | None) -> FileDiff:
    """The diff of one file; binary or non-UTF-8 content gets a one-line note instead of hunks."""
    if (before is not None and is_binary(before)) or (after is not None and is_binary(after)):
        return FileDiff(file=path, patch=f"Binary files a/{path} and b/{path} differ\n")
    old, new = _text(before), _text(after)
    if (before is not None and old is None) or (after is not None and new is None):
        return FileDiff(file=path, patch=f"Files a/{path} and b/{path} differ (not UTF-8)\n")
    old_lines = (old or "").splitlines(keepends=True)
    new_lines = (new or "").splitlines(keepends=True)
    fromfile = f"a/{path}" if before is not None else "/dev/null"
    tofile = f"b/{path}" if after is not None else "/dev/null"
    additions = deletions = 0
    out: list[str] = []
    lines = list(difflib.unified_diff(old_lines, new_lines, fromfile, tofile))
    for index, line in enumerate(lines):
        # The first two lines are the ---/+++ headers; a removed "-- x" line also starts with "---".
        if index >= 2 and line.startswith("+"):
            additions += 1
        elif index >= 2 and line.startswith("-"):
            deletions += 1
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return FileDiff(
        file=path,
        before=old,
        after=new,
        additions=additions,
        deletions=deletions,
        patch="".join(out),
    )
