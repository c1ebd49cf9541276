"""Which files a shell word names, decided without running anything, or why that cannot be known.

What the shell would substitute the same way on every run is resolved: ``~``, ``~+``, ``~-``,
``$HOME``/``${HOME}``, ``$PWD``/``${PWD}`` and ``$OLDPWD`` (the folder the line is in at that point,
following its ``cd``\\s), ``/proc/self/cwd``, and globs, expanded against the disk as the shell
would. Anything else is :class:`Unknown`: another variable (an assignment earlier on the line
included), a command or process substitution, arithmetic, ``$'…'``, brace expansion, a glob that
could match a guarded name such as ``.env``, a relative path after ``cd`` into an unknown folder.
A permission check must ask about an unknown word, never guess.
"""

from __future__ import annotations

import fnmatch
import glob
import itertools
import os
import re
from dataclasses import field
from pathlib import Path

from core.permission.command import Piece, Word
from core.record import record, struct

# Names whose reading the default rules guard; a glob that could match one of them is unknown.
GUARDED_PROBES = (".env", ".env.local", ".env.production", ".envrc")
# A glob matching more files than this is not worth listing: it is unknown.
MAX_GLOB_MATCHES = 256
# Patterns one line may expand against the disk (each lists a folder): past that they are unknown,
# so a line of a thousand globs over a large folder cannot hold the check.
MAX_GLOBS = 64
_GLOB = re.compile(r"[*?\[]")
_BRACES = re.compile(r"\{[^{}]*(,|\.\.)[^{}]*\}")
_STATIC_VARIABLES = {"$PWD": "cwd", "${PWD}": "cwd", "$HOME": "home", "${HOME}": "home"}
_STATIC_VARIABLES |= {"$OLDPWD": "oldpwd", "${OLDPWD}": "oldpwd"}
# Variables whose value the checker assumes; a line that may set one itself loses that assumption.
_WATCHED = ("PWD", "HOME", "OLDPWD", "IFS")
_TILDE_VARIABLE = {"~": "HOME", "~+": "PWD", "~-": "OLDPWD"}


@record
class Unknown:
    """A word whose files cannot be known before the command runs, and why."""

    reason: str


@struct
class ShellState:
    """Where a command line stands when one of its commands runs (``None``: not known)."""

    cwd: Path | None
    home: str = field(default_factory=lambda: os.path.expanduser("~"))
    oldpwd: Path | None = None
    stack: list[Path | None] = field(default_factory=list)
    changed: frozenset[str] = frozenset()  # watched variables the line may set itself
    real: dict[str, str] = field(default_factory=dict)  # folder → its real path, for this one check
    globs: int = 0  # patterns expanded so far on the line


def set_on_line(command: str) -> frozenset[str]:
    """Which of PWD, HOME, OLDPWD and IFS the line may set (``PWD=/x``, ``export HOME=…``,
    ``read IFS``, ``${PWD:=…}``, ``unset HOME`` …): any mention other than a plain read."""
    found: set[str] = set()
    for name in _WATCHED:
        rest = re.sub(rf"\${name}(?!\w)|\$\{{{name}\}}", "", command)
        if re.search(rf"(?<!\w){name}(?!\w)", rest):
            found.add(name)
    return frozenset(found)


def is_dynamic(word: Word) -> bool:
    """Whether the word holds a substitution of any kind."""
    return any(p.kind in ("expansion", "process") for p in word.pieces)


def is_glob(word: Word) -> bool:
    """Whether the shell expands the word as a pattern (a ``*``, ``?`` or ``[`` outside quotes)."""
    return any(p.kind == "plain" and _GLOB.search(p.text) for p in word.pieces)


def resolve_word(word: Word, state: ShellState) -> list[Path] | Unknown:
    """The absolute paths (symlinks resolved) ``word`` names, or why that cannot be known."""
    built = _substitute(word, state)
    if isinstance(built, Unknown):
        return built
    text, pattern, globbed = built
    if globbed:
        return _expand(text, pattern, state)
    return _path(text, state)


def _substitute(word: Word, state: ShellState) -> tuple[str, str, bool] | Unknown:
    """The word's text and its glob pattern (quoted parts escaped), and whether it globs."""
    pieces = list(word.pieces) or [Piece(word.value, "quoted")]
    text: list[str] = []
    pattern: list[str] = []
    globbed = False
    for index, piece in enumerate(pieces):
        if piece.kind == "process":
            return Unknown(f"a process substitution {piece.text}")
        if piece.kind == "expansion":
            value = _variable(piece.text, state, quoted=piece.quoted)
            if isinstance(value, Unknown):
                return value
            text.append(value)
            pattern.append(glob.escape(value))
            continue
        body = piece.text
        if piece.kind == "plain":
            if "{" in body and _BRACES.search(_unquoted(word)):
                return Unknown(f"a brace expansion in {word.raw}")
            globbed = globbed or _GLOB.search(body) is not None
            if index == 0 and body.startswith("~"):
                tilde = _tilde(body, state, alone=len(pieces) == 1)
                if isinstance(tilde, Unknown):
                    return tilde
                rest = body[body.find("/") :] if "/" in body else ""
                folder = tilde[: len(tilde) - len(rest)]  # what ~ became: taken literally when globbing
                body = tilde
                pattern.append(glob.escape(folder) + rest)
            else:
                pattern.append(body)
        else:
            pattern.append(glob.escape(body))
        text.append(body)
    return "".join(text), "".join(pattern), globbed


