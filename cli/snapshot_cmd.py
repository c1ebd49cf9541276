"""`agentls snapshots du|gc` (the snapshot stores' size and cleanup) and `agentls diff SESSION [MESSAGE]`."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path
from typing import Any

from agentls.boot import UsageError
from core.api import unrecorded_warning
from core.config.loader import load_config
from core.config.paths import data_dir as default_data_dir
from core.errors import ConfigError
from core.message.models import MessageWithParts, Session
from core.record import record
from core.snapshot.backend import Snapshots
from core.snapshot.history import step_patches
from core.snapshot.journal import EditJournal
from core.snapshot.store import SnapshotStore
from core.snapshot.summary import SessionDiffs, summary_of
from core.storage.messages import PartFilter
from core.storage.store import DB_NAME, Store
from core.workspace import DiskWorkspace

log = logging.getLogger(__name__)

_JOURNAL_SUFFIX = ".journal"
_DATA_HELP = "agentls data folder (default: AGENTLS_DATA_DIR or ~/.local/share/agentls)"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `snapshots` and `diff` commands."""
    snap = subparsers.add_parser("snapshots", help="inspect and clean the snapshot stores")
    actions = snap.add_subparsers(dest="action", metavar="ACTION", required=True)
    du = actions.add_parser("du", help="disk use of each project's snapshot store")
    du.add_argument("--json", action="store_true", help="print JSON")
    du.add_argument("--data-dir", type=Path, default=None, help=_DATA_HELP)
    du.set_defaults(func=run_du)
    gc = actions.add_parser("gc", help="drop old snapshots and keep each store under its size cap")
    gc.add_argument("--data-dir", type=Path, default=None, help=_DATA_HELP)
    gc.add_argument("--keep-days", type=float, default=None, help="override the config's keep_days")
    gc.add_argument("--max-bytes", type=int, default=None, help="override the config's max_store_bytes")
    gc.set_defaults(func=run_gc)

    diff = subparsers.add_parser("diff", help="print the unified diff of what the agent changed in a session")
    diff.add_argument("session", help="session id")
    diff.add_argument("message", nargs="?", default=None, help="only this user turn (or assistant message)")
    diff.add_argument("--data-dir", type=Path, default=None, help=_DATA_HELP)
    diff.set_defaults(func=run_diff)


@record
class StoreDir:
    """One project's snapshot folder: the git store or the edit journal."""

    path: Path
    project_id: str
    journal: bool
    worktree: Path | None


def _base(args: argparse.Namespace) -> Path:
    given: Path | None = args.data_dir
    return given if given is not None else default_data_dir()


def store_dirs(base: Path) -> list[StoreDir]:
    """Every snapshot store under the data folder, with the project it belongs to when known."""
    root = base / "snapshot"
    found: list[StoreDir] = []
    for path in sorted(root.iterdir()) if root.is_dir() else []:
        if not path.is_dir():
            continue
        journal = path.name.endswith(_JOURNAL_SUFFIX)
        project_id = path.name.removesuffix(_JOURNAL_SUFFIX)
        worktree: Path | None = None
        meta = path / "agentls.json"
        if meta.is_file():
            try:
                worktree = Path(json.loads(meta.read_text(encoding="utf-8"))["worktree"])
            except (ValueError, KeyError, TypeError):
                log.warning("unreadable %s", meta)
        found.append(StoreDir(path, project_id, journal, worktree))
    return found


def _size(path: Path) -> int:
    return sum(p.lstat().st_size for p in path.rglob("*") if p.is_file())


def run_du(args: argparse.Namespace) -> int:
    """Print each store's size, then the total."""
    rows = [(d, _size(d.path)) for d in store_dirs(_base(args))]
    total = sum(size for _, size in rows)
    if args.json:
        stores = [
            {
                "projectID": d.project_id,
                "kind": "journal" if d.journal else "git",
                "worktree": str(d.worktree) if d.worktree else None,
                "bytes": size,
            }
            for d, size in rows
        ]
        print(json.dumps({"stores": stores, "total": total}, indent=2))
        return 0
    for d, size in rows:
        kind = "journal" if d.journal else "git"
        print(f"{_human(size):>9}  {kind:<7}  {d.project_id}  {d.worktree or '?'}")
    print(f"{_human(total):>9}  total ({total} bytes)")
    return 0


