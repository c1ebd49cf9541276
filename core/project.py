"""Opening a project: where it is (git's worktree), its config, and its row in the store.

``open_project`` does what must happen before any service can be built: git's worktree lookup
runs while the store opens (one process, 3-10 ms of waiting, beside the store's crash recovery),
then the config is loaded and checked and the project recorded. On any failure nothing stays open.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from pathlib import Path

from core.app_config import check_model_refs
from core.config.loader import Layer, ResolvedConfig, load_config
from core.config.paths import data_dir as default_data_dir
from core.config.paths import git_top_level
from core.record import record
from core.storage.store import Store

log = logging.getLogger(__name__)


@record(eq=False, repr=False)  # never compared or printed
class OpenedProject:
    """A project ready for its services: folders, resolved config, the open store and its id."""

    directory: Path
    worktree: Path
    is_git: bool
    data_dir: Path
    resolved: ResolvedConfig
    store: Store
    project_id: str


async def open_project(
    directory: Path, data_dir: Path | None, config_layers: Sequence[Layer]
) -> OpenedProject:
    """Resolve ``directory``, open the store (with crash recovery), load the config, record the project."""
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
        resolved = load_config(directory, worktree, extra_layers=config_layers)
        check_model_refs(resolved)
        project = await store.ensure_project(worktree, git=top is not None)
    except BaseException:
        await store.close()
        raise
    for warning in resolved.warnings:
        log.warning("config: %s", warning)
    return OpenedProject(directory, worktree, top is not None, base, resolved, store, project.id)
