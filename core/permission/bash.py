"""The permission requests a bash command line needs.

In order: ``external_directory`` for folders outside the worktree it touches, ``unknown_path``
for words whose files cannot be known before it runs (see ``core.permission.words``) and effects
the checker cannot follow, ``read`` for secret files it reads (searches that descend into folders
included, see ``core.permission.searches``), ``edit`` for project files it writes, then one
``bash`` request per simple command (nested ones included: ``$(…)``, ``sh -c '…'``, ``find -exec``,
``xargs``, the command a wrapper such as ``nice`` or ``sudo`` runs).

A ``bash`` request's patterns are the command as written and, when they differ, the command as a
rule about its program reads it — without ``NAME=value`` words, the program by its name
(``/bin/rm`` → ``rm``) and git's global options dropped (``git -c x=y push`` → ``git push``) —
and every pattern must be allowed: a rule for ``rm`` holds for ``/bin/rm`` and ``X=1 rm``.

The check costs time linear in the line's length; a line longer than ``MAX_COMMAND_CHARS`` is not
read at all and asks as a whole.
"""

from __future__ import annotations

import os
from dataclasses import field, replace
from pathlib import Path

from core.permission.arity import always_pattern
from core.permission.bash_files import is_harmless, is_secret, path_uses
from core.permission.command import SimpleCommand
from core.permission.effects import effects, git_subcommand
from core.permission.nested import expand
from core.permission.request import PermissionAsk
from core.permission.searches import searches
from core.permission.shell import TooDeep, split_commands
from core.permission.words import ShellState, Unknown, is_dynamic, is_glob, resolve_word, set_on_line
from core.record import struct

UNKNOWN_PATH = "unknown_path"
# A longer line is not analysed (reading it would hold the check for too long): it asks whole.
MAX_COMMAND_CHARS = 32 * 1024
# How much of a command a dialog's title shows.
_TITLE_CHARS = 200


@struct
class _Found:
    outside: list[str] = field(default_factory=list)
    unknown: dict[str, str] = field(default_factory=dict)
    reads: dict[str, tuple[Path, str]] = field(default_factory=dict)  # pattern → path, command
    edits: dict[str, tuple[Path, str]] = field(default_factory=dict)
    # The secrets under a folder, by folder and search filters: a line that searches it again
    # does not list it again. ``walked``: entries listed for this line, all searches together.
    secrets: dict[tuple[object, ...], list[Path] | None] = field(default_factory=dict)
    walked: list[int] = field(default_factory=lambda: [0])


def bash_requests(command: str, cwd: Path, worktree: Path) -> list[PermissionAsk]:
    """Every permission ``command`` needs when run in ``cwd`` of the project at ``worktree``."""
    metadata = {"command": command, "cwd": str(cwd)}
    if len(command) > MAX_COMMAND_CHARS:
        return _whole(
            command,
            f"the command is {len(command):,} characters long, more than the {MAX_COMMAND_CHARS:,} "
            "the checker reads: what it runs is not analysed",
            Path(worktree),
            metadata,
        )
    try:
        expanded = expand(split_commands(command))
    except TooDeep as exc:
        return _whole(command, str(exc), Path(worktree), metadata)
    root = Path(os.path.realpath(worktree))
    state = ShellState(cwd=Path(os.path.realpath(cwd)), changed=set_on_line(command))
    found = _Found(unknown=dict(expanded.unknown))
    if state.cwd is not None and not _inside(state.cwd, root):
        found.outside.append(_dir_pattern(state.cwd))
    checked: set[tuple[str, str, Path | None, Path | None]] = set()
    for cmd in expanded.commands:
        # The same command in the same folder finds the same files: check it once.
        key = (cmd.text, cmd.via, state.cwd, state.oldpwd)
        if key not in checked:
            checked.add(key)
            _check(cmd, state, root, found)
        _move(cmd, state)
    requests = _file_requests(found, root, metadata)
    return requests + _command_requests(expanded.commands, metadata)


@struct
class _Dialog:
    """One bash dialog: a command and the commands its wrappers run (``nice rm x``, ``rm x``)."""

    text: str
    patterns: list[str] = field(default_factory=list)
    always: list[str] = field(default_factory=list)
    runs: list[tuple[str, str]] = field(default_factory=list)  # program, the wrapper running it


