"""An edit computed on a file's text, put on top of what the file holds when it is written.

The edit and write tools build their new text before they ask permission; while the dialog waits,
the user may type in the file. Writing the tool's text as it was built would throw their typing
away, so the change (old text → tool's text) is re-applied on top of the file as it is now, line by
line; when the user changed the same lines, nothing is written and the model is told to read again.
"""

from __future__ import annotations

from difflib import SequenceMatcher

Change = tuple[int, int, list[str]]  # lines [start, end) of the base replaced by these lines


def _changes(base: list[str], other: list[str]) -> list[Change]:
    matcher = SequenceMatcher(None, base, other, autojunk=False)
    return [(i1, i2, other[j1:j2]) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"]


def rebase(base: str, ours: str, theirs: str) -> str | None:
    """``theirs`` with the change ``base`` → ``ours`` applied, or None when the two changes touch the
    same or adjacent lines (no order of them is safe)."""
    if theirs == base:
        return ours
    if ours in (base, theirs):
        return theirs
    lines = base.splitlines(keepends=True)
    mine = _changes(lines, ours.splitlines(keepends=True))
    yours = _changes(lines, theirs.splitlines(keepends=True))
    for a1, a2, _ in mine:
        for u1, u2, _ in yours:
            if not (a2 < u1 or u2 < a1):
                return None
    if lines and not lines[-1].endswith("\n") and any(a2 == len(lines) for _, a2, _ in mine + yours):
        return None  # a change to a last line without a newline: splicing could glue two lines
    out = list(lines)
    for start, end, replacement in sorted(mine + yours, key=lambda c: c[0], reverse=True):
        out[start:end] = replacement
    return "".join(out)
