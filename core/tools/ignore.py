"""``.gitignore`` rules and a directory walker that honours them (nested files included).

The walker parses ignore files itself instead of asking ``git ls-files``: it then behaves the same
inside and outside git repositories and for untracked files, and needs no subprocess per call.
Supported: comments, blank lines, ``!`` negation, trailing ``/`` (directories only), anchoring by a
leading or inner ``/``, ``*``, ``?``, ``[...]``, ``**`` and backslash escapes; the deepest ignore
file that has an opinion decides, and within one file the last matching line wins.
"""

from __future__ import annotations

import os
import re
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from core.record import record

# Names nobody wants to see in a listing even when no .gitignore mentions them.
# fmt: off
JUNK_NAMES: frozenset[str] = frozenset({
    "node_modules", "__pycache__", ".git", ".hg", ".svn", ".venv", "venv", "dist",
    "build", "target", ".idea", ".vscode", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".tox",
    ".nox", ".next", ".nuxt", ".cache", "coverage", ".coverage", "htmlcov", ".gradle",
    ".DS_Store", ".terraform",
})
# fmt: on


@record
class Rule:
    regex: re.Pattern[str]
    negate: bool
    dir_only: bool
    basename: bool  # no slash in the pattern: it matches a name at any depth


def _translate(glob: str, braces: bool = False) -> str:
    out, i, n = [], 0, len(glob)
    depth = 0
    while i < n:
        c = glob[i]
        if braces and c == "{":
            out.append("(?:")
            depth += 1
            i += 1
        elif braces and depth and c == "}":
            out.append(")")
            depth -= 1
            i += 1
        elif braces and depth and c == ",":
            out.append("|")
            i += 1
        elif glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "\\" and i + 1 < n:
            out.append(re.escape(glob[i + 1]))
            i += 2
        elif c == "[" and (close := glob.find("]", i + 2)) != -1:
            body = glob[i + 1 : close]
            if body.startswith("!"):
                body = "^" + body[1:]
            out.append(f"[{body.replace(chr(92), chr(92) * 2)}]")
            i = close + 1
        else:
            out.append(re.escape(c))
            i += 1
    return "".join(out)


def glob_matcher(pattern: str) -> Callable[[str, str], bool]:
    """A test ``(relative_path, name) -> bool`` for a glob as ripgrep's ``--glob`` reads it.

    A pattern without ``/`` matches a name at any depth; one with ``/`` matches the path relative to
    the search root. ``*`` stays within a folder, ``**`` crosses folders, ``{a,b}`` is an alternative.
    """
    basename = "/" not in pattern.rstrip("/")
    regex = re.compile(_translate(pattern.lstrip("/").removeprefix("./"), braces=True) + r"\Z", re.DOTALL)
    if basename:
        return lambda rel, name: regex.match(name) is not None
    return lambda rel, name: regex.match(rel) is not None


def parse_rule(line: str) -> Rule | None:
    """One ``.gitignore`` line as a rule, or None for blanks and comments."""
    if line.endswith("\n"):
        line = line[:-1]
    if not line.endswith("\\ "):
        line = line.rstrip()
    if not line or line.startswith("#"):
        return None
    negate = line.startswith("!")
    if negate or line.startswith("\\!") or line.startswith("\\#"):
        line = line[1:]
    dir_only = line.endswith("/")
    line = line.rstrip("/")
    if not line:
        return None
    basename = "/" not in line
    line = line.lstrip("/")
    return Rule(re.compile(_translate(line) + r"\Z", re.DOTALL), negate, dir_only, basename)


class IgnoreFile:
    """The rules of one ignore file, which apply to paths below ``base``."""

    def __init__(self, base: Path, rules: Iterable[Rule]) -> None:
        self.prefix = base.as_posix().rstrip("/") + "/"
        self.rules = list(rules)

    @classmethod
    def from_text(cls, base: Path, text: str) -> IgnoreFile:
        """Parse the text of a ``.gitignore`` that sits in ``base``."""
        return cls(base, filter(None, (parse_rule(ln) for ln in text.splitlines())))

    def decide(self, path: str, is_dir: bool) -> bool | None:
        """True ignored, False re-included by ``!``, None when no rule speaks about ``path``."""
        if not path.startswith(self.prefix):
            return None
        rel = path[len(self.prefix) :]
        name = rel.rsplit("/", 1)[-1]
        for rule in reversed(self.rules):
            if rule.dir_only and not is_dir:
                continue
            if rule.regex.match(name if rule.basename else rel):
                return not rule.negate
        return None


def load(directory: Path) -> IgnoreFile | None:
    """The ``.gitignore`` of ``directory``, if it has one that can be read."""
    try:
        text = (directory / ".gitignore").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    return IgnoreFile.from_text(directory, text)


def is_ignored(stack: list[IgnoreFile], path: Path, is_dir: bool) -> bool:
    """Whether the deepest ignore file with an opinion ignores ``path``."""
    text = path.as_posix()
    for ignore_file in reversed(stack):
        decision = ignore_file.decide(text, is_dir)
        if decision is not None:
            return decision
    return False


@record
class Entry:
    path: Path
    is_dir: bool


def walk(
    root: Path,
    *,
    top: Path | None = None,
    hidden: bool = False,
    skip_dirs: frozenset[str] = frozenset({".git"}),
    extra: Iterable[str] = (),
) -> Iterator[Entry]:
    """Files and folders below ``root``, breadth first, sorted by name within a folder.

    ``.gitignore`` files from ``top`` (the worktree) down to ``root`` apply as well as nested ones;
    ``extra`` are more ignore patterns relative to ``root``. Symlinked folders are not followed.
    """
    stack: list[IgnoreFile] = []
    if top is not None and top in root.parents:
        # reversed(parents) runs from the file-system root down to root's parent.
        for folder in reversed(root.parents):
            if folder == top or top in folder.parents:
                found = load(folder)
                if found is not None:
                    stack.append(found)
    always = IgnoreFile(root, [r for r in (parse_rule(p) for p in extra) if r is not None])
    queue: deque[tuple[Path, list[IgnoreFile]]] = deque([(root, stack)])
    while queue:
        folder, inherited = queue.popleft()
        own = load(folder)
        rules = [*inherited, own] if own is not None else inherited
        try:
            with os.scandir(folder) as it:
                items = sorted(it, key=lambda e: e.name)
        except OSError:
            continue
        for item in items:
            if item.name in skip_dirs or (not hidden and item.name.startswith(".")):
                continue
            try:
                is_dir = item.is_dir(follow_symlinks=False)
            except OSError:
                continue
            path = Path(item.path)
            if always.decide(path.as_posix(), is_dir) or is_ignored(rules, path, is_dir):
                continue
            yield Entry(path, is_dir)
            if is_dir:
                queue.append((path, rules))
