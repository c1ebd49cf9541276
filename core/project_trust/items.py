"""What a project holds that asks for the user's trust: the files ``core.trust`` ignores until then.

Counted: config files (``agentls.json``/``agentls.jsonc``, also in ``.agentls/``, in every folder
from the worktree down to the working directory: MCP servers are programs, permission rules can
allow commands, providers choose where the code is sent), command files (agentls's, OpenCode's and
Claude Code's: a ``!`cmd``` line runs a shell), agent files (their own permissions) and skills
(scripts), and Claude Code settings files that hold ``hooks`` (commands; see ``core.hooks``).
Not counted: instruction files (``AGENTS.md``, ``CLAUDE.md``): they are text the model reads, like
any file of the project, and every tool still asks as the user's own rules say — which is how other
agents read them too. A project without any counted item is not asked about.

tests/unit/project_trust/test_items.py checks that ``ITEMS`` covers every project path the core
reads only when trusted.
"""

from __future__ import annotations

import json
from pathlib import Path

# Relative to the worktree; a folder covers everything in it.
ITEMS = (
    "agentls.json",
    "agentls.jsonc",
    ".agentls",
    ".claude/commands",
    ".opencode/command",
    ".opencode/commands",
)
# Counted when they configure hooks (a settings file with only permissions changes nothing here).
HOOK_FILES = (".claude/settings.json", ".claude/settings.local.json")
# The config files that count in every folder between the worktree and the working directory.
NESTED = ("agentls.json", "agentls.jsonc", ".agentls/agentls.json", ".agentls/agentls.jsonc")


def found(directory: Path, worktree: Path) -> list[str]:
    """The counted items that exist, as paths relative to ``worktree`` (sorted; empty: nothing to trust)."""
    hits = {item for item in ITEMS if (worktree / item).exists()}
    hits |= {name for name in HOOK_FILES if _has_hooks(worktree / name)}
    if directory != worktree and directory.is_relative_to(worktree):
        folder = directory
        while folder != worktree:
            hits |= {str((folder / n).relative_to(worktree)) for n in NESTED if (folder / n).exists()}
            folder = folder.parent
    return sorted(hits)


def _has_hooks(path: Path) -> bool:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and bool(data.get("hooks"))
