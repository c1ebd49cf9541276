"""What an editor-computed edit did to the problems the editor shows: new errors and warnings, fixed ones.

Before the edit the changed files' diagnostics are read; after it the tool waits (bounded) for the
editor to re-check them — first the client's fresh report after the write, then until two readings
in a row agree — and compares. Problems are matched by file, severity, message and source, not by
line (an edit moves lines), so a problem that only moved is neither new nor fixed. New ones are
named at their line now, fixed ones at the line they had.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from core.editor import EditorDiagnostic, EditorIntelligence
from core.errors import ToolError
from core.record import record
from core.tools import paths
from core.tools.context import ToolContext

SETTLE_SECONDS = 5.0  # the longest the tool waits for the editor's checkers after an edit
POLL_SECONDS = 0.25  # between two readings of the diagnostics while they settle
QUIET_SECONDS = 1.0  # unchanged this long: settled
MAX_SHOWN = 20
MAX_WATCHED = 30  # files whose diagnostics are compared: each reading asks the editor once per file
COUNTED = ("error", "warning")

Readings = dict[Path, list[EditorDiagnostic]]


@record
class Delta:
    """New and fixed problems, or why there is no comparison."""

    new: tuple[EditorDiagnostic, ...] = ()
    fixed: tuple[EditorDiagnostic, ...] = ()
    unavailable: str = ""  # non-empty: the editor could not say, and why
    settled: bool = True
    skipped: int = 0  # changed files beyond MAX_WATCHED, not compared


def _key(d: EditorDiagnostic) -> tuple[str, str, str, str]:
    return (str(d.location.path), d.severity, d.message, d.source)


async def read(editor: EditorIntelligence | None, files: Sequence[Path]) -> Readings | None:
    """The errors and warnings the editor shows for (the first ``MAX_WATCHED`` of) ``files`` now;
    None when it cannot say."""
    if editor is None or "diagnostics" not in editor.supported():
        return None
    out: Readings = {}
    try:
        for path in files[:MAX_WATCHED]:
            out[path] = [d for d in await editor.diagnostics(path) if d.severity in COUNTED]
    except ToolError:
        return None
    return out


async def after_edit(ctx: ToolContext, files: Sequence[Path], before: Readings | None) -> Delta:
    """The delta once the editor has re-checked ``files`` (at most ``SETTLE_SECONDS``)."""
    if before is None:
        return Delta(unavailable="the editor does not report diagnostics for these files")
    skipped = max(len(files) - MAX_WATCHED, 0)
    files = files[:MAX_WATCHED]
    deadline = time.monotonic() + SETTLE_SECONDS
    # The client's own report after the write (when it sends them) marks the first re-check; a file
    # no buffer shows is written on disk only, and no editor reports on it.
    shown = [p for p in files if ctx.workspace.is_open(p)]
    await asyncio.gather(*(ctx.workspace.wait_diagnostics(p, SETTLE_SECONDS / 2) for p in shown))
    previous = await read(ctx.editor, files)
    settled = False
    since = time.monotonic()
    while previous is not None and time.monotonic() < deadline:
        await asyncio.sleep(POLL_SECONDS)
        now = await read(ctx.editor, files)
        if now != previous:
            previous, since = now, time.monotonic()
        elif time.monotonic() - since >= QUIET_SECONDS:
            settled = True
            break
    if previous is None:
        return Delta(unavailable="the editor stopped answering diagnostics after the edit")
    return compare(before, previous, settled, skipped)


def compare(before: Readings, after: Readings, settled: bool = True, skipped: int = 0) -> Delta:
    """Problems in ``after`` beyond those in ``before`` (new), and the other way round (fixed)."""
    old = [d for items in before.values() for d in items]
    now = [d for items in after.values() for d in items]
    return Delta(new=_beyond(now, old), fixed=_beyond(old, now), settled=settled, skipped=skipped)


def _beyond(these: list[EditorDiagnostic], those: list[EditorDiagnostic]) -> tuple[EditorDiagnostic, ...]:
    budget = Counter(_key(d) for d in those)
    out = []
    for d in sorted(these, key=lambda d: (str(d.location.path), d.location.line)):
        if budget[_key(d)] > 0:
            budget[_key(d)] -= 1
        else:
            out.append(d)
    return tuple(out)


def render(ctx: ToolContext, delta: Delta) -> str:
    """The delta as the tool result's closing paragraph."""
    if delta.unavailable:
        return f"\n\nNo diagnostics check: {delta.unavailable}."
    late = "" if delta.settled else f" (still changing after {SETTLE_SECONDS:g} s: read them again soon)"
    if delta.skipped:
        late += f" (of the first {MAX_WATCHED} changed files; {delta.skipped} more not compared)"
    if not delta.new and not delta.fixed:
        return f"\n\nDiagnostics after the edit{late}: nothing new in the changed files, nothing fixed."
    lines = [f"\n\nDiagnostics after the edit{late}:"]
    for label, items in (("new", delta.new), ("fixed", delta.fixed)):
        for d in items[:MAX_SHOWN]:
            where = f"{paths.display(ctx, d.location.path)}:{d.location.line + 1}"
            source = f" [{d.source}]" if d.source else ""
            lines.append(f"{label}: {where}: {d.severity}: {d.message}{source}")
        if len(items) > MAX_SHOWN:
            lines.append(f"… and {len(items) - MAX_SHOWN} more {label}")
    if delta.new:
        lines.append("Fix the new problems if this edit caused them.")
    return "\n".join(lines)


def as_metadata(ctx: ToolContext, delta: Delta) -> dict[str, object]:
    """The delta for the tool part's metadata (clients may show it)."""

    def rows(items: tuple[EditorDiagnostic, ...]) -> list[str]:
        return [f"{paths.display(ctx, d.location.path)}:{d.location.line + 1}: {d.message}" for d in items]

    return {"new": rows(delta.new), "fixed": rows(delta.fixed), "settled": delta.settled}
