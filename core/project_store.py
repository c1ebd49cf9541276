"""A project's store opened before its config: ``open_store`` finds the worktree (git), opens the
store (with crash recovery) and records the project. ``core.project.open_project`` builds on it; a
long-lived host runs it first, so that it can answer from the store (the session list, a transcript)
while the rest of the agent loads. Cheap to import: no config, no agent.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from core.config.paths import data_dir as default_data_dir
from core.config.paths import git_top_level
from core.record import record
from core.storage.store import Store


@record(eq=False, repr=False)  # never compared or printed
class OpenedStore:
    """A project's folders, its open store and its id: what reading its sessions needs."""

    directory: Path
    worktree: Path
    is_git: bool
    data_dir: Path
    store: Store
    project_id: str


async def open_store(directory: Path, data_dir: Path | None) -> OpenedStore:
    """Resolve ``directory``, open the store (with crash recovery) and record the project; no config
    is read, so a host can answer from the store while the rest of the agent loads."""
    directory = await asyncio.to_thread(directory.resolve)
    # One git call says both where the worktree is and whether it is one; the store's folder does
    # not depend on it: it runs while the store opens.
    git = asyncio.create_task(asyncio.to_thread(git_top_level, directory))
    try:
        base = (data_dir or default_data_dir()).resolve()
        base.mkdir(parents=True, exist_ok=True)
        store = await Store.open(base / "agentls.db")
    except BaseException:
        git.cancel()  # its thread ends on its own; no task is left behind
        await asyncio.wait([git])
        raise
    try:
        top = await git
        worktree = top or directory
        project = await store.ensure_project(worktree, git=top is not None)
    except BaseException:
        await store.close()
        raise
    return OpenedStore(directory, worktree, top is not None, base, store, project.id)