def _human(size: int) -> str:
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size} B"  # pragma: no cover - the loop always returns


def _limits(worktree: Path | None, args: argparse.Namespace) -> tuple[float, int]:
    keep_days: float = 7
    max_bytes = 1_000_000_000
    if worktree is not None and worktree.is_dir():
        try:
            snap = load_config(worktree, worktree).config.snapshot
            keep_days, max_bytes = snap.keep_days, snap.max_store_bytes
        except ConfigError as exc:
            print(f"agentls: {worktree}: {exc}; using the default limits", file=sys.stderr)
    if args.keep_days is not None:
        keep_days = args.keep_days
    if args.max_bytes is not None:
        max_bytes = args.max_bytes
    return keep_days, max_bytes


async def run_gc(args: argparse.Namespace) -> int:
    """Garbage-collect every store with its project's limits (or the ones given)."""
    base = _base(args)
    for d in store_dirs(base):
        keep_days, max_bytes = _limits(d.worktree, args)
        worktree = d.worktree or d.path
        backend: Snapshots
        if d.journal:
            reader = DiskWorkspace(worktree)
            backend = EditJournal(
                base, d.project_id, worktree, reader, max_store_bytes=max_bytes, keep_days=keep_days
            )
        else:
            backend = SnapshotStore(
                base, d.project_id, worktree, max_store_bytes=max_bytes, keep_days=keep_days
            )
        report = await backend.gc()
        print(
            f"{d.project_id}: dropped {len(report.removed)} snapshots, kept {report.kept}, "
            f"{_human(report.bytes_before)} -> {_human(report.bytes_after)}"
        )
    return 0


class _StoreView:
    """The session side of the diff, read straight from the store (nothing is written)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def get(self, session_id: str) -> Session:
        return await self.store.get_session(session_id)

    async def messages(self, session_id: str, parts: PartFilter | None = None) -> list[MessageWithParts]:
        return await self.store.list_messages(session_id, parts=parts)

    async def update_session(self, session: Session) -> Any:
        raise UsageError("agentls diff does not change sessions")

    async def update_message(self, info: Any) -> Any:
        raise UsageError("agentls diff does not change messages")

    async def remove_message(self, session_id: str, message_id: str) -> Any:
        raise UsageError("agentls diff does not change messages")

    async def remove_part(self, session_id: str, message_id: str, part_id: str) -> Any:
        raise UsageError("agentls diff does not change messages")


async def run_diff(args: argparse.Namespace) -> int:
    """Print the unified diffs of a session (or one turn) to stdout, a summary line to stderr."""
    base = _base(args)
    db = base / DB_NAME
    if not db.is_file():
        raise UsageError(f"no agentls data at {base}")
    async with await Store.open(db) as store:
        view = _StoreView(store)
        session = await view.get(args.session)
        project = await store.get_project(session.projectID)
        worktree = Path(project.worktree)
        patches = step_patches(await view.messages(session.id))
        backend: Snapshots
        # Journal epochs are ids ("snp_..."); git snapshots are tree hashes.
        if any(p.hash.startswith("snp_") for p in patches):
            backend = EditJournal(base, project.id, worktree, DiskWorkspace(worktree))
        else:
            backend = SnapshotStore(base, project.id, worktree)
        diffs = await SessionDiffs(view, backend).diff(session.id, args.message)
        missed = await SessionDiffs(view, backend).unrecorded(session.id, args.message)
    for d in diffs:
        sys.stdout.write(d.patch or "")
    total = summary_of(diffs)
    print(f"{total.files} files changed, +{total.additions} -{total.deletions}", file=sys.stderr)
    if missed:
        print(f"warning: {unrecorded_warning(missed)}", file=sys.stderr)
    return 0
