"""Choosing the snapshot backend of a project: the git store, or the edit journal as the fallback."""

from __future__ import annotations

import hashlib
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
    project_id = store_key(project_id, worktree)
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


def store_key(project_id: str, worktree: Path) -> str:
    """The name of ``worktree``'s snapshot store: the project's id, but for a linked git worktree
    (``git worktree add``, as agentls's worktree sessions are) the id and a hash of its path. They
    are the same project as their checkout (one root commit), but each has its own files: one
    store's index or journal for both would take one's files for the other's."""
    marker = worktree / ".git"
    try:
        linked = marker.is_file() and "/worktrees/" in marker.read_text(encoding="utf-8", errors="replace")
    except OSError:
        linked = False
    if not linked:
        return project_id
    return f"{project_id}-{hashlib.sha256(str(worktree.resolve()).encode()).hexdigest()[:12]}"