def _unquoted(word: Word) -> str:
    """The word with everything but its plain text masked: where brace expansion can happen."""
    return "".join(p.text if p.kind == "plain" else "_" for p in word.pieces)


def _variable(text: str, state: ShellState, *, quoted: bool) -> str | Unknown:
    name = text.strip("${}")
    if name in state.changed:
        return Unknown(f"{text} is set by the command line itself")
    source = _STATIC_VARIABLES.get(text)
    value: str | Path | None = None
    if source == "home":
        value = state.home
    elif source == "cwd":
        value = state.cwd
    elif source == "oldpwd":
        value = state.oldpwd
    if value is None:
        return Unknown(_describe(text))
    value = str(value)
    if not quoted and ("IFS" in state.changed or any(c.isspace() for c in value) or _GLOB.search(value)):
        return Unknown(f"{text} is split or globbed by the shell (it is not quoted)")
    return value


def _describe(text: str) -> str:
    if text.startswith("$(("):
        return f"an arithmetic expansion {text}"
    if text.startswith(("$(", "`")):
        return f"the output of a command substitution {text}"
    if text.startswith("$'"):
        return f"an ANSI-C quoted string {text}"
    return f"the variable {text}, whose value is only known when the command runs"


def _tilde(body: str, state: ShellState, *, alone: bool) -> str | Unknown:
    slash = body.find("/")
    if slash < 0 and not alone:
        return Unknown(f"a tilde expansion {body}…")
    prefix, rest = (body, "") if slash < 0 else (body[:slash], body[slash:])
    if _TILDE_VARIABLE.get(prefix) in state.changed:
        return Unknown(f"{prefix} depends on a variable the command line sets itself")
    if prefix == "~":
        return state.home + rest
    if prefix in ("~+", "~-"):
        folder = state.cwd if prefix == "~+" else state.oldpwd
        return Unknown(f"{prefix} names an unknown folder") if folder is None else f"{folder}{rest}"
    expanded = os.path.expanduser(prefix)
    return expanded + rest  # ~user, or the literal text when there is no such user


def _expand(text: str, pattern: str, state: ShellState) -> list[Path] | Unknown:
    last = pattern.rstrip("/").rsplit("/", 1)[-1]
    if last.startswith((".", "[", "\\")) and any(fnmatch.fnmatchcase(p, last) for p in GUARDED_PROBES):
        return Unknown(f"the pattern {text} may match a guarded file such as .env")
    if not os.path.isabs(pattern) and state.cwd is None:
        return Unknown(f"{text} is relative to a folder that is not known")
    state.globs += 1
    if state.globs > MAX_GLOBS:
        return Unknown(f"the line expands more than {MAX_GLOBS} patterns: {text} is not listed")
    root = None if os.path.isabs(pattern) else str(state.cwd)
    matches = list(itertools.islice(glob.iglob(pattern, root_dir=root), MAX_GLOB_MATCHES + 1))
    if len(matches) > MAX_GLOB_MATCHES:
        return Unknown(f"the pattern {text} matches more than {MAX_GLOB_MATCHES} files")
    if not matches:
        return _path(text, state)  # no match: the shell passes the word as it is
    paths: list[Path] = []
    for match in matches:
        found = _path(match, state)
        if isinstance(found, Unknown):
            return found
        paths.extend(found)
    return paths


def _path(text: str, state: ShellState) -> list[Path] | Unknown:
    if not text:
        return []
    if not os.path.isabs(text):
        if state.cwd is None:
            return Unknown(f"{text} is relative to a folder that is not known")
        text = os.path.join(state.cwd, text)
    proc = _proc_self(os.path.normpath(text), state)
    if isinstance(proc, Unknown):
        return proc
    return [Path(_realpath(proc, state))]


def _realpath(path: str, state: ShellState) -> str:
    """``os.path.realpath`` with the folder's real path remembered for this check: a line naming
    thousands of files in one folder resolves that folder once (the name itself is still followed
    when it is a link)."""
    folder, name = os.path.split(path)
    if not name or name in (".", ".."):
        return os.path.realpath(path)
    real = state.real.get(folder)
    if real is None:
        real = state.real[folder] = os.path.realpath(folder)
    joined = os.path.join(real, name)
    return os.path.realpath(joined) if os.path.islink(joined) else joined


def _proc_self(path: str, state: ShellState) -> str | Unknown:
    """``/proc/self/…`` names the command's process, not ours: map what is knowable."""
    parts = path.split("/")
    if (
        len(parts) < 3
        or parts[1] != "proc"
        or not (parts[2] in ("self", "thread-self") or parts[2].isdigit())
    ):
        return path
    link = parts[3] if len(parts) > 3 else ""
    if parts[2] in ("self", "thread-self") and link == "cwd" and state.cwd is not None:
        return os.path.join(state.cwd, *parts[4:])
    if link == "root":
        return os.path.join("/", *parts[4:])
    return Unknown(f"{path} depends on the process that opens it")
