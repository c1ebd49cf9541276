"""`agentls run --worktree [NAME]`: make the worktree the session works in, trusted as its repository is."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from cli.trust_prompt import settle_trust
from core.config.paths import data_dir
from core.project_trust import question_for
from core.trust import is_trusted
from core.worktrees import service


async def in_worktree(directory: Path, name: str, *, trust_flag: bool) -> Path:
    """Create the worktree (``name`` empty: the time) and return the folder to work in: the same
    place inside it as ``directory`` has in the checkout. Its project files are trusted as the
    checkout's are (the trust question was settled for the checkout just before)."""
    repo = await asyncio.to_thread(service.repository, directory)
    made = await asyncio.to_thread(service.create, repo, name or service.default_name(), data_dir())
    trusted = trust_flag or (is_trusted(repo) and await asyncio.to_thread(question_for, repo) is None)
    await settle_trust(made.path, trust_flag=trusted, terminal=False)
    print(
        f"agentls: working in the worktree {made.name} ({made.path}) on branch {made.branch}", file=sys.stderr
    )
    print(
        f"agentls: `agentls worktrees diff {made.name}` shows its changes, "
        f"`agentls worktrees merge {made.name}` brings them here",
        file=sys.stderr,
    )
    return made.path / _inside(directory, repo)


def _inside(directory: Path, repo: Path) -> Path:
    """Where ``directory`` is in the checkout (the worktree's top when it is not in it)."""
    resolved = directory.resolve()
    return resolved.relative_to(repo) if resolved.is_relative_to(repo) else Path()
