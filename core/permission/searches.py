"""Commands that read every file under a folder, and the secret files among them.

``cat .env`` names the file it reads, so the read rules that guard secrets apply to it by name.
``grep -r TOKEN .`` names only a folder, yet prints what ``.env`` holds: the checker looks through
the folders such a search descends into, as the search would, and asks ``read`` for each secret
file it finds there (``*.env``, ``*.env.*``, the names the default read rules guard).

What each search reads:

- ``grep``/``egrep``/``fgrep`` with ``-r``/``-R``/``--recursive``/``-d recurse``, and ``rgrep``:
  every file, hidden ones included, less ``--include``/``--exclude``/``--exclude-dir``;
- ``rg``: files that are not hidden; with ``--hidden``, ``-.`` or ``-uu`` hidden ones too; less
  ``-g``/``--glob`` filters (``.gitignore`` is not read: a secret it ignores still asks);
- ``ag``: likewise, hidden files with ``-u``/``--unrestricted``/``--hidden``; ``ack``: every file;
- ``git grep`` with ``--untracked`` or ``--no-index`` (without, it reads only tracked files,
  whose contents the repository's history holds already);
- ``diff -r``; ``find … -exec/-execdir/-ok cmd {}`` (the files it finds, by ``-name`` when
  given without negation).

A folder holding more than ``MAX_ENTRIES`` entries (or past that many listed for the line's
searches together) is not listed: the search asks ``read`` for ``<folder>/*.env`` instead, as for
a secret it may read.
"""

from __future__ import annotations

import fnmatch
import os
from pathlib import Path

from core.permission.bash_files import is_secret
from core.permission.command import SimpleCommand, Word, plain_word
from core.permission.effects import COMMANDS, git_subcommand
from core.permission.nested import find_roots
from core.permission.options import Option, parse
from core.record import record

# Entries looked at in one folder tree before the search is taken to read any secret there.
MAX_ENTRIES = 20_000
_GREPS = frozenset({"grep", "egrep", "fgrep", "rgrep"})
_RECURSIVE = frozenset({"-r", "-R", "--recursive", "--dereference-recursive"})
_PATTERN_GIVEN = frozenset({"-e", "--regexp", "-f", "--file"})
_AG_VALUED = frozenset({"-A", "-B", "-C", "-G", "-g", "-m", "--depth", "--file-search-regex", "--ignore"})
_FIND_RUNNERS = frozenset({"-exec", "-execdir", "-ok", "-okdir"})


@record
class Search:
    """A folder a command reads every file of: ``hidden`` files too or not, and the name filters."""

    folder: Word
    hidden: bool = True
    includes: tuple[str, ...] = ()
    excludes: tuple[str, ...] = ()
    exclude_dirs: tuple[str, ...] = ()

    def secrets(self, folder: Path, walked: list[int] | None = None) -> list[Path] | None:
        """The secret files under ``folder`` the search reads (None: too many entries to tell).
        ``walked[0]``: the entries listed so far for the line, counted against ``MAX_ENTRIES``."""
        found: list[Path] = []
        counter = walked if walked is not None else [0]
        stack = [str(folder)]
        while stack:
            try:
                entries = os.scandir(stack.pop())
            except OSError:
                continue
            with entries:
                for entry in entries:
                    counter[0] += 1
                    if counter[0] > MAX_ENTRIES:
                        return None
                    name = entry.name
                    if not self.hidden and name.startswith("."):
                        continue
                    if entry.is_dir(follow_symlinks=False):
                        if not _matches(name, self.exclude_dirs):
                            stack.append(entry.path)
                    elif is_secret(name) and self._wanted(name):
                        found.append(Path(entry.path))
        return sorted(found)

    def _wanted(self, name: str) -> bool:
        return (not self.includes or _matches(name, self.includes)) and not _matches(name, self.excludes)


