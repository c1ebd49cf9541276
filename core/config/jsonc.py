"""JSON with comments and trailing commas (JSONC), read without a new dependency.

Comments and trailing commas are blanked out with spaces (newlines kept) so the text keeps its shape and
the standard ``json`` parser reports errors at the line and column of the original file.
"""

from __future__ import annotations

import json
from typing import Any

from core.errors import ConfigError


def _line_col(text: str, index: int) -> tuple[int, int]:
    line = text.count("\n", 0, index) + 1
    col = index - (text.rfind("\n", 0, index) + 1) + 1
    return line, col


def _blank(chunk: str) -> str:
    return "".join("\n" if ch == "\n" else " " for ch in chunk)


def strip_jsonc(text: str, source: str) -> str:
    """``text`` with comments and trailing commas blanked out; ConfigError on an unclosed comment."""
    out: list[str] = []
    # Index in ``out`` of the last comma outside strings while only blanks and comments followed it.
    pending_comma: int | None = None
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            end = i + 1
            while end < n and text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            end = min(end + 1, n)  # an unterminated string is left for json to report
            out.append(text[i:end])
            pending_comma = None
            i = end
        elif text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end == -1 else end
            out.append(_blank(text[i:end]))
            i = end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end == -1:
                line, col = _line_col(text, i)
                raise ConfigError(f"{source}:{line}:{col}: comment opened with /* is never closed")
            out.append(_blank(text[i : end + 2]))
            i = end + 2
        else:
            if ch in "}]" and pending_comma is not None:
                out[pending_comma] = " "
            if ch == ",":
                # A second comma in a row is a real error: keep both so json reports it where it is.
                pending_comma = len(out) if pending_comma is None else None
            elif not ch.isspace():
                pending_comma = None
            out.append(ch)
            i += 1
    return "".join(out)


def loads(text: str, source: str) -> Any:
    """Parse JSONC ``text``; errors are ConfigError naming ``source`` with line:column."""
    cleaned = strip_jsonc(text.removeprefix("\ufeff"), source)
    try:
        return json.loads(cleaned)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{source}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from None
