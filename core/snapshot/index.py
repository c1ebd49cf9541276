"""The list of snapshots a store holds, with their times, so that eviction is oldest first.

An append-only JSON-lines file beside the object store: one line per ``track`` (hash, time in ms,
paths skipped as too large). A tree tracked twice keeps its newest time. ``gc`` rewrites the file.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import field
from pathlib import Path

from core.record import struct

log = logging.getLogger(__name__)


@struct
class SnapshotEntry:
    """One recorded snapshot."""

    hash: str
    time_ms: int
    skipped: set[str] = field(default_factory=set)


class SnapshotIndex:
    """Snapshot hashes with their last-tracked time and skipped paths, kept on disk."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._entries: dict[str, SnapshotEntry] | None = None

    def _load(self) -> dict[str, SnapshotEntry]:
        if self._entries is not None:
            return self._entries
        entries: dict[str, SnapshotEntry] = {}
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            lines = []
        for number, line in enumerate(lines, 1):
            try:
                row = json.loads(line)
                self._merge(entries, str(row["hash"]), int(row["time"]), set(row.get("skipped", ())))
            except (ValueError, KeyError, TypeError):
                # A line cut short by a crash: the snapshot it named is simply not evictable by time.
                log.warning("snapshot index %s: ignoring bad line %d", self.path, number)
        self._entries = entries
        return entries

    @staticmethod
    def _merge(entries: dict[str, SnapshotEntry], hash_: str, time_ms: int, skipped: set[str]) -> None:
        entry = entries.get(hash_)
        if entry is None:
            entries[hash_] = SnapshotEntry(hash_, time_ms, skipped)
        else:
            entry.time_ms = max(entry.time_ms, time_ms)
            entry.skipped |= skipped

    def add(self, hash_: str, time_ms: int, skipped: set[str]) -> bool:
        """Record a snapshot; True when the hash is new to the index."""
        entries = self._load()
        new = hash_ not in entries
        self._merge(entries, hash_, time_ms, skipped)
        row = {"hash": hash_, "time": time_ms, "skipped": sorted(skipped)}
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(row) + "\n")
        return new

    def get(self, hash_: str) -> SnapshotEntry | None:
        """The entry of a hash, if recorded."""
        return self._load().get(hash_)

    def skipped(self, *hashes: str) -> set[str]:
        """Paths left out of any of the given snapshots."""
        out: set[str] = set()
        for h in hashes:
            entry = self._load().get(h)
            if entry is not None:
                out |= entry.skipped
        return out

    def oldest_first(self) -> list[SnapshotEntry]:
        """All entries, oldest first (ties by hash for a stable order)."""
        return sorted(self._load().values(), key=lambda e: (e.time_ms, e.hash))

    def remove(self, hashes: set[str]) -> None:
        """Forget the given snapshots and rewrite the file."""
        entries = self._load()
        for h in hashes:
            entries.pop(h, None)
        tmp = self.path.with_name(self.path.name + ".tmp")
        with tmp.open("w", encoding="utf-8") as fh:
            for e in sorted(entries.values(), key=lambda e: e.time_ms):
                row = {"hash": e.hash, "time": e.time_ms, "skipped": sorted(e.skipped)}
                fh.write(json.dumps(row) + "\n")
        os.replace(tmp, self.path)

    def __len__(self) -> int:
        return len(self._load())
