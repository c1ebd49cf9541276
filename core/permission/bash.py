"""The permission requests a bash command line needs: its directories outside the worktree, then
one request per simple command."""

from __future__ import annotations

import os
import re
from pathlib import Path

from core.permission.arity import always_pattern
from core.permission.bash_files import TEXT_ARGS, file_requests, is_harmless
from core.permission.request import PermissionAsk
from core.permission.shell import SimpleCommand, split_commands

_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
_GLOB_CHARS = re.compile(r"[*?\[]")


def bash_requests(command: str, cwd: Path, worktree: Path) -> list[PermissionAsk]:
    """``external_directory`` (when needed), ``read`` of secret files and ``edit`` of written ones,
    then one ``bash`` request per simple command."""
    commands = split_commands(command)
    root = Path(os.path.realpath(worktree))
    outside: list[str] = []
    current = Path(os.path.realpath(cwd))
    if not _inside(current, root):
        outside.append(_dir_pattern(current))
    steps: list[tuple[SimpleCommand, Path]] = []
    for cmd in commands:
        steps.append((cmd, current))
        current = _collect_outside(cmd, current, root, outside)
    requests: list[PermissionAsk] = []
    metadata = {"command": command, "cwd": str(cwd)}
    if outside:
        requests.append(
            PermissionAsk(
                permission="external_directory",
                patterns=outside,
                always=list(outside),
                title=f"Access outside the project: {', '.join(outside)}",
                metadata={**metadata, "directories": [p[:-2] or "/" for p in outside]},
            )
        )
    requests.extend(file_requests(steps, root, command))
    seen: set[str] = set()
    for cmd in commands:
        if cmd.text in seen:
            continue
        seen.add(cmd.text)
        requests.append(
            PermissionAsk(
                permission="bash",
                patterns=[cmd.text],
                always=[_always(cmd)],
                title=cmd.text,
                metadata=dict(metadata),
            )
        )
    return requests


def _always(cmd: SimpleCommand) -> str:
    # Assignments stay in the prefix: approving `ls *` must not approve `LD_PRELOAD=x ls`.
    words = [w.raw for w in cmd.words]
    lead = len(cmd.assignments)
    if lead == len(words):
        return cmd.text
    prefix = always_pattern(words[lead:])
    return " ".join([*words[:lead], prefix]) if lead else prefix


def _collect_outside(cmd: SimpleCommand, cwd: Path, root: Path, outside: list[str]) -> Path:
    """Add the outside directories ``cmd`` touches; returns the working directory after it."""
    argv = cmd.argv
    candidates = [
        r.target.value
        for r in cmd.redirects
        if not r.op.endswith("&") and not r.op.endswith("<<<") and not is_harmless(r.target.value)
    ]
    if argv and argv[0] == "cd":
        target = next((a for a in argv[1:] if not a.startswith("-")), "~")
        if target == "-":
            return cwd
        resolved = _resolve(target, cwd)
        if resolved is None:
            return cwd
        if not _inside(resolved, root):
            _add(outside, _dir_pattern(resolved))
        return resolved
    if argv and argv[0] not in TEXT_ARGS:
        candidates.extend(argv[1:])
    for value in candidates:
        path = _path_of(value, cwd)
        if path is not None and not _inside(path, root):
            _add(outside, _dir_pattern(path if path.is_dir() else path.parent))
    return cwd


def _path_of(value: str, cwd: Path) -> Path | None:
    """The resolved path an argument names, or None when it does not look like a path."""
    if value.startswith("-"):
        if "=" not in value:
            return None
        value = value.split("=", 1)[1]
    if not value or _URL.match(value):
        return None
    glob = _GLOB_CHARS.search(value)
    if glob is not None:
        value = value[: glob.start()]
        value = value[: value.rfind("/") + 1] if "/" in value else ""
        if not value:
            return None
    if not (value.startswith(("/", "~", ".", "$HOME", "${HOME}")) or "/" in value):
        # A bare name is a path only if it exists; it matters when it is a symlink leading out.
        return _resolve(value, cwd) if os.path.islink(cwd / value) else None
    return _resolve(value, cwd)


def _resolve(value: str, cwd: Path) -> Path | None:
    home = os.path.expanduser("~")
    for var in ("${HOME}", "$HOME"):
        if value == var or value.startswith(var + "/"):
            value = home + value[len(var) :]
    if "$" in value or "`" in value:
        return None  # depends on the environment: nothing to check statically
    path = Path(os.path.expanduser(value))
    if not path.is_absolute():
        path = cwd / path
    return Path(os.path.realpath(path))


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def _dir_pattern(directory: Path) -> str:
    return str(directory).rstrip("/") + "/*"


def _add(items: list[str], item: str) -> None:
    if item not in items:
        items.append(item)
