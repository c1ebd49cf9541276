"""Hunks of one step's change to one file, as review rows (pure: contents in, hunks out)."""

from __future__ import annotations

from core import ids
from core.message.models import now_ms
from core.message.review import Hunk
from core.review.merge import hunks_between, split_lines
from core.snapshot.textdiff import is_binary


def as_text(data: bytes) -> str | None:
    """The content as text when it is UTF-8 without NUL bytes, else None (reviewed whole)."""
    if is_binary(data):
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def step_hunks(
    *,
    session_id: str,
    message_id: str,
    step_id: str,
    path: str,
    before_snapshot: str,
    after_snapshot: str,
    before: bytes | None,
    after: bytes | None,
) -> list[Hunk]:
    """The hunks that turned ``before`` into ``after`` (None: the file was absent)."""
    base = {
        "sessionID": session_id,
        "messageID": message_id,
        "stepID": step_id,
        "file": path,
        "beforeSnapshot": before_snapshot,
        "afterSnapshot": after_snapshot,
        "time": now_ms(),
    }
    if before == after:
        return []
    if before is None:
        return [Hunk(id=ids.ascending("hnk"), kind="created", **base)]
    if after is None:
        return [Hunk(id=ids.ascending("hnk"), kind="deleted", **base)]
    old, new = as_text(before), as_text(after)
    if old is None or new is None:
        return [Hunk(id=ids.ascending("hnk"), kind="binary", **base)]
    return [
        Hunk(
            id=ids.ascending("hnk"),
            kind="text",
            beforeStart=h.before_start,
            before=[line.decode("utf-8") for line in h.before],
            afterStart=h.after_start,
            after=[line.decode("utf-8") for line in h.after],
            **base,
        )
        for h in hunks_between(split_lines(before), split_lines(after))
    ]
