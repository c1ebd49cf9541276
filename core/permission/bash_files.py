"""The files a bash command line writes and the secret files it reads, as ``edit`` / ``read`` asks.

A rule that allows ``echo *`` approves a command, not what its redirections do to the project:
``echo x > setup.py`` is a write and answers to ``edit`` for that file, like the write tool. A
command naming an ``.env`` file (``cat .env``, ``source .env``, ``< .env``) answers to ``read`` for
it, so the rules that guard secrets for the read tool guard them in bash too.
"""

from __future__ import annotations

import fnmatch
import os
from pathlib import Path

from core.permission.request import PermissionAsk
from core.permission.shell import Redirect, SimpleCommand

# Commands whose arguments are text, not files.
TEXT_ARGS = frozenset({"echo", "printf", "true", "false", ":", "test", "["})
# The files the read rules guard by default (see core.permission.rules.DEFAULTS).
SECRET_NAMES = ("*.env", "*.env.*")
# Devices a redirection may use without touching any file of the project or elsewhere.
HARMLESS_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/zero"})
_WRITE_OPS = frozenset({">", ">>", ">|", "<>"})
_READ_OPS = frozenset({"<", "<>"})
# Commands that write the files named as their arguments (besides redirections).
_WRITERS = frozenset({"tee"})


def core_op(redirect: Redirect) -> str:
    """The operator without its file-descriptor prefix: ``2>>`` → ``>>``, ``&>`` → ``>``."""
    return redirect.op.lstrip("0123456789&")


def is_harmless(target: str) -> bool:
    """Whether a redirection target is a device such as /dev/null, never a file."""
    return target in HARMLESS_TARGETS or target.startswith("/dev/fd/")


def written(cmd: SimpleCommand) -> list[str]:
    """Targets the command writes: output redirections, and the file arguments of ``tee``."""
    out = [
        r.target.value
        for r in cmd.redirects
        if core_op(r) in _WRITE_OPS and not r.op.endswith("&") and not is_harmless(r.target.value)
    ]
    argv = cmd.argv
    if argv and argv[0] in _WRITERS:
        out.extend(a for a in argv[1:] if not a.startswith("-"))
    return out


def is_secret(value: str) -> bool:
    """Whether a path names a file the read rules guard (``.env``, ``prod.env``, ``.env.local``)."""
    name = value.rstrip("/").rsplit("/", 1)[-1]
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in SECRET_NAMES)


def read_secrets(cmd: SimpleCommand) -> list[str]:
    """Arguments and input redirections of ``cmd`` that name secret files."""
    names = [r.target.value for r in cmd.redirects if core_op(r) in _READ_OPS]
    argv = cmd.argv
    if argv and argv[0] not in TEXT_ARGS:
        names.extend(a for a in argv[1:] if not a.startswith("-"))
    return [n for n in names if is_secret(n)]


def _pattern(path: Path, root: Path) -> str:
    """The worktree-relative name (absolute outside), as the file tools name it to the rules."""
    if path != root and root in path.parents:
        return path.relative_to(root).as_posix()
    return path.as_posix()


def _resolve(value: str, cwd: Path) -> Path | None:
    if "$" in value or "`" in value or not value:
        return None  # depends on the environment: nothing to check statically
    path = Path(os.path.expanduser(value))
    return Path(os.path.realpath(path if path.is_absolute() else cwd / path))


def file_requests(steps: list[tuple[SimpleCommand, Path]], root: Path, command: str) -> list[PermissionAsk]:
    """``read`` asks for secret files, then ``edit`` asks for written files inside the worktree.

    Written files outside the worktree already ask ``external_directory`` for their folder.
    """
    reads: dict[str, PermissionAsk] = {}
    edits: dict[str, PermissionAsk] = {}
    for cmd, cwd in steps:
        for value in read_secrets(cmd):
            path = _resolve(value, cwd)
            if path is not None:
                pattern = _pattern(path, root)
                reads.setdefault(
                    pattern,
                    PermissionAsk(
                        "read",
                        [pattern],
                        always=[pattern],
                        title=f"Read {pattern} (bash: {cmd.text})",
                        metadata={"filepath": str(path), "command": command},
                    ),
                )
        for value in written(cmd):
            path = _resolve(value, cwd)
            if path is None or not (path == root or root in path.parents):
                continue
            pattern = _pattern(path, root)
            edits.setdefault(
                pattern,
                PermissionAsk(
                    "edit",
                    [pattern],
                    always=[pattern],
                    title=f"Write {pattern} (bash: {cmd.text})",
                    metadata={"filepath": str(path), "command": command},
                ),
            )
    return [*reads.values(), *edits.values()]
