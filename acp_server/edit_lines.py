"""The line an edit lands on, for a tool call's ``locations`` (a client follows the agent there).

ACP lines are 0-based (``ToolCallLocation.line`` is ``>= 0``; Zed scrolls to that row). The line is
the first one the change touches: from the file's text before and after when this front end has
both (a permission dialog, a write it made), else from the unified diff the edit tool stored.
"""

from __future__ import annotations

import re

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@")


def first_changed_line(before: str | None, after: str) -> int:
    """The 0-based line of ``after`` where it first differs from ``before`` (0 for a new file)."""
    if not before:
        return 0
    old = before.replace("\r\n", "\n").split("\n")
    new = after.replace("\r\n", "\n").split("\n")
    for index, (a, b) in enumerate(zip(old, new, strict=False)):
        if a != b:
            return index
    # One is the other plus lines at the end: the change starts where the shorter one stops,
    # on its last line when that line lost or gained only its end.
    return max(min(len(old), len(new)) - 1, 0)


def diff_line(diff: str) -> int | None:
    """The 0-based new-file line of the first changed line of a unified diff (None: no hunk)."""
    lines = iter(diff.splitlines())
    for line in lines:
        hunk = _HUNK.match(line)
        if hunk is None:
            continue
        row = max(int(hunk[1]) - 1, 0)  # an empty new side says 0; its first line is 0 all the same
        for body in lines:
            if not body.startswith(" "):
                return row
            row += 1
        return row
    return None
