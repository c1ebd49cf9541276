"""Titles are shown on terminals and in editors: keep them one line of printable text.

A title comes from the model or from a client's rename, and ends up printed raw by
``agentls sessions list``. An ESC sequence in it would drive the user's terminal (move the cursor,
set the window title, hide text), and a bidi override (U+202E) would show the rest reversed. Both
are removed where a title is stored and again where the CLI prints one.
"""

from __future__ import annotations

import unicodedata

# Explicit direction marks, embeddings, overrides and isolates (Unicode's "Bidi_Control" set).
_BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
# Characters that break a line without being C0/C1 controls.
_LINE_BREAKS = frozenset("\u2028\u2029\u0085")


def clean_title(text: str) -> str:
    """``text`` as one line: control characters and bidi controls removed, line breaks as spaces.

    An escape sequence loses its ESC (its printable rest stays, harmless), so what a user sees is
    never less than what was there.
    """
    out: list[str] = []
    for char in text:
        if char in _LINE_BREAKS or char in "\t\n\r\v\f":
            out.append(" ")
        elif char in _BIDI_CONTROLS or unicodedata.category(char) in ("Cc", "Cs"):
            continue
        else:
            out.append(char)
    return " ".join("".join(out).split())
