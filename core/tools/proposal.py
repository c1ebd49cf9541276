"""A proposal the user edited before accepting it: what the edit and write tools tell the model."""

from __future__ import annotations

from core.prompts import load
from core.tools.diff import file_diff

_DIFF_LINES = 40  # the model gets the start of a longer diff; the file itself is the full answer


def edited_note(rel: str, proposed: str, final: str) -> str:
    """The tool result's note that the user accepted ``final`` instead of ``proposed`` ("" when the
    same), with a short unified diff from the proposal to the user's version."""
    if final == proposed:
        return ""
    lines = file_diff(rel, proposed, final).diff.splitlines()[2:]  # the ---/+++ header says nothing new
    if not lines:  # only line endings differ
        lines = ["(only line endings differ)"]
    if len(lines) > _DIFF_LINES:
        lines = [*lines[:_DIFF_LINES], f"… {len(lines) - _DIFF_LINES} more diff lines"]
    return "\n\n" + load("review/edited.md").replace("{file}", rel).replace("{diff}", "\n".join(lines))
