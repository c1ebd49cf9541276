"""What an edit starts: a renamed identifier, or a changed call signature, read from the lines it
replaced and the lines it wrote.

Only the two shapes the feature offers are recognised; anything else (a rewritten block, a comment)
is no pattern, so nothing is suggested for it.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

# Identifiers, and every other non-blank run of characters as its own token.
_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\S")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_KEYWORDS = frozenset(
    {
        *("def", "class", "return", "if", "else", "elif", "for", "while", "in", "not", "and", "or"),
        *("import", "from", "as", "with", "try", "except", "finally", "function", "const", "let"),
        *("var", "async", "await", "new", "lambda", "pass", "yield", "None", "True", "False"),
        *("null", "true", "false"),
    }
)
# A call or definition: a name followed by its parenthesised arguments on the same line.
_CALL = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*\(([^()]*)\)")

Kind = Literal["rename", "signature"]


@dataclass(frozen=True, slots=True)
class Pattern:
    """A repeatable change: ``rename`` (``old`` became ``new`` as a whole word) or ``signature``
    (the arguments of ``old``'s calls changed: ``new`` is the same name); ``before`` and
    ``after`` are the example lines it was read from."""

    kind: Kind
    old: str
    new: str
    # The example: another edit of the same pattern (the user applying it) is the same pattern.
    before: tuple[str, ...] = field(compare=False)
    after: tuple[str, ...] = field(compare=False)

    def describe(self) -> str:
        """One line for the model and the code action's title."""
        if self.kind == "rename":
            return f"`{self.old}` was renamed to `{self.new}`"
        return f"the arguments of `{self.old}(...)` changed"


def detect(before: Sequence[str], after: Sequence[str]) -> Pattern | None:
    """The pattern that turns ``before`` into ``after``, if it is one of the known shapes."""
    if not before or not after or list(before) == list(after):
        return None
    return _rename(before, after) or _signature(before, after)


def _rename(before: Sequence[str], after: Sequence[str]) -> Pattern | None:
    old_tokens = _TOKEN.findall("\n".join(before))
    new_tokens = _TOKEN.findall("\n".join(after))
    pairs: set[tuple[str, str]] = set()
    matcher = difflib.SequenceMatcher(a=old_tokens, b=new_tokens, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if tag != "replace" or i2 - i1 != j2 - j1:
            return None
        for old, new in zip(old_tokens[i1:i2], new_tokens[j1:j2], strict=True):
            if not (_IDENT.match(old) and _IDENT.match(new)) or old in _KEYWORDS or new in _KEYWORDS:
                return None
            pairs.add((old, new))
    if len(pairs) != 1:
        return None
    ((old, new),) = pairs
    return Pattern("rename", old, new, tuple(before), tuple(after))


def _signature(before: Sequence[str], after: Sequence[str]) -> Pattern | None:
    old_calls = {m.group(1): m.group(2) for m in _CALL.finditer("\n".join(before))}
    new_calls = {m.group(1): m.group(2) for m in _CALL.finditer("\n".join(after))}
    changed = [
        name
        for name, args in new_calls.items()
        if name in old_calls and old_calls[name] != args and name not in _KEYWORDS
    ]
    if len(changed) != 1:
        return None
    name = changed[0]
    return Pattern("signature", name, name, tuple(before), tuple(after))


def anchor(pattern: Pattern, lines: Sequence[str]) -> tuple[int, int] | None:
    """Where ``lines`` (an edit's new lines) name the function whose calls are the pattern's sites,
    as (line index, column): the function whose arguments changed, the function one of whose
    parameters was renamed, or the renamed function itself. None when no line names one."""
    word = re.compile(rf"(?<![A-Za-z0-9_]){re.escape(pattern.new)}(?![A-Za-z0-9_])")
    for index, line in enumerate(lines):
        for match in _CALL.finditer(line):
            name, args = match.group(1), match.group(2)
            if name in _KEYWORDS:
                continue
            if name == pattern.new or (pattern.kind == "rename" and word.search(args)):
                return index, match.start(1)
    return None


def changed_lines(old: str, new: str, limit: int = 200) -> tuple[list[str], list[str]] | None:
    """The lines of ``old`` that ``new`` replaced and the lines it wrote in their place (one
    region: from the first changed line to the last), or None when nothing changed or the region
    is longer than ``limit`` lines (a paste, a reload: no pattern to read)."""
    a, b = old.splitlines(), new.splitlines()
    start = 0
    while start < len(a) and start < len(b) and a[start] == b[start]:
        start += 1
    end_a, end_b = len(a), len(b)
    while end_a > start and end_b > start and a[end_a - 1] == b[end_b - 1]:
        end_a, end_b = end_a - 1, end_b - 1
    if start == end_a and start == end_b:
        return None
    if end_a - start > limit or end_b - start > limit:
        return None
    return a[start:end_a], b[start:end_b]
