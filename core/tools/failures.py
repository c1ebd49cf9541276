"""Failures of a tool call told to the model in words it can act on, never as Python reprs.

The model's arguments reach the OS and subprocesses; what those refuse (a NUL byte, a name longer
than the file system allows, a folder the user may not read) comes back here as a ``ToolError``.
Its text is cut where it repeats a huge input, so a 100 kB argument is not echoed back whole.
"""

from __future__ import annotations

import errno
import re
from typing import Any

from core.errors import ToolError

MAX_RUN = 200  # longest unbroken run of characters kept in an error message
MAX_MESSAGE = 1_000
_LONG_RUN = re.compile(rf"\S{{{MAX_RUN + 1},}}")


def _cut_run(match: re.Match[str]) -> str:
    run = match.group(0)
    keep = MAX_RUN // 2
    return f"{run[:keep]}[… {len(run) - 2 * keep} characters cut …]{run[-keep:]}"


def shorten(message: str) -> str:
    """``message`` with over-long words (a repeated huge input) cut in the middle, and capped."""
    if len(message) <= MAX_RUN and "\n" not in message:
        return message
    short = _LONG_RUN.sub(_cut_run, message)
    if len(short) > MAX_MESSAGE:
        short = f"{short[: MAX_MESSAGE - 40]} [… {len(short) - MAX_MESSAGE + 40} characters cut …]"
    return short


def _nul_at(value: Any, where: str, allowed: frozenset[str]) -> str | None:
    if isinstance(value, str):
        return where if "\x00" in value and where not in allowed else None
    if isinstance(value, dict):
        for key, item in value.items():
            if found := _nul_at(item, f"{where}.{key}" if where else str(key), allowed):
                return found
    elif isinstance(value, list):
        for i, item in enumerate(value):
            if found := _nul_at(item, f"{where}[{i}]", allowed):
                return found
    return None


def check_nul(args: dict[str, Any], allowed: frozenset[str]) -> None:
    """Refuse a NUL byte in any argument but ``allowed`` ones (file content may hold one)."""
    if where := _nul_at(args, "", allowed):
        raise ToolError(
            f"The {where} argument contains a NUL byte (\\0), which no file name, command or pattern "
            "can hold. Rewrite it without the NUL byte."
        )


_OS_WORDS = {
    errno.ENAMETOOLONG: "the path is too long for the file system (a name may have at most 255 bytes)",
    errno.EACCES: "the operating system denied access",
    errno.EPERM: "the operating system does not permit this",
    errno.ENOTDIR: "a part of the path is a file, not a folder",
    errno.EISDIR: "the path is a folder, not a file",
    errno.ENOENT: "no such file or folder",
    errno.ELOOP: "the path goes round a loop of symbolic links",
    errno.ENOSPC: "the disk is full",
    errno.EROFS: "the file system is read-only",
}


def from_os_error(exc: OSError) -> ToolError:
    """What the OS refused, in words, with the path it was about (cut when long)."""
    words = _OS_WORDS.get(exc.errno or 0) or (exc.strerror or "the operating system refused").lower()
    if exc.filename:
        return ToolError(
            shorten(f"Cannot use the path {exc.filename}: {words}. Check the path and try again.")
        )
    return ToolError(f"The operating system refused this: {words}.")
