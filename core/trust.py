"""Workspace trust: folders whose own configuration the agent must not act on.

An editor that has not trusted a folder (VS Code's Restricted Mode) says so when it starts the
server (``initializationOptions.untrusted``). In such a folder the agent ignores everything in it
that could run code or widen what the agent may do: its config files (``agentls.json`` /
``.agentls/agentls.json`` in every folder from the worktree down: MCP servers, permission rules,
providers, ``{file:…}`` substitutions, instruction URLs), its command files (``.agentls/commands``,
``.claude/commands``, ``.opencode/commands``: ``!`cmd``` runs a shell), its agent files
(``.agentls/agent``: their own permissions) and skills (``.agentls/skills``: scripts). The user's
own config, commands, agents and skills, and the editor's settings, still apply; the project's
instruction files (``AGENTS.md`` …) are read as before: they are text, and every tool still asks
as the user's rules say.

The set is per process: one server serves one editor's folders, and the editor starts a new
server when the user grants trust.
"""

from __future__ import annotations

import logging
from pathlib import Path

log = logging.getLogger(__name__)

_untrusted: set[Path] = set()


def distrust(folder: Path) -> None:
    """Treat ``folder`` and everything below it as untrusted for this process."""
    resolved = folder.resolve()
    if resolved not in _untrusted:
        log.info("workspace %s is untrusted: its config, commands, agents and skills are ignored", resolved)
    _untrusted.add(resolved)


def is_trusted(path: Path) -> bool:
    """Whether the project files at ``path`` may be acted on (no untrusted folder holds it)."""
    if not _untrusted:
        return True
    resolved = path.resolve()
    return not any(resolved == u or resolved.is_relative_to(u) for u in _untrusted)


def forget(folder: Path) -> None:
    """Trust ``folder`` again in this process: the user trusted it after it was held back."""
    _untrusted.discard(folder.resolve())


def trust_all() -> None:
    """Forget every untrusted folder (tests start each server anew; in-process ones call this)."""
    _untrusted.clear()
