"""Applying an Update File's hunks to a file's text, or saying which hunk does not fit.

Each hunk's expected lines (context and removed) are looked for in order, after the previous hunk,
first exactly, then ignoring trailing whitespace, then ignoring whitespace at both ends: models
often get indentation of unchanged lines slightly wrong, never the words. The first place that
fits wins, as in the format's reference tools; an ``@@`` line narrows the search to after that line.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable

from core.tools.apply_patch_parse import Hunk, PatchError

_LOOSENESS: tuple[Callable[[str], str], ...] = (lambda s: s, str.rstrip, str.strip)
_SHOWN = 12  # lines of a failing hunk quoted back to the model


def apply_hunks(text: str, hunks: list[Hunk], label: str) -> str:
    """``text`` (LF line endings) with every hunk applied; a ``PatchError`` naming the hunk when one
    does not fit, in which case nothing of the file has changed."""
    lines = text.split("\n")
    trailing_newline = text.endswith("\n") or not text
    if text.endswith("\n"):
        lines.pop()
    elif not text:
        lines = []
    edits: list[tuple[int, int, list[str]]] = []
    cursor = 0
    for hunk in hunks:
        if hunk.header:
            found = _find_header(lines, hunk.header, cursor)
            if found is None:
                raise PatchError(
                    f"Hunk {hunk.number} of {label} does not apply: its line '@@ {hunk.header}' is not in "
                    f"{label} after the previous hunk. Read {label} again and copy that line exactly."
                )
            cursor = found + 1
        if not hunk.old:  # only added lines: after the @@ line, else at the end of the file
            at = cursor if hunk.header else len(lines)
            edits.append((at, 0, hunk.new))
            continue
        start, old = _find_block(lines, hunk.old, cursor, hunk.end_of_file)
        if start is None:
            raise PatchError(_mismatch(hunk, label))
        new = hunk.new
        if len(old) < len(hunk.old) and new and new[-1] == "":
            new = new[:-1]  # the blank context line the file did not have
        edits.append((start, len(old), _keeping_context(old, new, lines[start : start + len(old)])))
        cursor = start + len(old)
    for start, length, new in reversed(edits):
        lines[start : start + length] = new
    if not lines:
        return ""
    return "\n".join(lines) + ("\n" if trailing_newline else "")


def _keeping_context(old: list[str], new: list[str], found: list[str]) -> list[str]:
    """``new`` with its unchanged context lines as the file has them (a loose match must not
    re-indent the lines around a change)."""
    out: list[str] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        out.extend(found[i1:i2] if tag == "equal" else new[j1:j2])
    return out


def _find_block(lines: list[str], old: list[str], cursor: int, at_end: bool) -> tuple[int | None, list[str]]:
    """Where ``old`` starts at or after ``cursor`` (at the end of the file first when ``at_end``), and
    the lines matched. A trailing blank context line the file lacks (the end of a file) is dropped."""
    candidates = [old]
    if len(old) > 1 and old[-1] == "":
        candidates.append(old[:-1])
    for block in candidates:
        for loose in _LOOSENESS:
            wanted = [loose(x) for x in block]
            starts = range(cursor, len(lines) - len(block) + 1)
            if at_end:
                starts = range(len(lines) - len(block), len(lines) - len(block) + 1)
            for start in starts:
                if start >= cursor and [loose(x) for x in lines[start : start + len(block)]] == wanted:
                    return start, block
    return None, old


def _find_header(lines: list[str], header: str, cursor: int) -> int | None:
    """The first line at or after ``cursor`` that is ``header`` (ignoring surrounding whitespace),
    else the first that starts with it (``@@ def run`` for ``def run(self):``)."""
    wanted = header.strip()
    for whole in (True, False):
        for n in range(cursor, len(lines)):
            line = lines[n].strip()
            if line == wanted if whole else line.startswith(wanted):
                return n
    return None


def _mismatch(hunk: Hunk, label: str) -> str:
    shown = hunk.old[:_SHOWN]
    more = f"\n  … {len(hunk.old) - _SHOWN} more lines" if len(hunk.old) > _SHOWN else ""
    where = " at the end of the file" if hunk.end_of_file else ""
    header = f" (@@ {hunk.header})" if hunk.header else ""
    quoted = "\n".join(f"  {line}" for line in shown)
    return (
        f"Hunk {hunk.number}{header} of {label} does not apply: these context and removed lines are not "
        f"in {label}{where} after the previous hunk:\n{quoted}{more}\n"
        f"Nothing was changed. Read {label} again and write the hunk from its current text."
    )
