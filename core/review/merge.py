"""Hunks of one file change, and the three-way undo of one hunk (pure functions on lines of bytes).

A hunk says: the agent turned lines ``before`` (at ``before_start`` of the step's before version)
into lines ``after`` (at ``after_start`` of the agent's version). Undoing it against the file as it
is now is a three-way merge: the changes from the agent's version to the file now are the user's;
the hunk's own lines are replaced by ``before`` unless the user touched them. Lines the user added
around the hunk stay where they are, lines added inside a hunk that only added lines stay too, and
anything that overlaps is a conflict that changes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from difflib import SequenceMatcher

from core.record import record

Lines = list[bytes]


@record
class LineHunk:
    """One change of a file between two versions, in 0-based line indexes."""

    before_start: int
    before: tuple[bytes, ...]
    after_start: int
    after: tuple[bytes, ...]


@record
class Conflict:
    """Why an undo cannot be merged: the agent's lines and what is in their place now."""

    reason: str
    agent: tuple[bytes, ...]
    current: tuple[bytes, ...]


def split_lines(data: bytes) -> Lines:
    """Lines with their ``\\n`` kept (``\\r\\n`` stays whole; the last line may have none)."""
    lines = data.split(b"\n")
    out = [line + b"\n" for line in lines[:-1]]
    if lines[-1]:
        out.append(lines[-1])
    return out


def hunks_between(before: Sequence[bytes], after: Sequence[bytes]) -> list[LineHunk]:
    """The hunks (no context lines) that turn ``before`` into ``after``."""
    return [
        LineHunk(i1, tuple(before[i1:i2]), j1, tuple(after[j1:j2]))
        for tag, i1, i2, j1, j2 in _opcodes(before, after)
        if tag != "equal"
    ]


def _opcodes(a: Sequence[bytes], b: Sequence[bytes]) -> list[tuple[str, int, int, int, int]]:
    """difflib's opcodes, with the common head and tail matched first (the usual case is a file
    that differs in a few places: a 5,000-line file then costs a pass, not a quadratic match)."""
    head = 0
    limit = min(len(a), len(b))
    while head < limit and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < limit - head and a[len(a) - 1 - tail] == b[len(b) - 1 - tail]:
        tail += 1
    ops: list[tuple[str, int, int, int, int]] = []
    if head:
        ops.append(("equal", 0, head, 0, head))
    middle = SequenceMatcher(None, a[head : len(a) - tail], b[head : len(b) - tail], autojunk=False)
    for tag, i1, i2, j1, j2 in middle.get_opcodes():
        ops.append((tag, i1 + head, i2 + head, j1 + head, j2 + head))
    if tail:
        ops.append(("equal", len(a) - tail, len(a), len(b) - tail, len(b)))
    return ops


def undo_hunk(now: Sequence[bytes], agent: Sequence[bytes], hunk: LineHunk) -> Lines | Conflict:
    """The file ``now`` with the hunk's lines (found through the agent's version) put back as they
    were before the step, or the Conflict when the user's edits since overlap them."""
    s, e = hunk.after_start, hunk.after_start + len(hunk.after)
    if tuple(agent[s:e]) != hunk.after:
        return Conflict("the agent's version does not hold this hunk", hunk.after, tuple(now))
    ops = _opcodes(agent, now)
    out: Lines = []
    restored = False
    for tag, i1, i2, j1, j2 in ops:
        if tag == "equal":
            for k in range(i2 - i1):
                index = i1 + k
                if index == s and not restored:
                    out.extend(hunk.before)
                    restored = True
                if not s <= index < e:
                    out.append(now[j1 + k])
        elif i1 == i2:  # the user inserted lines at agent index i1
            if s < i1 < e and hunk.before:
                return _conflict("you added lines inside lines the agent replaced", ops, now, hunk)
            if i1 == s == e:
                return _conflict("you added lines where the agent removed some", ops, now, hunk)
            out.extend(now[j1:j2])
        else:  # the user replaced or deleted agent lines i1..i2
            if i1 < e and i2 > s:
                return _conflict("you changed lines the agent wrote", ops, now, hunk)
            if i1 == s and not restored:
                out.extend(hunk.before)
                restored = True
            out.extend(now[j1:j2])
    if not restored:  # the hunk sits at the end of the agent's version
        out.extend(hunk.before)
    return out


