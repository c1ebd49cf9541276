"""A shell command line as the permission checks see it: simple commands, their words and redirections."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from core.record import record

PieceKind = Literal["plain", "quoted", "expansion", "process"]


@record(slots=True, generated=True)  # made per word: a hot path
class Piece:
    """A run of a word: ``plain`` text the shell still globs and tilde-expands, ``quoted`` text it
    takes as written, an ``expansion`` (``$X``, ``${X}``, ``$(…)``, backticks, ``$((…))``,
    ``$'…'``) as written, or a ``process`` substitution (``<(…)``)."""

    text: str
    kind: PieceKind
    quoted: bool = False  # an expansion inside double quotes (no word splitting, no globbing)


@record(slots=True, generated=True)  # made per word: a hot path
class Word:
    """One shell word: ``raw`` as written, ``value`` with quotes and escapes removed (expansions
    stay as written), ``pieces`` telling which parts are quoted, plain or expanded."""

    raw: str
    value: str
    pieces: tuple[Piece, ...] = ()


@record(slots=True, generated=True)  # made per word: a hot path
class Redirect:
    """A redirection: its operator (``>``, ``2>>``, ``<`` …) and its target word."""

    op: str
    target: Word


@dataclass(slots=True)  # made per command, in a hot loop: the methods dataclasses generates
class SimpleCommand:
    """A command the shell would execute: its text as written, words and redirections.

    ``via`` names what runs it on the line's behalf when that is not the shell itself (``nice``,
    ``sudo``, ``find -exec``, ``sh -c`` …): the dialog says so. ``host``: the wrapper command
    (``nice rm x``) that runs this one (``rm x``) and nothing else: both are asked in one dialog.
    """

    text: str
    words: list[Word] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)
    via: str = ""
    host: str = ""  # the text of the wrapper command whose whole job is to run this one

    @property
    def argv(self) -> list[str]:
        """The command's words without leading ``NAME=value`` assignments."""
        values = [w.value for w in self.words]
        index = 0
        while index < len(values) and _is_assignment(values[index]):
            index += 1
        return values[index:]

    @property
    def program(self) -> Word | None:
        """The word naming the program to run (after any ``NAME=value`` words)."""
        lead = len(self.assignments)
        return self.words[lead] if lead < len(self.words) else None

    @property
    def assignments(self) -> list[Word]:
        """The leading ``NAME=value`` words."""
        out: list[Word] = []
        for word in self.words:
            if not _is_assignment(word.value):
                break
            out.append(word)
        return out


_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")


def plain_word(text: str) -> Word:
    """A word the checker makes up (``rm`` for ``find -delete``), as if written unquoted."""
    return Word(text, text, (Piece(text, "plain"),))


def _is_assignment(value: str) -> bool:
    return _ASSIGNMENT.match(value) is not None