def searches(cmd: SimpleCommand) -> list[Search]:
    """The folders ``cmd`` searches file by file (none for a command that reads only what it names)."""
    words = cmd.words[len(cmd.assignments) :]
    if not words:
        return []
    name = words[0].value.rsplit("/", 1)[-1]
    args = words[1:]
    if name in _GREPS:
        return _grep(name, args)
    if name in ("rg", "ag", "ack"):
        return _rg(name, args)
    if name == "git":
        sub, rest, _ = git_subcommand(args)
        return _git_grep(rest) if sub == "grep" else []
    if name == "diff":
        parsed = parse(args, COMMANDS["diff"].valued)
        recursive = any(o.name in ("-r", "--recursive") for o in parsed.options)
        return [Search(w) for w in parsed.operands] if recursive else []
    if name == "find":
        return _find(words)
    return []


def _grep(name: str, args: list[Word]) -> list[Search]:
    parsed = parse(args, COMMANDS["grep"].valued)
    options = parsed.options
    recursive = name == "rgrep" or any(
        o.name in _RECURSIVE or (o.name in ("-d", "--directories") and _value(o) == "recurse")
        for o in options
    )
    if not recursive:
        return []
    return [
        Search(
            folder,
            True,
            _values(options, "--include"),
            _values(options, "--exclude"),
            _values(options, "--exclude-dir"),
        )
        for folder in _folders(parsed.operands, options)
    ]


def _rg(name: str, args: list[Word]) -> list[Search]:
    valued = COMMANDS["rg"].valued if name == "rg" else _AG_VALUED
    parsed = parse(args, valued, longs=("--hidden", "--unrestricted", "--no-ignore", "--files"))
    options = parsed.options
    if any(o.name == "--files" for o in options):
        return []  # names only: no file is read
    unrestricted = sum(1 for o in options if o.name in ("-u", "--unrestricted"))
    hidden = (
        name == "ack"
        or any(o.name in ("--hidden", "-.") for o in options)
        or unrestricted >= (2 if name == "rg" else 1)
    )
    globs = _values(options, "-g") + _values(options, "--glob") + _values(options, "--iglob")
    includes = tuple(g for g in globs if not g.startswith("!"))
    excludes = tuple(g[1:] for g in globs if g.startswith("!"))
    return [Search(folder, hidden, includes, excludes) for folder in _folders(parsed.operands, options)]


def _git_grep(args: list[Word]) -> list[Search]:
    parsed = parse(args, frozenset({"-e", "-f", "-A", "-B", "-C", "-m", "--max-depth"}))
    names = {o.name for o in parsed.options}
    if not names & {"--untracked", "--no-index"}:
        return []
    return [Search(folder) for folder in _folders(parsed.operands, parsed.options)]


def _find(words: list[Word]) -> list[Search]:
    values = [w.value for w in words]
    runs_on_files = any(
        value in _FIND_RUNNERS and "{}" in " ".join(values[index + 1 :]) for index, value in enumerate(values)
    )
    if not runs_on_files:
        return []
    negated = any(v in ("!", "-not", "-o", "-or", "-path", "-ipath", "-regex", "-iregex") for v in values)
    names = tuple(
        values[i + 1] for i, v in enumerate(values[:-1]) if v in ("-name", "-iname") and not negated
    )
    return [Search(folder, True, names) for folder in find_roots(words)]


def _folders(operands: list[Word], options: list[Option]) -> list[Word]:
    """The folders a search looks in: its operands but the first, which is the pattern, unless
    the pattern came with ``-e``/``-f``; ``.`` when it names none."""
    given = any(o.name in _PATTERN_GIVEN for o in options)
    folders = operands if given else operands[1:]
    return folders or [plain_word(".")]


def _values(options: list[Option], name: str) -> tuple[str, ...]:
    return tuple(o.value.value for o in options if o.name == name and o.value is not None)


def _value(option: Option) -> str:
    return option.value.value if option.value is not None else ""


def _matches(name: str, patterns: tuple[str, ...]) -> bool:
    return any(
        fnmatch.fnmatchcase(name, p) or fnmatch.fnmatchcase(name, p.rsplit("/", 1)[-1]) for p in patterns
    )
