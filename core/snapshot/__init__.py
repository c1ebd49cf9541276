"""Step snapshots, patches, revert/unrevert and session diffs (see docs/architecture.md)."""

from core.api import RevertResult
from core.snapshot.backend import GcReport, Patch, Snapshots
from core.snapshot.factory import SnapshotSetup, open_snapshots
from core.snapshot.journal import EditJournal, RecordingWorkspace
from core.snapshot.revert import Reverter
from core.snapshot.store import SnapshotStore, unsafe_worktree_reason
from core.snapshot.summary import SessionDiffs, summary_of

__all__ = [
    "EditJournal",
    "GcReport",
    "Patch",
    "RecordingWorkspace",
    "RevertResult",
    "Reverter",
    "SessionDiffs",
    "SnapshotSetup",
    "SnapshotStore",
    "Snapshots",
    "open_snapshots",
    "summary_of",
    "unsafe_worktree_reason",
]
