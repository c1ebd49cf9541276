"""Every command a session can run: the built-in ones, then the user's (config and files)."""

from __future__ import annotations

import logging
from dataclasses import field
from pathlib import Path

from core.commands.files import command_folders, read_folder
from core.commands.model import CommandFileError, CommandInfo
from core.config.schema import CommandConfig
from core.record import struct

log = logging.getLogger(__name__)

# What the core itself runs; a user command cannot take one of these names.
BUILTIN = (
    CommandInfo("compact", "Summarise the conversation so far to free the model's context", "builtin"),
    CommandInfo(
        "undo",
        "Undo the last turn (its message and file changes); with hunk ids or all, undo those changes",
        "builtin",
        hint="[all | hunk ids]",
    ),
    CommandInfo("redo", "Bring back what the last /undo took away", "builtin"),
    CommandInfo("init", "Write or update AGENTS.md for this project", "builtin", hint="[what to stress]"),
    CommandInfo("new", "Start a new session", "builtin", hint="[title]"),
    CommandInfo(
        "rewind",
        "List your messages to go back to; with an id, undo it and everything after",
        "builtin",
        hint="[message id]",
    ),
    CommandInfo("model", "Show the models, or check the one to use next", "builtin", hint="[provider/model]"),
    CommandInfo("agent", "Show the agents, or check the one to use next", "builtin", hint="[agent]"),
    CommandInfo(
        "mode", "Show or set how edits land: ask, auto (review after) or plan", "builtin", hint="[mode]"
    ),
    CommandInfo("effort", "Show or set how hard the model thinks", "builtin", hint="[level]"),
    CommandInfo("export", "The session as Markdown, or written to a file", "builtin", hint="[file]"),
    CommandInfo(
        "review",
        "The agent reviews code: the uncommitted changes, a commit, a branch against its base, or A..B",
        "builtin",
        hint="[commit | branch | ref | A..B]",
    ),
    CommandInfo("changes", "List the agent's changes still to review", "builtin"),
    CommandInfo("keep", "Keep the agent's changes: all, or by hunk id", "builtin", hint="[all | hunk ids]"),
)


@struct
class Catalog:
    """The commands by name, and the files that could not be read."""

    commands: dict[str, CommandInfo] = field(default_factory=dict)
    errors: list[CommandFileError] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def load_catalog(
    configured: dict[str, CommandConfig], worktree: Path, user_config_dir: Path, home: Path
) -> Catalog:
    """Built-in commands, then user files and config entries, lowest precedence first.

    The ``command`` config key sits between the user's folders and the project's: it beats a file of
    the user's, and a file in the project beats it (the config merges its own layers beforehand).
    """
    catalog = Catalog(commands={c.name: c for c in BUILTIN})
    folders = command_folders(worktree, user_config_dir, home)
    user = [f for f in folders if f.level == "user"]
    project = [f for f in folders if f.level == "project"]
    for folder in user:
        _add(catalog, read_folder(folder.path, catalog.errors))
    _add(catalog, [_from_config(name, entry) for name, entry in configured.items()])
    for folder in project:
        _add(catalog, read_folder(folder.path, catalog.errors))
    return catalog


# Built-ins that came after teams had commands of these names (a `/review` in `.claude/commands/` is
# common): a user's command of the same name replaces them, so that it keeps working unchanged.
REPLACEABLE = frozenset(
    {"new", "rewind", "model", "agent", "mode", "effort", "export", "review", "changes", "keep"}
)


def _add(catalog: Catalog, commands: list[CommandInfo]) -> None:
    for command in commands:
        old = catalog.commands.get(command.name)
        if old is not None and old.kind == "builtin" and command.name in REPLACEABLE:
            message = f"command /{command.name} of {command.source} replaces the built-in /{command.name}"
            log.info("%s", message)
            catalog.warnings.append(message)
        elif old is not None and old.kind == "builtin":
            message = f"command /{command.name} of {command.source} is not used: /{command.name} is built in"
            log.warning("%s", message)
            catalog.warnings.append(message)
            continue
        if old is not None:
            log.info("command /%s of %s replaces the one of %s", command.name, command.source, old.source)
        catalog.commands[command.name] = command


def _from_config(name: str, entry: CommandConfig) -> CommandInfo:
    template = entry.template.strip()
    return CommandInfo(
        name=name,
        description=entry.description or template.splitlines()[0][:80],
        kind="user",
        template=template,
        agent=entry.agent,
        model=entry.model,
        subtask=entry.subtask,
        source="config",
    )
