"""Whole-file diffs of a stored session's edits, for ``session/load`` to replay as they were shown live.

Live, an edit's ``diff`` carries the whole file before and after (``workspace.Written``); a stored
tool part keeps only its input (old/new fragments, or a write's new text) and the unified diff of
the change. The text before a step is in that step's start snapshot, so each edit and write is
rebuilt from it: the first call on a file in a step starts from the snapshot, each next one from
the text the previous call left, and an edit's unified diff is applied to it. Where that is not
possible (snapshots off, a snapshot collected, a diff that does not apply) the call keeps the
fragments, as before.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp_server.workspace import Written
from core.errors import AgentError
from core.message.models import MessageWithParts, StepStartPart, ToolPart

if TYPE_CHECKING:
    from core.api import Agent

log = logging.getLogger(__name__)

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@")


async def whole_file_writes(app: Agent, messages: list[MessageWithParts]) -> dict[str, list[Written]]:
    """Call id → the whole-file change each completed edit or write made."""
    found: dict[str, list[Written]] = {}
    for message in messages:
        snapshot: str | None = None
        texts: dict[str, str | None] = {}  # path → its text after the latest call of this step
        for part in message.parts:
            if isinstance(part, StepStartPart):
                snapshot, texts = part.snapshot, {}
            elif (
                isinstance(part, ToolPart)
                and part.tool in ("edit", "write")
                and part.state.status == "completed"
            ):
                written = await _rebuild(app, part, snapshot, texts)
                if written is not None:
                    found[part.callID] = [written]
    return found


async def _rebuild(
    app: Agent, part: ToolPart, snapshot: str | None, texts: dict[str, str | None]
) -> Written | None:
    state: Any = part.state
    path = state.metadata.get("filepath") if isinstance(state.metadata, dict) else None
    if not isinstance(path, str) or snapshot is None:
        return None
    if path not in texts:
        known, text = await _text_at(app, snapshot, Path(path))
        if not known:
            return None
        texts[path] = text
    before = texts[path]
    if part.tool == "write":
        after = state.input.get("content")
    else:
        diff = state.metadata.get("diff")
        after = apply_unified(before or "", diff) if isinstance(diff, str) else None
    if not isinstance(after, str):
        log.info("replay: the diff of call %s could not be rebuilt; showing its fragments", part.callID)
        return None
    texts[path] = after
    return Written(Path(path), before, after)


async def _text_at(app: Agent, snapshot: str, path: Path) -> tuple[bool, str | None]:
    """Whether the snapshot tells, and the file's text in it (None: the file did not exist)."""
    try:
        rel = path.relative_to(app.worktree)
    except ValueError:
        return False, None  # outside the project: not in the snapshots
    try:
        data = await app.file_at_snapshot(snapshot, rel.as_posix())
    except (AgentError, OSError) as exc:
        log.info("replay: %s is not readable in snapshot %s: %s", rel, snapshot, exc)
        return False, None
    return True, None if data is None else data.decode("utf-8", errors="replace")


def apply_unified(before: str, diff: str) -> str | None:
    """``before`` changed by a unified diff as ``core.tools.diff.file_diff`` writes it; None when
    the diff does not fit the text."""
    old = before.replace("\r\n", "\n").splitlines(keepends=True)
    lines = diff.splitlines(keepends=True)
    out: list[str] = []
    pos = 0
    i = next((n for n, line in enumerate(lines) if line.startswith("@@")), len(lines))
    while i < len(lines):
        match = _HUNK.match(lines[i])
        if match is None:
            return None
        start, count = int(match.group(1)), int(match.group(2) or 1)
        begin = start - 1 if count else start  # an empty range names the line before it
        if begin < pos or begin > len(old):
            return None
        out.extend(old[pos:begin])
        pos = begin
        i += 1
        body: list[str] = []
        while i < len(lines) and not lines[i].startswith("@@"):
            if lines[i].startswith("\\"):  # "\ No newline at end of file": the line before has none
                if body:
                    body[-1] = body[-1].removesuffix("\n")
            else:
                body.append(lines[i])
            i += 1
        for line in body:
            tag, text = line[:1], line[1:]
            if tag in (" ", "-"):
                if pos >= len(old) or old[pos] != text:
                    return None
                pos += 1
            if tag in (" ", "+"):
                out.append(text)
    out.extend(old[pos:])
    return "".join(out)
