"""What revert and the diff summary need from a snapshot backend (the git store or the journal)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import field
from typing import Protocol

from core.errors import NotFoundError
from core.events import FileDiff
from core.record import record

# A file's content in a snapshot: bytes, None when absent there, the error when it cannot be told.
Content = bytes | None | NotFoundError


@record
class Patch:
    """Files changed between two snapshots: ``hash`` is the earlier one, ``after`` the later one."""

    hash: str
    files: list[str]
    after: str | None = None


@record
class GcReport:
    """What a garbage collection did."""

    removed: list[str] = field(default_factory=list)
    kept: int = 0
    bytes_before: int = 0
    bytes_after: int = 0


class Snapshots(Protocol):
    """A store of project states; paths are worktree-relative with ``/`` separators."""

    @property
    def enabled(self) -> bool:
        """Whether ``track`` records anything."""
        ...

    async def track(self) -> str | None:
        """Record the current state; its id, or None when disabled."""
        ...

    async def patch(self, from_hash: str, to_hash: str | None = None) -> Patch:
        """Files changed from ``from_hash`` to ``to_hash`` (the current state when None)."""
        ...

    async def changed_files(self, since: str, until: str | None = None) -> list[str]:
        """Files changed from snapshot ``since`` to ``until`` (now when None): what the processor
        stores in a patch part."""
        ...

    async def files_at(self, hash_: str, paths: Sequence[str]) -> dict[str, bytes | None]:
        """Each path's content in a snapshot (None: the file did not exist). NotFoundError if gone."""
        ...

    async def file_at(self, hash_: str, path: str) -> bytes | None:
        """One path's content in a snapshot (None: the file did not exist)."""
        ...

    async def contents(self, wanted: Sequence[tuple[str, str]]) -> dict[tuple[str, str], Content]:
        """Many ``(snapshot, path)`` contents at once (for the diff summaries): each is what
        ``file_at`` would return, or the NotFoundError it would raise."""
        ...

    async def executables_at(self, hash_: str, paths: Sequence[str]) -> set[str]:
        """Which of ``paths`` had the executable bit in a snapshot."""
        ...

    async def diff(self, from_hash: str, to_hash: str | None = None) -> list[FileDiff]:
        """Unified diffs of every file changed between two snapshots."""
        ...

    def du(self) -> int:
        """Bytes the store takes on disk."""
        ...

    async def gc(self) -> GcReport:
        """Drop snapshots older than the retention and beyond the size cap, oldest first."""
        ...