def _command_requests(commands: list[SimpleCommand], metadata: dict[str, str]) -> list[PermissionAsk]:
    """One request per distinct command; a command a wrapper runs joins its wrapper's request, so
    ``timeout 60 npm test`` is one dialog whose patterns must all be allowed."""
    dialogs: dict[str, _Dialog] = {}
    home: dict[str, str] = {}  # command text → the text of the dialog it is asked in
    for cmd in commands:
        if cmd.text in home:
            continue
        host = home.get(cmd.host) if cmd.host else None
        dialog = dialogs[host] if host is not None else dialogs.setdefault(cmd.text, _Dialog(cmd.text))
        home[cmd.text] = dialog.text
        for pattern, always in _patterns(cmd):
            if pattern not in dialog.patterns:
                dialog.patterns.append(pattern)
            if always not in dialog.always:
                dialog.always.append(always)
        program = cmd.program
        if cmd.via and program is not None:
            dialog.runs.append((program.value.rsplit("/", 1)[-1], cmd.via))
    requests: list[PermissionAsk] = []
    for dialog in dialogs.values():
        title = _short(dialog.text)
        if dialog.runs:
            title += " (" + ", ".join(f"runs {program} through {via}" for program, via in dialog.runs) + ")"
        requests.append(PermissionAsk("bash", dialog.patterns, dialog.always, title, dict(metadata)))
    return requests


def _whole(command: str, reason: str, worktree: Path, metadata: dict[str, str]) -> list[PermissionAsk]:
    """Not every command of the line can be listed: ask for it whole, as unknown and as a command.

    The dialogs carry the line once, as the pattern the rules match: their titles and metadata
    show its start, and they name no "always" patterns of their own (a reply "always" approves
    the pattern, this very line), since a megabyte sent three times to every client would hold
    them up."""
    found = _Found(unknown={command: reason})
    shown = {**metadata, "command": _short(command), "length": str(len(command))}
    whole = PermissionAsk("bash", [command], title=_short(command), metadata=shown)
    return [replace(ask, always=[]) for ask in _file_requests(found, worktree, shown)] + [whole]


def _patterns(cmd: SimpleCommand) -> list[tuple[str, str]]:
    """The command's patterns with their "always" patterns: as written, then as named."""
    found = [(cmd.text, _always(cmd))]
    as_named = canonical(cmd)
    if as_named is not None and as_named[0] != cmd.text:
        found.append(as_named)
    return found


def canonical(cmd: SimpleCommand) -> tuple[str, str] | None:
    """The command as a rule about its program reads it, and its "always" pattern: no ``NAME=value``
    words, the program by its name (``/bin/rm``, ``\\rm``, ``'rm'`` → ``rm``), git's global options
    dropped. ``None`` when the program itself is only known when the line runs."""
    lead = len(cmd.assignments)
    words = cmd.words[lead:]
    if not words or is_dynamic(words[0]):
        return None
    name = words[0].value.rsplit("/", 1)[-1]
    rest = words[1:]
    if name == "git":
        _, after, _ = git_subcommand(rest)
        rest = rest[max(0, len(rest) - len(after) - 1) :] if rest else rest
    if not lead and words[0].raw == name and len(rest) == len(words) - 1:
        return None  # the command reads as written
    values = [name, *(w.value for w in rest)]
    return " ".join([name, *(w.raw for w in rest)]), always_pattern(values)


def _check(cmd: SimpleCommand, state: ShellState, root: Path, found: _Found) -> None:
    opaque = effects(cmd.words[len(cmd.assignments) :]).opaque
    if opaque is not None:
        found.unknown.setdefault(cmd.text, opaque)
    for search in searches(cmd):
        resolved = resolve_word(search.folder, state)
        if isinstance(resolved, Unknown):
            continue  # asked for as an unknown path already: the folder is one of the words
        for folder in resolved:
            if folder.is_dir() and _inside(folder, root):
                key = (folder, search.hidden, search.includes, search.excludes, search.exclude_dirs)
                if key not in found.secrets:
                    found.secrets[key] = search.secrets(folder, found.walked)
                _secret_reads(found.secrets[key], folder, root, cmd, found)
    for use in path_uses(cmd):
        resolved = resolve_word(use.word, state)
        if isinstance(resolved, Unknown):
            found.unknown.setdefault(use.word.raw, resolved.reason)
            continue
        listed = is_glob(use.word)  # a pattern's matches are entries of the folder it lists
        for path in resolved:
            if is_harmless(str(path)):
                continue
            if not _inside(path, root):
                _add(found.outside, _dir_pattern(path if path.is_dir() and not listed else path.parent))
            elif use.access == "write":
                found.edits.setdefault(_pattern(path, root), (path, cmd.text))
            if use.access != "write" and (is_secret(use.word.value) or is_secret(path.name)):
                found.reads.setdefault(_pattern(path, root), (path, cmd.text))


