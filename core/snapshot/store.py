"""Step snapshots of a project in a git object store of our own, never the project's ``.git``.

The store lives at ``<data_dir>/snapshot/<project_id>`` and is used as ``--git-dir`` with the project
as ``--work-tree``. Each ``track`` stages what changed (respecting the project's ignore files, leaving
out huge files, big binaries and nested repositories) and writes a tree; the tree hash is the snapshot.
A ref per tree keeps it alive until ``gc`` drops it (past ``keep_days``, or oldest first while the
store is over ``max_store_bytes``).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import stat
import time
from collections.abc import Sequence
from pathlib import Path

from core.errors import NotFoundError
from core.events import FileDiff
from core.snapshot.backend import Content, GcReport, Patch
from core.snapshot.git import Git, find_git, split_z
from core.snapshot.index import SnapshotIndex
from core.snapshot.locking import StoreLock
from core.snapshot.textdiff import file_diff, is_binary

log = logging.getLogger(__name__)

_REF_PREFIX = "refs/agentls/"
_DAY_MS = 86_400_000


def unsafe_worktree_reason(worktree: Path) -> str | None:
    """Why a directory must not be snapshotted (``/``, a home directory or above one), else None."""
    resolved = worktree.resolve()
    if resolved == Path(resolved.anchor):
        return f"refusing to snapshot {resolved}: the file system root is not a project"
    try:
        home = Path.home().resolve()
    except RuntimeError:  # no HOME and no passwd entry: nothing to compare with
        return None
    if resolved == home or home.is_relative_to(resolved):
        return f"refusing to snapshot {resolved}: a home directory (or one above it) is not a project"
    return None


class SnapshotStore:
    """Git-backed snapshots of one project (see the module docstring)."""

    def __init__(
        self,
        data_dir: Path,
        project_id: str,
        worktree: Path,
        *,
        enabled: bool = True,
        max_file_bytes: int = 2_000_000,
        max_blob_bytes: int = 1_000_000,
        max_store_bytes: int = 1_000_000_000,
        keep_days: float = 7,
        git_executable: str | None = None,
    ) -> None:
        self.worktree = worktree.resolve()
        self.git_dir = data_dir / "snapshot" / project_id
        self.project_id = project_id
        self.max_file_bytes = max_file_bytes
        self.max_blob_bytes = max_blob_bytes
        self.max_store_bytes = max_store_bytes
        self.keep_days = keep_days
        self.index = SnapshotIndex(self.git_dir / "agentls-snapshots.jsonl")
        self._lock = StoreLock(self.git_dir / "agentls.lock")
        self._ready = False
        executable = git_executable or find_git()
        self.disabled_reason: str | None = None
        if not enabled:
            self.disabled_reason = "snapshots are disabled in the config"
        elif executable is None:
            self.disabled_reason = "git is not installed; snapshots fall back to the edit journal"
        else:
            self.disabled_reason = unsafe_worktree_reason(self.worktree)
        if self.disabled_reason and enabled:
            log.warning("snapshots off for %s: %s", self.worktree, self.disabled_reason)
        self._git = Git(executable or "git", self.git_dir, self.worktree)

    @property
    def enabled(self) -> bool:
        """Whether ``track`` records anything."""
        return self.disabled_reason is None

    async def _ensure(self) -> None:
        if self._ready:
            return
        if not (self.git_dir / "HEAD").exists():
            await asyncio.to_thread(self.git_dir.mkdir, parents=True, exist_ok=True)
            await self._git.run("init", "-q", "--template=")
            meta = {"projectID": self.project_id, "worktree": str(self.worktree)}
            await asyncio.to_thread((self.git_dir / "agentls.json").write_text, json.dumps(meta) + "\n")
        self._ready = True

    def _sync_excludes(self) -> None:
        # Per-directory .gitignore files are read from the work tree by git itself; the project's
        # .git/info/exclude lives in its git dir, so mirror it into ours.
        source = self.worktree / ".git" / "info" / "exclude"
        try:
            wanted = source.read_bytes() if source.is_file() else b""
        except OSError:
            wanted = b""
        target = self.git_dir / "info" / "exclude"
        current = target.read_bytes() if target.exists() else None
        if current != wanted:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(wanted)

    def _classify(self, candidates: list[str]) -> tuple[list[str], set[str]]:
        keep: list[str] = []
        skip: set[str] = set()
        for rel in candidates:
            path = self.worktree / rel.rstrip("/")
            try:
                st = os.lstat(path)
            except FileNotFoundError:
                keep.append(rel)  # deleted: stage the removal
                continue
            if stat.S_ISDIR(st.st_mode) or stat.S_ISLNK(st.st_mode):
                skip.add(rel.rstrip("/"))  # nested repositories and symlinks are not ours to restore
            elif st.st_size > self.max_file_bytes or (
                st.st_size > self.max_blob_bytes and _sniff_binary(path)
            ):
                skip.add(rel)
            else:
                keep.append(rel)
        return keep, skip

    async def track(self) -> str | None:
        """Record the current state of the project; the snapshot hash, or None when disabled."""
        if not self.enabled:
            return None
        async with self._lock:
            await self._ensure()
            await asyncio.to_thread(self._sync_excludes)
            listed = await self._git.run("ls-files", "-z", "--others", "--modified", "--exclude-standard")
            candidates = sorted(set(split_z(listed.stdout)))
            keep, skip = await asyncio.to_thread(self._classify, candidates)
            if keep:
                # Regular files and deleted paths only (see _classify): update-index stages them as
                # `add -A` would, without matching every path against every pathspec, which made a
                # project's first snapshot 3x as slow (20k files: ~8.3 s -> ~2.6 s).
                await self._git.run("update-index", "--add", "--remove", "-z", "--stdin", stdin=_nul(keep))
            if skip:
                # Drop them from our index even if an earlier snapshot held them (they are unknown now).
                await self._git.run(
                    "update-index", "-z", "--force-remove", "--stdin", stdin=_nul(sorted(skip))
                )
            tree = await self._git.text("write-tree")
            if await asyncio.to_thread(self.index.add, tree, _now_ms(), skip):
                await self._git.run("update-ref", _REF_PREFIX + tree, tree)
            log.debug("snapshot %s of %s (%d staged, %d skipped)", tree, self.worktree, len(keep), len(skip))
            return tree

    async def changed_files(self, since: str, until: str | None = None) -> list[str]:
        """Files changed from snapshot ``since`` to ``until`` (the processor's patch hook)."""
        return (await self.patch(since, until)).files

    async def _require(self, hash_: str) -> None:
        result = await self._git.run("cat-file", "-e", f"{hash_}^{{tree}}", check=False)
        if result.code != 0:
            raise NotFoundError(f"snapshot {hash_} is not in the store (it may have been garbage-collected)")

    async def patch(self, from_hash: str, to_hash: str | None = None) -> Patch:
        """Files changed from ``from_hash`` to ``to_hash`` (the current state when None)."""
        to = to_hash or await self.track()
        if to is None:
            raise NotFoundError(f"snapshots are off: {self.disabled_reason}")
        await self._ensure()
        diff = ("diff-tree", "-r", "-z", "--name-only", "--no-renames", from_hash, to)
        out = await self._git.run(*diff, check=False)
        if out.code != 0:  # checked only now: two git runs less per step (~8 ms)
            await self._require(from_hash)  # a snapshot garbage-collected: say which
            await self._require(to)
            out = await self._git.run(*diff)  # else git's own error
        skipped = await asyncio.to_thread(self.index.skipped, from_hash, to)
        files = [f for f in split_z(out.stdout) if f not in skipped]
        return Patch(hash=from_hash, files=files, after=to)

    async def _blobs(self, hash_: str, paths: Sequence[str]) -> dict[str, tuple[str, str]]:
        """``{path: (mode, blob id)}`` of the paths present in a snapshot."""
        await self._ensure()
        await self._require(hash_)
        found: dict[str, tuple[str, str]] = {}
        for start in range(0, len(paths), 500):  # keep the command line well under ARG_MAX
            chunk = list(paths[start : start + 500])
            out = await self._git.run("ls-tree", "-r", "-z", hash_, "--", *chunk)
            for line in split_z(out.stdout):
                meta, _, name = line.partition("\t")
                mode, kind, oid = meta.split(" ")
                if kind == "blob":
                    found[name] = (mode, oid)
        return found

    async def files_at(self, hash_: str, paths: Sequence[str]) -> dict[str, bytes | None]:
        """Each path's content in a snapshot (None: it did not exist there)."""
        found = await self._blobs(hash_, paths)
        contents = await self._cat(list(dict.fromkeys(oid for _, oid in found.values())))
        return {p: contents[found[p][1]] if p in found else None for p in paths}

    async def executables_at(self, hash_: str, paths: Sequence[str]) -> set[str]:
        """Which of ``paths`` git recorded as executable (mode 100755) in a snapshot."""
        return {p for p, (mode, _) in (await self._blobs(hash_, paths)).items() if mode == "100755"}

    async def _cat(self, oids: list[str]) -> dict[str, bytes]:
        if not oids:
            return {}
        out = (await self._git.run("cat-file", "--batch", stdin=_lines(oids))).stdout
        blobs: dict[str, bytes] = {}
        pos = 0
        for oid in oids:
            header_end = out.index(b"\n", pos)
            header = out[pos:header_end].split(b" ")
            if len(header) != 3:
                raise NotFoundError(f"snapshot object {oid} is missing from the store")
            size = int(header[2])
            blobs[oid] = out[header_end + 1 : header_end + 1 + size]
            pos = header_end + 1 + size + 1
        return blobs

    async def file_at(self, hash_: str, path: str) -> bytes | None:
        """One path's content in a snapshot (None: it did not exist there)."""
        return (await self.files_at(hash_, [path]))[path]

    async def contents(self, wanted: Sequence[tuple[str, str]]) -> dict[tuple[str, str], Content]:
        """Many ``(snapshot, path)`` contents from one ``git cat-file --batch``: each snapshot's
        tree is asked for first (a missing one is a NotFoundError for its paths), then
        ``<tree>:<path>`` (missing: the file was not there). The diff summaries ask for every
        file of the session; one git run per file and side cost ~6 ms each."""
        pairs = list(dict.fromkeys(wanted))
        if not pairs:
            return {}
        if any("\n" in path for _, path in pairs):  # not expressible on cat-file's input lines
            return {pair: await self._content(*pair) for pair in pairs}
        await self._ensure()
        trees = list(dict.fromkeys(hash_ for hash_, _ in pairs))
        names = [f"{hash_}^{{tree}}" for hash_ in trees] + [f"{hash_}:{path}" for hash_, path in pairs]
        out = (await self._git.run("cat-file", "--batch", stdin=_lines(names))).stdout
        found: list[tuple[bytes, bytes] | None] = []  # (type, content) per name, None when missing
        pos = 0
        for _ in names:
            header_end = out.index(b"\n", pos)
            header = out[pos:header_end]
            if header.endswith(b" missing"):
                found.append(None)
                pos = header_end + 1
                continue
            _, kind, size = header.rsplit(b" ", 2)
            start = header_end + 1
            found.append((kind, out[start : start + int(size)]))
            pos = start + int(size) + 1
        gone = {
            hash_: NotFoundError(f"snapshot {hash_} is not in the store (it may have been garbage-collected)")
            for hash_, tree in zip(trees, found, strict=False)
            if tree is None
        }
        result: dict[tuple[str, str], Content] = {}
        for pair, entry in zip(pairs, found[len(trees) :], strict=True):
            if pair[0] in gone:
                result[pair] = gone[pair[0]]
            else:  # a directory or a submodule at that path is no file either
                result[pair] = entry[1] if entry is not None and entry[0] == b"blob" else None
        return result

    async def _content(self, hash_: str, path: str) -> Content:
        try:
            return await self.file_at(hash_, path)
        except NotFoundError as exc:
            return exc

    async def diff(self, from_hash: str, to_hash: str | None = None) -> list[FileDiff]:
        """Unified diffs of every file changed between two snapshots (the current state when None)."""
        patch = await self.patch(from_hash, to_hash)
        assert patch.after is not None
        before = await self.files_at(from_hash, patch.files)
        after = await self.files_at(patch.after, patch.files)
        return await asyncio.to_thread(lambda: [file_diff(f, before[f], after[f]) for f in patch.files])

    def du(self) -> int:
        """Bytes the store takes on disk."""
        total = 0
        for root, _dirs, files in os.walk(self.git_dir):
            for name in files:
                try:
                    total += os.lstat(os.path.join(root, name)).st_size
                except FileNotFoundError:
                    continue  # removed by a concurrent gc
        return total

    async def gc(self) -> GcReport:
        """Drop snapshots past ``keep_days``, then oldest first while over ``max_store_bytes``."""
        if not (self.git_dir / "HEAD").exists():
            return GcReport()
        async with self._lock:
            await self._ensure()
            before = await asyncio.to_thread(self.du)
            entries = await asyncio.to_thread(self.index.oldest_first)
            # The newest snapshot is the state a running step may still diff against: always kept.
            candidates = entries[:-1]
            cutoff = _now_ms() - int(self.keep_days * _DAY_MS)
            expired = [e.hash for e in candidates if e.time_ms < cutoff]
            removed = list(expired)
            await self._drop(expired)
            remaining = [e.hash for e in candidates if e.hash not in set(expired)]
            size = await asyncio.to_thread(self.du)
            while size > self.max_store_bytes and remaining:
                # A quarter at a time: one `git gc` per snapshot would be far too slow on a big store.
                cut = max(1, len(remaining) // 4)
                batch, remaining = remaining[:cut], remaining[cut:]
                await self._drop(batch)
                removed.extend(batch)
                size = await asyncio.to_thread(self.du)
            log.info("snapshot gc %s: dropped %d, %d -> %d bytes", self.git_dir, len(removed), before, size)
            return GcReport(removed=removed, kept=len(self.index), bytes_before=before, bytes_after=size)

    async def _drop(self, hashes: list[str]) -> None:
        if hashes:
            commands = "".join(f"delete {_REF_PREFIX}{h}\n" for h in hashes).encode()
            await self._git.run("update-ref", "--stdin", stdin=commands)
            await asyncio.to_thread(self.index.remove, set(hashes))
        await self._git.run("gc", "--quiet", "--prune=now")


def _sniff_binary(path: Path) -> bool:
    with path.open("rb") as fh:
        return is_binary(fh.read(8000))


def _nul(paths: Sequence[str]) -> bytes:
    return b"".join(p.encode("utf-8", errors="surrogateescape") + b"\0" for p in paths)


def _lines(items: Sequence[str]) -> bytes:
    return "".join(f"{i}\n" for i in items).encode()


def _now_ms() -> int:
    return time.time_ns() // 1_000_000
