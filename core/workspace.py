"""The file-access seam between the core and whoever hosts it.

Tools, snapshots and revert read and write files only through a ``Workspace``. The disk
implementation here serves the CLI and tests; the LSP server supplies one that reads open editor
buffers and writes through ``workspace/applyEdit`` so that agent edits land in the editor's undo
history. Every write carries a ``label`` (the tool call) so an editor can group it as one undo step.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Protocol, runtime_checkable

from core.record import record


@record
class FileStat:
    """What a tool needs to know about a path."""

    path: Path
    exists: bool
    is_dir: bool = False
    size: int = 0
    mtime_ns: int = 0


@record
class EditContext:
    """Who is writing: shown by editors as the undo label and carried in ``file.edited``."""

    label: str
    session_id: str | None = None
    message_id: str | None = None
    call_id: str | None = None
    # The user approved this very change in its permission dialog: review does not ask again.
    approved: bool = False


@runtime_checkable
class Workspace(Protocol):
    """File access for the agent. Paths are absolute."""

    root: Path

    async def read_bytes(self, path: Path) -> bytes:
        """The current content (an open editor buffer wins over the disk). Raises FileNotFoundError."""
        ...

    async def read_text(self, path: Path) -> str:
        """The current content decoded as UTF-8 (BOM kept). Raises FileNotFoundError."""
        ...

    async def write_bytes(self, path: Path, data: bytes, ctx: EditContext) -> None:
        """Replace or create a file; parents are created. On return the disk holds ``data`` — except
        for a file open with unsaved changes in an editor that does not save agent edits, whose
        buffer holds it until the user saves (the disk keeps their last save)."""
        ...

    async def delete(self, path: Path, ctx: EditContext) -> None:
        """Remove a file. On return it is gone from the disk."""
        ...

    async def stat(self, path: Path) -> FileStat:
        """Existence, kind, size and mtime of a path."""
        ...

    def is_open(self, path: Path) -> bool:
        """Whether the host shows this file in an editor buffer (its text may differ from disk)."""
        ...

    async def wait_diagnostics(self, path: Path, timeout: float = 2.0) -> list[str]:
        """Error-level diagnostics the host's own checkers report for ``path`` after the last edit
        (``line:col message``), waiting at most ``timeout`` seconds; [] when there are none."""
        ...


class DiskWorkspace:
    """A workspace that is just the file system (CLI, tests, editors without applyEdit)."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()

    async def read_bytes(self, path: Path) -> bytes:
        return await asyncio.to_thread(path.read_bytes)

    async def read_text(self, path: Path) -> str:
        data = await self.read_bytes(path)
        return data.decode("utf-8", errors="replace")

    async def write_bytes(self, path: Path, data: bytes, ctx: EditContext) -> None:
        await asyncio.to_thread(_atomic_write, path, data)

    async def delete(self, path: Path, ctx: EditContext) -> None:
        await asyncio.to_thread(path.unlink)

    async def stat(self, path: Path) -> FileStat:
        return await asyncio.to_thread(_stat, path)

    def is_open(self, path: Path) -> bool:
        return False

    async def wait_diagnostics(self, path: Path, timeout: float = 2.0) -> list[str]:
        return []  # the file system has no language servers to ask


def _atomic_write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.agentls-tmp-{os.getpid()}")
    mode = path.stat().st_mode & 0o7777 if path.exists() else None
    tmp.write_bytes(data)
    if mode is not None:
        os.chmod(tmp, mode)
    os.replace(tmp, path)


def _stat(path: Path) -> FileStat:
    try:
        st = path.stat()
    except FileNotFoundError:
        return FileStat(path=path, exists=False)
    return FileStat(
        path=path,
        exists=True,
        is_dir=path.is_dir(),
        size=st.st_size,
        mtime_ns=st.st_mtime_ns,
    )


class ForwardingWorkspace:
    """A workspace that hands every call to ``inner``: the base of wrappers that watch the agent's
    writes (the edit journal, review's authorship log) and override ``write_bytes``/``delete``."""

    def __init__(self, inner: Workspace) -> None:
        self.inner = inner
        self.root = inner.root

    async def read_bytes(self, path: Path) -> bytes:
        return await self.inner.read_bytes(path)

    async def read_text(self, path: Path) -> str:
        return await self.inner.read_text(path)

    async def write_bytes(self, path: Path, data: bytes, ctx: EditContext) -> None:
        await self.inner.write_bytes(path, data, ctx)

    async def delete(self, path: Path, ctx: EditContext) -> None:
        await self.inner.delete(path, ctx)

    async def stat(self, path: Path) -> FileStat:
        return await self.inner.stat(path)

    def is_open(self, path: Path) -> bool:
        return self.inner.is_open(path)

    async def wait_diagnostics(self, path: Path, timeout: float = 2.0) -> list[str]:
        return await self.inner.wait_diagnostics(path, timeout)
