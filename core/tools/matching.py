"""Find where the edit tool's ``oldString`` sits in a file, exactly or by tolerant strategies.

Models often copy text with slightly wrong whitespace or indentation. The strategies run in order,
from strict to tolerant; the first one that finds exactly one place wins (or, with ``replace_all``,
the first one that finds any). A strategy that finds several places does not stop the search: a later
one may still single out one place; if none does, the edit is ambiguous.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from difflib import SequenceMatcher

from core.errors import ToolError
from core.record import record

ANCHOR_SIMILARITY = 0.5


@record
class Match:
    """A span of the content and the text that replaces it."""

    start: int
    end: int
    replacement: str


@record
class Replacement:
    """The new content, how many places changed and which strategy found them."""

    content: str
    count: int
    strategy: str


Strategy = Callable[[str, str, str], list[Match]]


def exact(content: str, old: str, new: str) -> list[Match]:
    """Every occurrence of ``old`` as is (overlapping ones too: they make the edit ambiguous)."""
    found, start = [], content.find(old)
    while start != -1:
        found.append(Match(start, start + len(old), new))
        start = content.find(old, start + 1)
    return found


def whitespace_normalized(content: str, old: str, new: str) -> list[Match]:
    """``old`` with every run of whitespace allowed to be any other run of whitespace."""
    tokens = old.split()
    pattern = re.compile(r"\s+".join(re.escape(t) for t in tokens))
    # The match spans the tokens only: whitespace around oldString stays in the file, so the same
    # whitespace around newString would be added a second time.
    if old[-1:].isspace():
        new = new.rstrip()
    if old[:1].isspace():
        new = new.lstrip()
    found, m = [], pattern.search(content)
    while m is not None:  # overlapping matches too, like ``exact``
        found.append(Match(m.start(), m.end(), new))
        m = pattern.search(content, m.start() + 1)
    return found


class _Lines:
    """The content split into lines with the offset of each, for line-window strategies."""

    def __init__(self, content: str) -> None:
        self.content = content
        self.lines = content.split("\n")
        self.starts: list[int] = []
        offset = 0
        for line in self.lines:
            self.starts.append(offset)
            offset += len(line) + 1

    def span(self, first: int, last: int, with_newline: bool) -> tuple[int, int]:
        end = self.starts[last] + len(self.lines[last])
        if with_newline and end < len(self.content):
            end += 1
        return self.starts[first], end


def _old_lines(old: str) -> tuple[list[str], bool]:
    lines = old.split("\n")
    if len(lines) > 1 and lines[-1] == "":
        return lines[:-1], True
    return lines, False


def _indent(lines: list[str]) -> str:
    """The leading whitespace of the least indented non-blank line."""
    indents = [ln[: len(ln) - len(ln.lstrip())] for ln in lines if ln.strip()]
    return min(indents, key=len) if indents else ""


def _reindent(new: str, old_lines: list[str], window: list[str]) -> str:
    """Shift ``new`` by the indentation difference between ``old`` and the text it matched."""
    old_indent, win_indent = _indent(old_lines), _indent(window)
    if old_indent == win_indent:
        return new
    out = []
    for line in new.split("\n"):
        if not line.strip():
            out.append(line)
        elif line.startswith(old_indent):
            out.append(win_indent + line[len(old_indent) :])
        else:
            out.append(win_indent + line.lstrip())
    return "\n".join(out)


def _window_strategy(same: Callable[[list[str], list[str]], bool]) -> Strategy:
    def strategy(content: str, old: str, new: str) -> list[Match]:
        text = _Lines(content)
        want, trailing = _old_lines(old)
        n = len(want)
        found = []
        for i in range(len(text.lines) - n + 1):
            window = text.lines[i : i + n]
            if same(want, window):
                start, end = text.span(i, i + n - 1, trailing)
                found.append(Match(start, end, _reindent(new, want, window)))
        return found

    return strategy


def _trimmed_equal(want: list[str], window: list[str]) -> bool:
    return all(a.strip() == b.strip() for a, b in zip(want, window, strict=True))


def _dedented_equal(want: list[str], window: list[str]) -> bool:
    wi, ni = len(_indent(want)), len(_indent(window))
    return all(
        a[wi:].rstrip() == b[ni:].rstrip() if a.strip() else not b.strip()
        for a, b in zip(want, window, strict=True)
    )


line_trimmed = _window_strategy(_trimmed_equal)
indentation_flexible = _window_strategy(_dedented_equal)


def anchor_lines(content: str, old: str, new: str) -> list[Match]:
    """First and last lines equal (trimmed), the lines between similar enough."""
    want, trailing = _old_lines(old)
    if len(want) < 3 or not want[0].strip() or not want[-1].strip():
        return []
    text = _Lines(content)
    lines = text.lines
    first, last = want[0].strip(), want[-1].strip()
    middle = "\n".join(ln.strip() for ln in want[1:-1])
    found = []
    for i, line in enumerate(lines):
        if line.strip() != first:
            continue
        for j in range(i + 2, min(len(lines), i + 2 * len(want))):
            if lines[j].strip() != last:
                continue
            between = "\n".join(ln.strip() for ln in lines[i + 1 : j])
            if SequenceMatcher(None, middle, between).ratio() >= ANCHOR_SIMILARITY:
                start, end = text.span(i, j, trailing)
                found.append(Match(start, end, _reindent(new, want, lines[i : j + 1])))
            break
    return found


STRATEGIES: list[tuple[str, Strategy]] = [
    ("exact", exact),
    ("line-trimmed", line_trimmed),
    ("whitespace-normalized", whitespace_normalized),
    ("indentation-flexible", indentation_flexible),
    ("anchor-lines", anchor_lines),
]


def _disjoint(matches: list[Match]) -> list[Match]:
    kept: list[Match] = []
    for m in sorted(matches, key=lambda m: m.start):
        if not kept or m.start >= kept[-1].end:
            kept.append(m)
    return kept


def _apply(content: str, matches: list[Match]) -> str:
    out, pos = [], 0
    for m in matches:
        out.append(content[pos : m.start])
        out.append(m.replacement)
        pos = m.end
    out.append(content[pos:])
    return "".join(out)


def replace(content: str, old: str, new: str, *, replace_all: bool, label: str) -> Replacement:
    """Replace ``old`` by ``new`` in ``content``; ``ToolError`` when it is not found or not unique."""
    strategies = STRATEGIES if old.strip() else STRATEGIES[:1]
    most = 0
    for name, strategy in strategies:
        found = strategy(content, old, new)
        if not found:
            continue
        if replace_all or len(found) == 1:
            matches = _disjoint(found)
            return Replacement(_apply(content, matches), len(matches), name)
        most = max(most, len(found))
    if most:
        raise ToolError(
            f"oldString matches {most} places in {label}. Include more of the surrounding lines in "
            "oldString so that it matches exactly one place, or set replaceAll to true to change "
            "every occurrence."
        )
    raise ToolError(
        f"oldString was not found in {label}. It must match the file's current text, including "
        "whitespace and indentation, without the line-number prefixes of the read tool. Read the "
        "file again and copy the exact text you want to replace."
    )
