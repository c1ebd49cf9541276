"""Cut oversized tool outputs to what fits the context, keeping the full text in a file.

Each saved output gets a fresh id for a name: providers number tool calls per response
(``call_0``, ``toolu_01``…), so a call id alone would let a later output overwrite an earlier one
the model may still be told to read. Files older than ``KEEP_DAYS`` are removed as new ones come.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from pathlib import Path
from typing import Literal

from core import ids
from core.prompts import load
from core.record import record

log = logging.getLogger(__name__)

KEEP_DAYS = 7
SWEEP_EVERY_S = 3_600.0  # a folder is swept at most this often per process
_last_sweep: dict[Path, float] = {}


@record
class Truncation:
    """The text to hand to the model and, when it was cut, where the full output lives."""

    output: str
    truncated: bool
    output_path: Path | None = None


def needs_truncation(text: str, max_lines: int, max_bytes: int) -> bool:
    """Whether ``text`` is over the line or the byte limit."""
    return line_count(text) > max_lines or len(text.encode("utf-8")) > max_bytes


def line_count(text: str) -> int:
    """Lines as an editor counts them: a final newline ends the last line, it does not start one."""
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def _head(lines: list[str], max_lines: int, max_bytes: int) -> tuple[list[str], bool]:
    """The leading lines that fit; the flag says whether the byte limit (not the line limit) stopped it."""
    kept: list[str] = []
    size = 0
    for line in lines[:max_lines]:
        cost = len(line.encode("utf-8")) + (1 if kept else 0)
        if size + cost > max_bytes:
            if not kept:
                # A single line larger than the whole budget: keep a byte-exact prefix of it.
                kept.append(line.encode("utf-8")[:max_bytes].decode("utf-8", errors="ignore"))
            return kept, True
        kept.append(line)
        size += cost
    return kept, False


def cut(text: str, max_lines: int, max_bytes: int, direction: Literal["head", "tail"]) -> tuple[str, str]:
    """The preview that fits the limits and a phrase saying how much was removed."""
    ending = "\n" if text.endswith("\n") else ""
    lines = text.removesuffix("\n").split("\n")
    if direction == "head":
        kept, by_bytes = _head(lines, max_lines, max_bytes)
    else:
        reversed_kept, by_bytes = _head([ln[::-1] for ln in reversed(lines)], max_lines, max_bytes)
        kept = [ln[::-1] for ln in reversed(reversed_kept)]
    preview = "\n".join(kept)
    if direction == "tail" and not by_bytes:
        preview += ending
    if by_bytes:
        removed = len(text.encode("utf-8")) - len(preview.encode("utf-8"))
        return preview, f"{removed} bytes"
    return preview, f"{len(lines) - len(kept)} lines"


def hint(path: Path, *, can_delegate: bool = False) -> str:
    """What the model is told to do with a truncated output: delegate to the explore agent when it
    can (the task tool is there), else search or page through the file itself."""
    template = load("tools/truncated_task.md" if can_delegate else "tools/truncated.md")
    return template.replace("{path}", str(path))


def remove_old_outputs(folder: Path, keep_days: int = KEEP_DAYS) -> int:
    """Delete saved outputs older than ``keep_days``; the number removed."""
    cutoff = time.time() - keep_days * 86_400
    removed = 0
    try:
        entries = list(os.scandir(folder))
    except FileNotFoundError:
        return 0
    for entry in entries:
        try:
            if entry.is_file(follow_symlinks=False) and entry.stat().st_mtime < cutoff:
                os.unlink(entry.path)
                removed += 1
        except OSError as exc:  # another process swept it first, or it is not ours to delete
            log.debug("cannot remove old tool output %s: %s", entry.path, exc)
    return removed


async def truncate_output(
    text: str,
    *,
    max_lines: int,
    max_bytes: int,
    direction: Literal["head", "tail"],
    output_dir: Path,
    can_delegate: bool = False,
) -> Truncation:
    """Return ``text`` as is when it fits; else a preview plus a hint, the full text saved to a file."""
    if not needs_truncation(text, max_lines, max_bytes):
        return Truncation(output=text, truncated=False)
    path = output_dir / f"{ids.ascending('tool')}.txt"
    await asyncio.to_thread(_save, path, text)
    preview, removed = cut(text, max_lines, max_bytes, direction)
    note = hint(path, can_delegate=can_delegate)
    if direction == "head":
        message = f"{preview}\n\n[... {removed} truncated ...]\n\n{note}"
    else:
        message = f"[... {removed} truncated ...]\n\n{note}\n\n{preview}"
    return Truncation(output=message, truncated=True, output_path=path)


def _save(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    now = time.monotonic()
    if now - _last_sweep.get(path.parent, -SWEEP_EVERY_S) >= SWEEP_EVERY_S:
        _last_sweep[path.parent] = now
        remove_old_outputs(path.parent)