def _secret_reads(
    secrets: list[Path] | None, folder: Path, root: Path, cmd: SimpleCommand, found: _Found
) -> None:
    if secrets is None:  # too many files to look through: ask as for a secret under the folder
        pattern = _pattern(folder, root).rstrip("/") + "/*.env" if folder != root else "*.env"
        found.reads.setdefault(pattern, (folder, cmd.text))
        return
    for path in secrets:
        found.reads.setdefault(_pattern(path, root), (path, cmd.text))


def _move(cmd: SimpleCommand, state: ShellState) -> None:
    """Follow ``cd``/``pushd``/``popd``: where the next commands run (``None`` when unknown)."""
    argv = cmd.argv
    if not argv or argv[0] not in ("cd", "pushd", "popd"):
        return
    words = cmd.words[len(cmd.assignments) + 1 :]
    target = next((w for w in words if not w.value.startswith("-") or w.value == "-"), None)
    before = state.cwd
    if argv[0] == "popd":
        state.cwd = state.stack.pop() if state.stack else None
    elif target is None:
        state.cwd = Path(os.path.realpath(state.home)) if argv[0] == "cd" else None
    elif target.value == "-" and argv[0] == "cd":
        state.cwd = state.oldpwd
    else:
        resolved = resolve_word(target, state)
        state.cwd = None if isinstance(resolved, Unknown) or len(resolved) != 1 else resolved[0]
    if argv[0] == "pushd":
        state.stack.append(before)
    state.oldpwd = before


def _file_requests(found: _Found, root: Path, metadata: dict[str, str]) -> list[PermissionAsk]:
    requests: list[PermissionAsk] = []
    if found.outside:
        requests.append(
            PermissionAsk(
                permission="external_directory",
                patterns=list(found.outside),
                always=list(found.outside),
                title=f"Access outside the project: {', '.join(found.outside)}",
                metadata={**metadata, "directories": [p[:-2] or "/" for p in found.outside]},
            )
        )
    if found.unknown:
        words = list(found.unknown)
        reasons = "; ".join(f"{_short(word)}: {why}" for word, why in found.unknown.items())
        requests.append(
            PermissionAsk(
                permission=UNKNOWN_PATH,
                patterns=words,
                always=words,
                title=f"What this command touches or runs cannot be known before it runs ({reasons})",
                metadata={**metadata, "reasons": {_short(word): why for word, why in found.unknown.items()}},
            )
        )
    for pattern, (path, text) in found.reads.items():
        requests.append(
            PermissionAsk(
                "read",
                [pattern],
                always=[pattern],
                title=f"Read {pattern} (bash: {text})",
                metadata={"filepath": str(path), "command": metadata["command"]},
            )
        )
    for pattern, (path, text) in found.edits.items():
        requests.append(
            PermissionAsk(
                "edit",
                [pattern],
                always=[pattern],
                title=f"Write {pattern} (bash: {text})",
                metadata={"filepath": str(path), "command": metadata["command"]},
            )
        )
    return requests


def _short(text: str) -> str:
    return text if len(text) <= _TITLE_CHARS else text[: _TITLE_CHARS - 1] + "…"


def _always(cmd: SimpleCommand) -> str:
    # Assignments stay in the prefix: approving `ls *` must not approve `LD_PRELOAD=x ls`.
    words = [w.raw for w in cmd.words]
    lead = len(cmd.assignments)
    if lead == len(words):
        return cmd.text
    prefix = always_pattern(words[lead:])
    return " ".join([*words[:lead], prefix]) if lead else prefix


def _pattern(path: Path, root: Path) -> str:
    """The worktree-relative name (absolute outside), as the file tools name it to the rules."""
    if path != root and root in path.parents:
        return path.relative_to(root).as_posix()
    return path.as_posix()


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def _dir_pattern(directory: Path) -> str:
    return str(directory).rstrip("/") + "/*"


def _add(items: list[str], item: str) -> None:
    if item not in items:
        items.append(item)
