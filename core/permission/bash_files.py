"""Which words of a simple command name files, and whether the command writes them.

A rule that allows ``echo *`` approves a command, not what its redirections do to the project:
``echo x > setup.py`` is a write and answers to ``edit`` for that file, like the write tool. So do
the files ``tee``, ``cp``/``install``/``ln`` (their target), ``mv`` (source and target),
``dd of=``, ``sed -i``, ``touch`` and ``truncate`` write, those ``rm``, ``unlink`` and
``shred`` delete, and those an option or operand of ``core.permission.effects``'s table
writes (``sort -o``, ``find -fprint``, ``git diff --output``, ``uniq IN OUT`` …). Every other
argument of a command that takes files is a file it may read: it is checked for being outside
the project and for naming a secret (``cat .env``, ``source .env``, ``< .env`` answer to
``read`` for it, so the rules that guard secrets for the read tool guard them in bash too).
"""

from __future__ import annotations

import fnmatch
import re
from typing import Literal

from core.permission.command import Piece, Redirect, SimpleCommand, Word
from core.permission.effects import effects
from core.record import record

# Commands whose arguments are text, not files.
TEXT_ARGS = frozenset({"echo", "printf", "true", "false", ":", "test", "["})
# The files the read rules guard by default (see core.permission.rules.DEFAULTS).
SECRET_NAMES = ("*.env", "*.env.*")
_SECRET = re.compile("|".join(fnmatch.translate(pattern) for pattern in SECRET_NAMES))
# Devices a redirection may use without touching any file of the project or elsewhere.
HARMLESS_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/zero"})
_WRITE_OPS = frozenset({">", ">>", ">|", "<>", ">&"})
_READ_OPS = frozenset({"<", "<>"})
# Commands that write every file named as an argument, and those that write their last one.
_WRITE_ALL = frozenset({"tee", "touch", "truncate", "rm", "unlink", "shred", "mv"})  # mv: source too
_WRITE_TARGET = frozenset({"cp", "install", "ln"})
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
_KEY_VALUE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")

Access = Literal["read", "write", "run"]


@record(slots=True, generated=True)  # made per word: a hot path
class PathUse:
    """A word naming a file (or folder) the command reads, writes or runs."""

    word: Word
    access: Access


def core_op(redirect: Redirect) -> str:
    """The operator without its file-descriptor prefix: ``2>>`` → ``>>``, ``&>`` → ``>``."""
    return redirect.op.lstrip("0123456789&")


def is_harmless(target: str) -> bool:
    """Whether a redirection target is a device such as /dev/null, never a file."""
    return target in HARMLESS_TARGETS or target.startswith("/dev/fd/")


def is_secret(value: str) -> bool:
    """Whether a path names a file the read rules guard (``.env``, ``prod.env``, ``.env.local``)."""
    name = value.rstrip("/").rsplit("/", 1)[-1]
    return _SECRET.match(name) is not None


def path_uses(cmd: SimpleCommand) -> list[PathUse]:
    """The words of ``cmd`` that name files, each with how the command uses it."""
    uses = [use for r in cmd.redirects if (use := _redirect_use(r)) is not None]
    lead = len(cmd.assignments)
    words = cmd.words[lead:]
    if not words:
        return uses
    program, args = words[0], words[1:]
    if any(p.kind != "plain" and p.kind != "quoted" for p in program.pieces):
        uses.append(PathUse(program, "run"))  # which program runs is itself unknown
    name = program.value.rsplit("/", 1)[-1]
    if name in TEXT_ARGS:
        return uses
    written = _written(name, args)
    for output in effects(words).writes:
        if any(output is word for word in args):
            written.add(id(output))
        else:  # a value glued to its option: -oout, --output=out
            uses.append(PathUse(output, "write"))
    for word in args:
        target = _file_part(word)
        if target is not None:
            uses.append(PathUse(target, "write" if id(word) in written else "read"))
    return uses


def _redirect_use(redirect: Redirect) -> PathUse | None:
    op = core_op(redirect)
    target = redirect.target
    if op in ("<<<", "<<", "<<-"):
        return None
    if op in (">&", "<&") and (target.value.isdigit() or target.value in ("-", "")):
        return None  # a file-descriptor copy or close
    if op == "<&":
        return None
    if is_harmless(target.value) and _static(target):
        return None
    return PathUse(target, "write" if op in _WRITE_OPS else "read")


def _written(name: str, args: list[Word]) -> set[int]:
    """``id()``\\s of the argument words the command writes."""
    positional = [w for w in args if not w.value.startswith("-")]
    if name in _WRITE_ALL:
        return {id(w) for w in positional}
    if name in _WRITE_TARGET:
        for index, word in enumerate(args):
            if word.value in ("-t", "--target-directory") and index + 1 < len(args):
                return {id(args[index + 1])}
            if word.value.startswith("--target-directory="):
                return {id(word)}
        return {id(positional[-1])} if len(positional) > 1 else set()
    if name == "dd":
        return {id(w) for w in args if w.value.startswith("of=")}
    if name in ("sed", "perl") and any(_in_place(w.value) for w in args):
        scripted = any(
            w.value in ("-e", "-f") or w.value.startswith(("--expression", "--file")) for w in args
        )
        files = positional if scripted else positional[1:]  # the first positional is the script
        return {id(w) for w in files}
    return set()


def _in_place(option: str) -> bool:
    return option.startswith("--in-place") or (
        option.startswith("-") and not option.startswith("--") and "i" in option
    )


def _file_part(word: Word) -> Word | None:
    """The part of an argument that may name a file: all of it, the value of ``--opt=value`` or
    ``key=value`` (``dd of=…``), or nothing (a flag, a URL)."""
    value = word.value
    if value.startswith("-") or _KEY_VALUE.match(value):
        if "=" not in value:
            # A flag, unless a substitution is glued to it (-o$X): then it may name anything.
            return word if not _static(word) else None
        return _after_equals(word)
    if _URL.match(value) and _static(word):
        return None
    return word


def _after_equals(word: Word) -> Word | None:
    """The word after its first ``=`` (a piece holding it is split there)."""
    pieces = list(word.pieces)
    for index, piece in enumerate(pieces):
        if piece.kind in ("plain", "quoted") and "=" in piece.text:
            rest = piece.text.split("=", 1)[1]
            tail = ([Piece(rest, piece.kind)] if rest else []) + pieces[index + 1 :]
            if not tail:
                return None
            raw = word.raw.split("=", 1)[1]
            return Word(raw, "".join(p.text for p in tail), tuple(tail))
        if piece.kind not in ("plain", "quoted"):
            return word  # a substitution before any "=": all of it is unknown
    return None


def _static(word: Word) -> bool:
    return all(p.kind in ("plain", "quoted") for p in word.pieces)
