"""The snapshot fallback without git (or with ``snapshot: false``): a journal of the agent's own edits.

``RecordingWorkspace`` wraps the workspace seam; before the agent's first write or delete of a file in
an epoch it saves the file's content (or notes it was absent), and after the write it saves what the
agent wrote. ``track`` closes the current epoch and opens the next, so an epoch id plays the role of
a snapshot hash: ``files_at(epoch, path)`` is the file as the agent last knew it when the epoch began.
Files the agent never touched are not recorded, so revert works for the agent's edits only.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from core import ids
from core.errors import NotFoundError
from core.events import FileDiff
from core.snapshot.backend import Content, GcReport, Patch
from core.snapshot.textdiff import file_diff
from core.workspace import EditContext, ForwardingWorkspace, Workspace

log = logging.getLogger(__name__)

_DAY_MS = 86_400_000


class EditJournal:
    """Epochs of before/after contents of the files the agent wrote, on disk under the data dir."""

    def __init__(
        self,
        data_dir: Path,
        project_id: str,
        worktree: Path,
        reader: Workspace,
        *,
        max_file_bytes: int = 2_000_000,
        max_store_bytes: int = 1_000_000_000,
        keep_days: float = 7,
    ) -> None:
        self.dir = data_dir / "snapshot" / f"{project_id}.journal"
        self.worktree = worktree.resolve()
        self.reader = reader
        self.max_file_bytes = max_file_bytes
        self.max_store_bytes = max_store_bytes
        self.keep_days = keep_days
        self.disabled_reason: str | None = None
        self.lock = asyncio.Lock()
        self._current: str | None = None

    @property
    def enabled(self) -> bool:
        """The journal always records."""
        return True

    # --- storage ------------------------------------------------------------------------------

    def _epoch_path(self, epoch: str) -> Path:
        return self.dir / "epochs" / f"{epoch}.json"

    def _epochs(self) -> list[str]:
        folder = self.dir / "epochs"
        if not folder.is_dir():
            return []
        return sorted(p.stem for p in folder.glob("*.json"))

    def _load(self, epoch: str) -> dict[str, Any]:
        try:
            data: dict[str, Any] = json.loads(self._epoch_path(epoch).read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise NotFoundError(
                f"snapshot {epoch} is not in the edit journal (it may have been pruned)"
            ) from None
        return data

    def _save(self, epoch: str, data: dict[str, Any]) -> None:
        path = self._epoch_path(epoch)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data), encoding="utf-8")
        os.replace(tmp, path)

    def _put_blob(self, data: bytes) -> str:
        digest = hashlib.sha256(data).hexdigest()
        path = self.dir / "blobs" / digest
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".tmp")
            tmp.write_bytes(data)
            os.replace(tmp, path)
        return digest

    def _blob(self, digest: str | None) -> bytes | None:
        if digest is None:
            return None
        try:
            return (self.dir / "blobs" / digest).read_bytes()
        except FileNotFoundError:
            raise NotFoundError(f"journal content {digest} is missing") from None

    def relative(self, path: Path) -> str:
        """The journal's key for a path: worktree-relative when inside it, else absolute."""
        resolved = path.resolve()
        if resolved.is_relative_to(self.worktree):
            return resolved.relative_to(self.worktree).as_posix()
        return resolved.as_posix()

    # --- recording (called by RecordingWorkspace under ``lock``) -----------------------------

    def _open_epoch(self) -> str:
        meta = self.dir / "agentls.json"
        if not meta.exists():  # lets `agentls snapshots` name the project
            meta.parent.mkdir(parents=True, exist_ok=True)
            meta.write_text(json.dumps({"worktree": str(self.worktree)}) + "\n", encoding="utf-8")
        epoch = ids.ascending("snp")
        self._save(epoch, {"time": _now_ms(), "files": {}})
        self._current = epoch
        return epoch

    def _current_epoch(self) -> str:
        if self._current is None or not self._epoch_path(self._current).exists():
            return self._open_epoch()
        return self._current

    async def before_write(self, path: Path) -> None:
        """Save the file's content before the agent's first write to it in this epoch."""
        key = self.relative(path)
        epoch = await asyncio.to_thread(self._current_epoch)
        data = await asyncio.to_thread(self._load, epoch)
        if key in data["files"]:
            return
        try:
            before: bytes | None = await self.reader.read_bytes(path)
        except FileNotFoundError:
            before = None
        entry: dict[str, Any] = {"before": None}
        if before is not None and len(before) > self.max_file_bytes:
            entry = {"skipped": True}
        elif before is not None:
            entry["before"] = await asyncio.to_thread(self._put_blob, before)
            if await asyncio.to_thread(_is_executable, path):
                entry["exec"] = True
        data["files"][key] = entry
        await asyncio.to_thread(self._save, epoch, data)

    async def after_write(self, path: Path, content: bytes | None) -> None:
        """Save what the agent wrote (None: it deleted the file)."""
        key = self.relative(path)
        epoch = await asyncio.to_thread(self._current_epoch)
        data = await asyncio.to_thread(self._load, epoch)
        entry = data["files"].setdefault(key, {"skipped": True})
        if content is not None and len(content) > self.max_file_bytes:
            entry["skipped"] = True
        elif not entry.get("skipped"):
            entry["after"] = None if content is None else await asyncio.to_thread(self._put_blob, content)
        await asyncio.to_thread(self._save, epoch, data)

    # --- the Snapshots protocol ---------------------------------------------------------------

    async def track(self) -> str | None:
        """Close the current epoch and open a new one; its id stands for "now"."""
        async with self.lock:
            return await asyncio.to_thread(self._open_epoch)

    async def patch(self, from_hash: str, to_hash: str | None = None) -> Patch:
        """Files the agent wrote from epoch ``from_hash`` up to ``to_hash`` (exclusive; now when None)."""
        await asyncio.to_thread(self._load, from_hash)  # raises NotFoundError when pruned
        files: set[str] = set()
        skipped: set[str] = set()
        for epoch in await asyncio.to_thread(self._epochs):
            if from_hash <= epoch and (to_hash is None or epoch < to_hash):
                for key, entry in (await asyncio.to_thread(self._load, epoch))["files"].items():
                    (skipped if entry.get("skipped") else files).add(key)
        return Patch(hash=from_hash, files=sorted(files - skipped), after=to_hash)

    async def changed_files(self, since: str, until: str | None = None) -> list[str]:
        """Files the agent wrote from epoch ``since`` up to ``until`` (exclusive; now when None)."""
        return (await self.patch(since, until)).files

    async def files_at(self, hash_: str, paths: Sequence[str]) -> dict[str, bytes | None]:
        """Each path's content as the agent knew it when epoch ``hash_`` began."""
        epochs = await asyncio.to_thread(self._epochs)
        if hash_ not in epochs:
            raise NotFoundError(f"snapshot {hash_} is not in the edit journal (it may have been pruned)")
        loaded = {e: (await asyncio.to_thread(self._load, e))["files"] for e in epochs}
        out: dict[str, bytes | None] = {}
        for path in paths:
            later = [loaded[e][path] for e in epochs if e >= hash_ and path in loaded[e]]
            earlier = [loaded[e][path] for e in epochs if e < hash_ and path in loaded[e]]
            entry = later[0] if later else earlier[-1] if earlier else None
            if entry is not None and entry.get("skipped"):
                raise NotFoundError(f"{path} was too large to keep in the edit journal")
            if later:
                out[path] = await asyncio.to_thread(self._blob, later[0]["before"])
            elif earlier:
                last = earlier[-1]
                digest = last["after"] if "after" in last else last["before"]
                out[path] = await asyncio.to_thread(self._blob, digest)
            else:
                out[path] = await self._read_current(path)
        return out

    async def _read_current(self, path: str) -> bytes | None:
        try:
            return await self.reader.read_bytes(self.worktree / path)
        except FileNotFoundError:
            return None

    async def file_at(self, hash_: str, path: str) -> bytes | None:
        """One path's content as the agent knew it when epoch ``hash_`` began."""
        return (await self.files_at(hash_, [path]))[path]

    async def contents(self, wanted: Sequence[tuple[str, str]]) -> dict[tuple[str, str], Content]:
        """Many ``(epoch, path)`` contents; one path's error (pruned, too large) stays its own."""
        out: dict[tuple[str, str], Content] = {}
        for hash_, path in dict.fromkeys(wanted):
            try:
                out[hash_, path] = await self.file_at(hash_, path)
            except NotFoundError as exc:
                out[hash_, path] = exc
        return out

    async def executables_at(self, hash_: str, paths: Sequence[str]) -> set[str]:
        """Which of ``paths`` were executable when epoch ``hash_`` began (as far as the journal saw).

        A file first touched later is as it was before that touch; one the agent wrote earlier kept
        the mode it had (a write does not change it); one never touched is as it is now.
        """
        epochs = await asyncio.to_thread(self._epochs)
        loaded = {e: (await asyncio.to_thread(self._load, e))["files"] for e in epochs}
        out: set[str] = set()
        for path in paths:
            later = [loaded[e][path] for e in epochs if e >= hash_ and path in loaded[e]]
            earlier = [loaded[e][path] for e in epochs if e < hash_ and path in loaded[e]]
            if later or earlier:
                executable = bool((later[0] if later else earlier[-1]).get("exec"))
            else:
                executable = await asyncio.to_thread(_is_executable, self.worktree / path)
            if executable:
                out.add(path)
        return out

    async def diff(self, from_hash: str, to_hash: str | None = None) -> list[FileDiff]:
        """Unified diffs of the files the agent wrote between two epochs (up to now when None)."""
        patch = await self.patch(from_hash, to_hash)
        before = await self.files_at(from_hash, patch.files)
        if patch.after is None:
            after = {f: await self._read_current(f) for f in patch.files}
        else:
            after = await self.files_at(patch.after, patch.files)
        return await asyncio.to_thread(lambda: [file_diff(f, before[f], after[f]) for f in patch.files])

    def du(self) -> int:
        """Bytes the journal takes on disk."""
        return sum(p.stat().st_size for p in self.dir.rglob("*") if p.is_file())

    async def gc(self) -> GcReport:
        """Drop epochs past ``keep_days``, then oldest first while over the size cap; prune blobs."""
        async with self.lock:
            return await asyncio.to_thread(self._gc)

    def _gc(self) -> GcReport:
        if not self.dir.exists():
            return GcReport()
        before = self.du()
        epochs = self._epochs()
        candidates = epochs[:-1]  # the newest epoch may be the one being written
        cutoff = _now_ms() - int(self.keep_days * _DAY_MS)
        removed = [e for e in candidates if self._load(e)["time"] < cutoff]
        for epoch in removed:
            self._epoch_path(epoch).unlink()
        self._prune_blobs()
        remaining = [e for e in candidates if e not in removed]
        while self.du() > self.max_store_bytes and remaining:
            epoch = remaining.pop(0)
            self._epoch_path(epoch).unlink()
            removed.append(epoch)
            self._prune_blobs()
        return GcReport(removed=removed, kept=len(self._epochs()), bytes_before=before, bytes_after=self.du())

    def _prune_blobs(self) -> None:
        used: set[str] = set()
        for epoch in self._epochs():
            for entry in self._load(epoch)["files"].values():
                used.update(v for k, v in entry.items() if k in ("before", "after") and isinstance(v, str))
        for blob in (self.dir / "blobs").glob("*") if (self.dir / "blobs").is_dir() else ():
            if blob.name not in used:
                blob.unlink()


class RecordingWorkspace(ForwardingWorkspace):
    """A workspace that journals the before- and after-content of every write and delete."""

    def __init__(self, inner: Workspace, journal: EditJournal) -> None:
        super().__init__(inner)
        self.journal = journal

    async def write_bytes(self, path: Path, data: bytes, ctx: EditContext) -> None:
        async with self.journal.lock:
            await self.journal.before_write(path)
            await self.inner.write_bytes(path, data, ctx)
            await self.journal.after_write(path, data)

    async def delete(self, path: Path, ctx: EditContext) -> None:
        async with self.journal.lock:
            await self.journal.before_write(path)
            await self.inner.delete(path, ctx)
            await self.journal.after_write(path, None)


def _is_executable(path: Path) -> bool:
    try:
        return bool(os.stat(path).st_mode & 0o100)
    except OSError:
        return False


def _now_ms() -> int:
    return time.time_ns() // 1_000_000
