"""The agent's files through the ACP client: ``fs/read_text_file`` and ``fs/write_text_file``.

A client that offers them (Zed, JetBrains, …) answers reads with its unsaved buffers and performs
the agent's writes itself, so edits land in its buffers and undo history. Every request names the
ACP session it belongs to; the prompt being served sets it in a context variable that the loop's
tasks inherit. Binary files, deletions, and calls made outside a prompt use the disk.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from acp import RequestError
from acp.schema import ReadTextFileResponse, WriteTextFileResponse

from core.workspace import DiskWorkspace, EditContext, FileStat

log = logging.getLogger(__name__)

# The ACP session whose prompt is running in this task (inherited by the tasks the loop starts).
current_session: contextvars.ContextVar[str | None] = contextvars.ContextVar("acp_session", default=None)


class FileClient(Protocol):
    """The two client methods this workspace calls (the agent-side connection has them)."""

    async def read_text_file(self, session_id: str, path: str) -> ReadTextFileResponse: ...

    async def write_text_file(
        self, session_id: str, path: str, content: str
    ) -> WriteTextFileResponse | None: ...


@dataclass(frozen=True)
class Written:
    """One write of a tool call, for the ``diff`` content of its tool call update."""

    path: Path
    old_text: str | None
    new_text: str


@dataclass
class FileAccess:
    """What the client announced in ``initialize``."""

    read: bool = False
    write: bool = False


class AcpWorkspace:
    """``core.workspace.Workspace`` that goes through the ACP client when it can."""

    def __init__(self, root: Path, client: FileClient, access: FileAccess) -> None:
        self.root = root.resolve()
        self._disk = DiskWorkspace(self.root)
        self._client = client
        self._access = access
        self.writes: dict[str, list[Written]] = {}  # call id → its writes, taken by the update mapper

    async def read_bytes(self, path: Path) -> bytes:
        session = current_session.get()
        try:
            on_disk: bytes | None = await self._disk.read_bytes(path)
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            on_disk = None
        if session is None or not self._access.read or (on_disk is not None and not _is_text(on_disk)):
            if on_disk is None:
                raise FileNotFoundError(path)
            return on_disk
        try:
            answer = await self._client.read_text_file(session_id=session, path=str(path))
        except RequestError as exc:
            if on_disk is None:
                raise FileNotFoundError(path) from exc
            log.warning("the client could not read %s (%s); using the disk", path, exc)
            return on_disk
        return answer.content.encode("utf-8")

    async def read_text(self, path: Path) -> str:
        return (await self.read_bytes(path)).decode("utf-8", errors="replace")

    async def write_bytes(self, path: Path, data: bytes, ctx: EditContext) -> None:
        session = current_session.get()
        try:
            text: str | None = data.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        old = await self._old_text(path)
        if session is None or not self._access.write or text is None:
            await self._disk.write_bytes(path, data, ctx)
        else:
            await asyncio.to_thread(path.parent.mkdir, parents=True, exist_ok=True)
            try:
                await self._client.write_text_file(session_id=session, path=str(path), content=text)
            except RequestError as exc:
                from core.errors import ToolError

                raise ToolError(
                    f"The editor refused to write {path}: {exc}. The file was not changed."
                ) from exc
        if ctx.call_id is not None and text is not None:
            self.writes.setdefault(ctx.call_id, []).append(Written(path, old, text))

    async def delete(self, path: Path, ctx: EditContext) -> None:
        await self._disk.delete(path, ctx)  # ACP has no delete request

    async def stat(self, path: Path) -> FileStat:
        return await self._disk.stat(path)

    def is_open(self, path: Path) -> bool:
        return False  # ACP does not tell the agent which files the editor shows

    def enter_session(self, session_id: str | None) -> None:
        """Attached to the host: serve the rest of the host's call in the session of its turn
        (``core.remote.lend.SessionBound``; each call is a task of its own)."""
        current_session.set(session_id)

    async def wait_diagnostics(self, path: Path, timeout: float = 2.0) -> list[str]:
        return []  # ACP has no diagnostics channel from the editor

    async def _old_text(self, path: Path) -> str | None:
        try:
            return await self.read_text(path)
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            return None


def _is_text(data: bytes) -> bool:
    if b"\0" in data[:8192]:
        return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
