"""Content search for the grep tool: ripgrep when installed, else a Python search that behaves alike.

Both backends search regular expressions line by line, skip hidden, ``.git``, binary and
``.gitignore``d files, and honour an ``include`` glob the way ripgrep's ``--glob`` does.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import shutil
from collections.abc import Callable
from dataclasses import field
from pathlib import Path

from core.errors import ToolError
from core.record import struct
from core.tools.filetypes import SNIFF_BYTES
from core.tools.ignore import glob_matcher, walk

log = logging.getLogger(__name__)

PER_FILE_CAP = 100  # no answer shows more than 100 matches, so one file never needs more
TOTAL_CAP = 5000  # enough to rank files by age without buffering a whole repository's matches


@struct
class FileHits:
    """The matching lines of one file, with its modification time for ranking."""

    path: Path
    lines: list[tuple[int, str]] = field(default_factory=list)
    mtime_ns: int = 0


def ripgrep() -> str | None:
    """The ``rg`` executable on PATH, if any."""
    return shutil.which("rg")


async def search(
    pattern: str, root: Path, *, include: str | None, top: Path, use_ripgrep: bool | None = None
) -> tuple[list[FileHits], bool]:
    """Files with matches, newest first, and whether the collection stopped at the total cap."""
    rg = ripgrep() if use_ripgrep is not False else None
    if use_ripgrep and rg is None:
        raise ToolError("ripgrep (rg) is not installed.")
    if rg is not None:
        hits, capped = await _search_rg(rg, pattern, root, include)
    else:
        hits, capped = await asyncio.to_thread(_search_python, pattern, root, include, top)
    for hit in hits:
        try:
            hit.mtime_ns = hit.path.stat().st_mtime_ns
        except OSError:
            hit.mtime_ns = 0
    hits.sort(key=lambda h: (-h.mtime_ns, str(h.path)))
    return hits, capped


async def _search_rg(rg: str, pattern: str, root: Path, include: str | None) -> tuple[list[FileHits], bool]:
    args = [rg, "--json", "--no-require-git", "--max-count", str(PER_FILE_CAP), "-e", pattern]
    if include and "/" not in include:
        # rg's --glob would override .gitignore (an ignored file matching it gets searched); a file
        # type narrows the search the same way but keeps the ignore rules.
        args += ["--type-add", f"agentlsinclude:{include}", "--type", "agentlsinclude"]
    args += ["--", str(root)]
    # Paths with a folder part are matched here, the same way the Python search matches them.
    wanted = glob_matcher(include) if include else None
    proc = await asyncio.create_subprocess_exec(
        *args,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        limit=64 * 1024 * 1024,  # one JSON line holds a whole matched line, which may be huge
    )
    assert proc.stdout is not None and proc.stderr is not None
    by_path: dict[str, FileHits] = {}
    total, capped = 0, False
    try:
        async for raw in proc.stdout:
            event = json.loads(raw)
            if event.get("type") != "match":
                continue
            data = event["data"]
            name = data["path"].get("text")
            text = data["lines"].get("text")
            if name is None or text is None:
                continue  # a path or line that is not UTF-8: rg sends bytes we cannot show
            if name not in by_path and not _accept(wanted, root, Path(name)):
                continue
            hits = by_path.setdefault(name, FileHits(Path(name)))
            hits.lines.append((int(data["line_number"]), text.rstrip("\r\n")))
            total += 1
            if total >= TOTAL_CAP:
                capped = True
                break
    except BaseException:
        _kill(proc)
        await proc.wait()
        raise
    if capped:
        _kill(proc)
    stderr = (await proc.stderr.read()).decode("utf-8", errors="replace").strip()
    code = await proc.wait()
    if code == 2 and not by_path and not capped:
        if "regex parse error" in stderr:
            detail = stderr.split("regex parse error:", 1)[1].strip()
            raise ToolError(f"grep failed: the pattern is not a valid regular expression: {detail}")
        raise ToolError(f"grep failed: {stderr or 'ripgrep exited with an error'}")
    if stderr:
        log.debug("ripgrep warnings: %s", stderr)
    return list(by_path.values()), capped


def _included(wanted: Callable[[str, str], bool], root: Path, path: Path) -> bool:
    rel = path.name if path == root else path.relative_to(root).as_posix()
    return wanted(rel, path.name)


def _accept(wanted: Callable[[str, str], bool] | None, root: Path, path: Path) -> bool:
    # A --type whitelist makes rg search hidden files too; hidden files stay out, as without one.
    if path != root and any(part.startswith(".") for part in path.relative_to(root).parts):
        return False
    return wanted is None or _included(wanted, root, path)


def _kill(proc: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError):
        proc.kill()


def _search_python(pattern: str, root: Path, include: str | None, top: Path) -> tuple[list[FileHits], bool]:
    try:
        regex = re.compile(pattern)
    except re.error as exc:
        raise ToolError(f"grep failed: the pattern is not a valid regular expression: {exc}.") from exc
    wanted = glob_matcher(include) if include else None
    if root.is_file():
        files = [root]
    else:
        files = [
            e.path
            for e in walk(root, top=top)
            if not e.is_dir and (wanted is None or wanted(e.path.relative_to(root).as_posix(), e.path.name))
        ]
    found: list[FileHits] = []
    total = 0
    for path in files:
        hits = _search_file(regex, path)
        if hits is None:
            continue
        found.append(hits)
        total += len(hits.lines)
        if total >= TOTAL_CAP:
            return found, True
    return found, False


def _search_file(regex: re.Pattern[str], path: Path) -> FileHits | None:
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    if b"\x00" in data[:SNIFF_BYTES]:
        return None
    hits = FileHits(path)
    for number, line in enumerate(data.decode("utf-8", errors="replace").split("\n"), start=1):
        if regex.search(line.rstrip("\r")):
            hits.lines.append((number, line.rstrip("\r")))
            if len(hits.lines) >= PER_FILE_CAP:
                break
    return hits if hits.lines else None
