"""Cut oversized tool outputs to what fits the context, keeping the full text in a file."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Literal


@dataclass(frozen=True)
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


def hint(path: Path) -> str:
    """What the model is told to do with a truncated output."""
    return (
        f"The output was too long and has been cut. The full output is saved in {path}. "
        "Do not read it whole: search it with the grep tool, or read the parts you need with the "
        "read tool's offset and limit parameters."
    )


async def truncate_output(
    text: str,
    *,
    max_lines: int,
    max_bytes: int,
    direction: Literal["head", "tail"],
    output_dir: Path,
    name: str,
) -> Truncation:
    """Return ``text`` as is when it fits; else a preview plus a hint, the full text saved to a file."""
    if not needs_truncation(text, max_lines, max_bytes):
        return Truncation(output=text, truncated=False)
    path = output_dir / f"{name}.txt"
    await asyncio.to_thread(_save, path, text)
    preview, removed = cut(text, max_lines, max_bytes, direction)
    if direction == "head":
        message = f"{preview}\n\n[... {removed} truncated ...]\n\n{hint(path)}"
    else:
        message = f"[... {removed} truncated ...]\n\n{hint(path)}\n\n{preview}"
    return Truncation(output=message, truncated=True, output_path=path)


def _save(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
