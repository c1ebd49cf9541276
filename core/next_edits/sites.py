"""Where a pattern still has to be applied: lines of a document that name the old identifier (a
rename) or call the function whose arguments changed (a signature), and that do not already look
like the pattern's result. The scan is bounded: a huge document is read only up to ``MAX_LINES``
lines and ``MAX_LINE`` characters a line, and at most ``max_sites`` sites are returned.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from core.next_edits.pattern import Pattern

MAX_LINES = 20_000
MAX_LINE = 2_000


@dataclass(frozen=True, slots=True)
class Site:
    """One line to change: its document, 0-based line and text."""

    uri: str
    line: int
    text: str


def _matcher(pattern: Pattern) -> re.Pattern[str]:
    if pattern.kind == "rename":
        return re.compile(rf"(?<![A-Za-z0-9_]){re.escape(pattern.old)}(?![A-Za-z0-9_])")
    return re.compile(rf"(?<![A-Za-z0-9_.]){re.escape(pattern.old)}\s*\(")


def find_sites(pattern: Pattern, documents: Iterable[tuple[str, str]], max_sites: int = 50) -> list[Site]:
    """The sites of ``pattern`` in ``documents`` (``(uri, text)`` pairs), in document order."""
    matcher = _matcher(pattern)
    done = {line.strip() for line in pattern.after}
    found: list[Site] = []
    for uri, text in documents:
        for number, line in enumerate(text.splitlines()[:MAX_LINES]):
            if len(line) > MAX_LINE or line.strip() in done or not matcher.search(line):
                continue
            found.append(Site(uri, number, line))
            if len(found) >= max_sites:
                return found
    return found


def nearest_first(sites: list[Site], uri: str | None, line: int) -> list[Site]:
    """``sites`` with those of ``uri`` first, nearest ``line`` first."""
    return sorted(sites, key=lambda s: (s.uri != uri, abs(s.line - line)))


def context_of(text: str, line: int, around: int = 3) -> tuple[str, str]:
    """The ``around`` lines before and after ``line`` of ``text``, for the model."""
    lines = text.splitlines()
    return "\n".join(lines[max(0, line - around) : line]), "\n".join(lines[line + 1 : line + 1 + around])
