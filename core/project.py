"""Opening a project: where it is (git's worktree), its config, and its row in the store.

``open_project`` does what must happen before any service can be built: git's worktree lookup
runs while the store opens (one process, 3-10 ms of waiting, beside the store's crash recovery),
the project is recorded (``open_store``, which a host may run first to answer from the store while
the agent loads), then the config is loaded and checked. On any failure nothing stays open.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

from core.app_config import check_model_refs
from core.config.loader import Layer, ResolvedConfig, load_config
from core.project_store import OpenedStore, open_store
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
    directory: Path, data_dir: Path | None, config_layers: Sequence[Layer], opened: OpenedStore | None = None
) -> OpenedProject:
    """Resolve ``directory``, open the store (with crash recovery), load the config, record the project.

    ``opened``: the store ``open_store`` opened already (closed here if the config fails)."""
    opened = opened or await open_store(directory, data_dir)
    try:
        resolved = load_config(opened.directory, opened.worktree, extra_layers=config_layers)
        check_model_refs(resolved)
    except BaseException:
        await opened.store.close()
        raise
    for warning in resolved.warnings:
        log.warning("config: %s", warning)
    return OpenedProject(
        opened.directory,
        opened.worktree,
        opened.is_git,
        opened.data_dir,
        resolved,
        opened.store,
        opened.project_id,
    )
