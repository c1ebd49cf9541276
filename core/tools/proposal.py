"""After the permission dialog: the user may have edited the proposal, or typed in the file meanwhile."""

from __future__ import annotations

from pathlib import Path

from core.errors import ToolError
from core.prompts import load
from core.tools.context import ToolContext
from core.tools.diff import file_diff
from core.tools.rebase import rebase

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


async def settle(ctx: ToolContext, path: Path, rel: str, before: str, final: str) -> tuple[str, str]:
    """(the file's text now, the text to write): ``final`` — built on ``before`` — re-applied over
    what the user typed in the file while the permission dialog waited (``core.tools.rebase``).
    A ToolError, with nothing written, when the user changed the same lines."""
    st = await ctx.workspace.stat(path)
    now = (await ctx.workspace.read_bytes(path)).decode("utf-8", errors="replace") if st.exists else ""
    if now == before:
        return now, final
    merged = rebase(before, final, now)
    if merged is None:
        raise ToolError(
            f"The user changed {rel} while this edit waited for permission, in or next to the lines it "
            f"changes, so nothing was written. Read {rel} again and make the edit on its current text."
        )
    return now, merged
