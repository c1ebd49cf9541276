"""A command's options read the way getopt reads them, so a checker sees ``-uo out`` as ``-o out``.

Short options cluster (``-uo out``, ``-oout``), long ones take their value after ``=`` or as the next
word, and a long option may be abbreviated to any prefix that names one option (``--out=f`` is
``--output=f`` to GNU tools). Options that take a value must be named, or the value would be read as
an operand; options the table does not know are kept by name, value-less.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field

from core.permission.command import Piece, Word
from core.record import record


@record(slots=True, generated=True)  # made per word: a hot path
class Option:
    """One option as given: its name (``-o``, ``--output``) and its value, if it takes one."""

    name: str
    value: Word | None = None


@dataclass(slots=True)  # made per command, in a hot loop: the methods dataclasses generates
class Parsed:
    """A command's options and operands; ``stop`` is the index of the first operand when the
    command stops reading options there (a wrapper: what follows is the command it runs)."""

    options: list[Option] = field(default_factory=list)
    operands: list[Word] = field(default_factory=list)
    stop: int = 0


def parse(
    args: list[Word],
    valued: Collection[str],
    *,
    permute: bool = True,
    longs: Collection[str] = (),
    flag_digits: bool = False,
) -> Parsed:
    """``args`` (the words after the command's name) split into options and operands.

    ``valued``: the options that take a value; ``longs``: other long options, for abbreviations;
    ``permute``: options may follow operands (GNU tools) — when False the first operand ends the
    options (a wrapper); ``flag_digits``: ``-10`` is an option (``nice -10``), not an operand.
    """
    known_longs = [name for name in (*valued, *longs) if name.startswith("--")]
    out = Parsed()
    index = 0
    while index < len(args):
        word = args[index]
        value = word.value
        if value == "--":
            out.operands.extend(args[index + 1 :])
            out.stop = index + 1
            return out
        if not value.startswith("-") or value == "-" or (value[1:].isdigit() and not flag_digits):
            if not permute:
                out.stop = index
                out.operands.extend(args[index:])
                return out
            out.operands.append(word)
            index += 1
            continue
        if value.startswith("--"):
            name, equals, _ = value.partition("=")
            name = _full_name(name, known_longs)
            if equals:
                out.options.append(Option(name, after(word, value.index("=") + 1)))
            elif name in valued and index + 1 < len(args):
                out.options.append(Option(name, args[index + 1]))
                index += 1
            else:
                out.options.append(Option(name))
            index += 1
            continue
        for position in range(1, len(value)):
            name = "-" + value[position]
            if name not in valued:
                out.options.append(Option(name))
                continue
            if position + 1 < len(value):
                out.options.append(Option(name, after(word, position + 1)))
            elif index + 1 < len(args):
                out.options.append(Option(name, args[index + 1]))
                index += 1
            else:
                out.options.append(Option(name))
            break
        index += 1
    out.stop = len(args)
    return out


def _full_name(given: str, longs: list[str]) -> str:
    """The long option ``given`` abbreviates, when exactly one starts with it."""
    if given in longs:
        return given
    matches = [name for name in longs if name.startswith(given)]
    return matches[0] if len(matches) == 1 and len(given) > 2 else given


def after(word: Word, skip: int) -> Word:
    """The word without its first ``skip`` characters (``-oout`` → ``out``, ``--output=f`` → ``f``).

    A substitution among the skipped characters leaves the whole word (what it names is unknown).
    """
    pieces: list[Piece] = []
    left = skip
    for piece in word.pieces:
        if left <= 0:
            pieces.append(piece)
        elif piece.kind not in ("plain", "quoted"):
            return word
        elif len(piece.text) > left:
            pieces.append(Piece(piece.text[left:], piece.kind))
            left = 0
        else:
            left -= len(piece.text)
    if not word.pieces:
        text = word.value[skip:]
        return Word(text, text, ())
    text = "".join(p.text for p in pieces)
    raw = word.raw[skip:] if word.raw.startswith(word.value[:skip]) else text
    return Word(raw, text, tuple(pieces))
