"""What a user typed in a search box, as an FTS5 ``MATCH`` expression that SQLite always parses.

Typed text is words, never syntax: each word becomes an FTS5 string (so ``foo-bar``, ``a:b``,
``AND``/``OR``/``NOT``/``NEAR``, ``(`` and unicode are text to find), and every word must match.
Two things a user types on purpose keep their meaning: ``"a phrase"`` in balanced double quotes
matches those words in that order, and a trailing ``*`` matches a prefix (``test*``). A quote
without its pair is a character like any other.

FTS5's own query syntax (``OR``, ``NOT``, ``NEAR``, ``col:``, groups) is used only when asked
for: a query starting ``fts:``. Only such a query can be refused as invalid syntax.
"""

from __future__ import annotations

import re

from core.errors import InvalidInputError
from core.record import record

FTS_PREFIX = "fts:"

# A balanced "phrase" (with an optional prefix star), else a run of non-blank characters.
_TERM = re.compile(r'"([^"]*)"(\*?)(?=\s|$)|(\S+)')


@record
class MatchQuery:
    """The expression for ``MATCH`` and whether the user wrote it in FTS5 syntax."""

    expression: str
    raw: bool


def match_query(typed: str) -> MatchQuery:
    """``typed`` as an FTS5 expression (see the module's doc); InvalidInputError when it is empty."""
    text = typed.strip()
    if text[: len(FTS_PREFIX)].lower() == FTS_PREFIX:
        raw = text[len(FTS_PREFIX) :].strip()
        if not raw:
            raise InvalidInputError(f"the search query is empty after {FTS_PREFIX!r}: give an FTS5 query")
        return MatchQuery(raw, raw=True)
    if not text:
        raise InvalidInputError("the search query is empty: give one or more words to look for")
    terms: list[str] = []
    for found in _TERM.finditer(text):
        phrase, star, word = found.group(1), found.group(2), found.group(3)
        if word is not None:
            body = word.rstrip("*")
            star = "*" if body and body != word else ""
            phrase = body or word
        terms.append(_string(phrase) + star)
    return MatchQuery(" ".join(terms), raw=False)


def _string(text: str) -> str:
    """An FTS5 string: in double quotes, a double quote inside doubled."""
    return '"' + text.replace('"', '""') + '"'
