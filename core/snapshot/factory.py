"""Choosing the snapshot backend of a project: the git store, or the edit journal as the fallback."""

from __future__ import annotations

import logging
from pathlib import Path

from core.record import record
from core.snapshot.backend import Snapshots
from core.snapshot.journal import EditJournal, RecordingWorkspace
from core.snapshot.store import SnapshotStore
from core.workspace import Workspace

log = logging.getLogger(__name__)


@record
class SnapshotSetup:
    """The backend, the workspace tools must write through, and why the fallback is used (if it is)."""

    snapshots: Snapshots
    workspace: Workspace
    fallback_reason: str | None = None


def open_snapshots(
    data_dir: Path,
    project_id: str,
    worktree: Path,
    workspace: Workspace,
    *,
    enabled: bool = True,
    max_file_bytes: int = 2_000_000,
    max_blob_bytes: int = 1_000_000,
    max_store_bytes: int = 1_000_000_000,
    keep_days: float = 7,
    use_git: bool = True,
) -> SnapshotSetup:
    """The git store when it can run here; otherwise the journal, wrapping ``workspace`` to record edits."""
    if use_git:
        store = SnapshotStore(
            data_dir,
            project_id,
            worktree,
            enabled=enabled,
            max_file_bytes=max_file_bytes,
            max_blob_bytes=max_blob_bytes,
            max_store_bytes=max_store_bytes,
            keep_days=keep_days,
        )
        if store.enabled:
            return SnapshotSetup(store, workspace)
        reason = store.disabled_reason
    else:
        reason = "git snapshots not used"
    journal = EditJournal(
        data_dir,
        project_id,
        worktree,
        workspace,
        max_file_bytes=max_file_bytes,
        max_store_bytes=max_store_bytes,
        keep_days=keep_days,
    )
    log.info("snapshots of %s use the edit journal: %s", worktree, reason)
    return SnapshotSetup(journal, RecordingWorkspace(workspace, journal), reason)