def undo_in_place(now: Sequence[bytes], hunk: LineHunk) -> Lines | Conflict:
    """The file ``now`` with the hunk's lines put back as they were, for a hunk with no stored
    version of the file after it (an edit made in the editor, ``ReviewService.record_edit``): its
    lines are taken where it left them, or, when lines above were added or removed since, at the
    one place they occur; lines changed or occurring more than once are a Conflict."""
    s, n = hunk.after_start, len(hunk.after)
    if n == 0:
        return Conflict("lines the edit removed cannot be found again", hunk.after, ())
    if tuple(now[s : s + n]) == hunk.after:
        starts = [s]
    else:
        starts = [i for i in range(len(now) - n + 1) if tuple(now[i : i + n]) == hunk.after]
    if len(starts) != 1:
        reason = "the edited lines occur more than once" if starts else "you changed the edited lines"
        return Conflict(reason, hunk.after, tuple(now[s : s + n]))
    at = starts[0]
    return [*now[:at], *hunk.before, *now[at + n :]]


def _conflict(
    reason: str, ops: Sequence[tuple[str, int, int, int, int]], now: Sequence[bytes], hunk: LineHunk
) -> Conflict:
    """A Conflict carrying the user's lines that stand where the hunk's lines were."""
    s, e = hunk.after_start, hunk.after_start + len(hunk.after)
    current: Lines = []
    for tag, i1, i2, j1, j2 in ops:
        if i2 < s or i1 > e:
            continue
        if tag == "equal":
            lo, hi = max(i1, s), min(i2, e)
            current.extend(now[j1 + lo - i1 : j1 + hi - i1])
        else:
            current.extend(now[j1:j2])
    return Conflict(reason, hunk.after, tuple(current))


def undo_hunks(
    now: Sequence[bytes], agent: Sequence[bytes], hunks: Sequence[LineHunk]
) -> tuple[Lines, dict[int, Conflict]]:
    """Several hunks of one agent version undone in one pass (``undo_hunk`` applied to each in
    turn gives the same file): the file, and the conflicts by the hunk's index in ``hunks`` — a
    conflicting hunk stays as it is now, the others are undone. One comparison of the agent's
    version with the file serves every hunk, so undoing all 200 hunks of a file is one diff, not 200
    (each against a file that differs from the agent's version in more places)."""
    conflicts: dict[int, Conflict] = {}
    ops = _opcodes(agent, now)
    active: list[tuple[int, LineHunk]] = []
    for index, hunk in enumerate(hunks):
        s, e = hunk.after_start, hunk.after_start + len(hunk.after)
        if tuple(agent[s:e]) != hunk.after:
            conflicts[index] = Conflict("the agent's version does not hold this hunk", hunk.after, tuple(now))
            continue
        reason = _overlap(ops, hunk)
        if reason is not None:
            conflicts[index] = _conflict(reason, ops, now, hunk)
            continue
        active.append((index, hunk))
    starts: dict[int, list[LineHunk]] = {}
    inside: set[int] = set()  # agent line indexes whose lines the undo replaces
    for _, hunk in sorted(active, key=lambda item: item[1].after_start):
        starts.setdefault(hunk.after_start, []).append(hunk)
        inside.update(range(hunk.after_start, hunk.after_start + len(hunk.after)))

    out: Lines = []

    def restore(index: int) -> None:
        for hunk in starts.pop(index, ()):
            out.extend(hunk.before)

    for tag, i1, i2, j1, j2 in ops:
        if tag == "equal":
            for k in range(i2 - i1):
                restore(i1 + k)
                if i1 + k not in inside:
                    out.append(now[j1 + k])
        elif i1 == i2:  # the user inserted lines at agent index i1 (no active hunk conflicts with it)
            out.extend(now[j1:j2])
        else:  # the user replaced or deleted agent lines i1..i2, outside every active hunk
            restore(i1)
            out.extend(now[j1:j2])
    for index in sorted(starts):  # hunks at the end of the agent's version
        restore(index)
    return out, conflicts


def _overlap(ops: Sequence[tuple[str, int, int, int, int]], hunk: LineHunk) -> str | None:
    """Why the user's edits (``ops``: agent → now) keep ``hunk`` from being undone, or None."""
    s, e = hunk.after_start, hunk.after_start + len(hunk.after)
    for tag, i1, i2, _, _ in ops:
        if tag == "equal":
            continue
        if i1 == i2:
            if s < i1 < e and hunk.before:
                return "you added lines inside lines the agent replaced"
            if i1 == s == e:
                return "you added lines where the agent removed some"
        elif i1 < e and i2 > s:
            return "you changed lines the agent wrote"
    return None
