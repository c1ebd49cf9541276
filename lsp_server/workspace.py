"""The agent's files as the editor sees them: open buffers for reads, ``workspace/applyEdit`` for writes.

Reads return the user's unsaved text for open documents. Writes become one labelled
``workspace/applyEdit`` each (one undo step in the editor) when the client supports versioned
document changes, and the disk is brought to the same content before the write returns, because
bash and the snapshot code read the disk. Clients without that support get plain disk writes.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path
from pygls.workspace import TextDocument

from core.errors import ToolError
from core.workspace import DiskWorkspace, EditContext, FileStat
from lsp_server.diagnostics import DiagnosticsStore
from lsp_server.protocol import Diagnostics, parse
from lsp_server.text_edits import end_position, rebase

log = logging.getLogger(__name__)

# How long to wait for the didChange that follows an applied edit before reading the buffer again.
BUFFER_SYNC_TIMEOUT = 2.0

AGENT_DIAGNOSTICS = "agent/diagnostics"

CHANGED_UNDER_US = "the file changed in the editor while the agent was editing it; read it again"


def uri_of(path: Path) -> str:
    """The file:// URI of an absolute path."""
    uri: str | None = from_fs_path(str(path))
    if uri is None:
        raise ValueError(f"not a file system path: {path}")
    return uri


def path_of(uri: str) -> Path | None:
    """The absolute path of a file:// URI, None for other schemes."""
    fs_path = to_fs_path(uri)
    return _key(Path(fs_path)) if fs_path and uri.startswith("file:") else None


def _key(path: Path) -> Path:
    # Lexical normalisation only: it runs on the event loop, so no file system calls.
    return Path(os.path.abspath(path))


class LspWorkspace:
    """``core.workspace.Workspace`` backed by the connected editor."""

    def __init__(self, server: LanguageServer, root: Path, diagnostics: DiagnosticsStore) -> None:
        self.root = root.resolve()
        self.diagnostics = diagnostics
        self._server = server
        self._disk = DiskWorkspace(self.root)
        self._changed: dict[Path, asyncio.Event] = {}

    # --- editor state ----------------------------------------------------------------------

    def _document(self, path: Path) -> TextDocument | None:
        resolved = _key(path)
        try:
            documents: dict[str, TextDocument] = self._server.workspace.text_documents
        except RuntimeError:  # not initialized yet: nothing is open
            return None
        for uri, document in documents.items():
            if path_of(uri) == resolved:
                return document
        return None

    def document_changed(self, uri: str) -> None:
        """Called on didOpen/didChange/didClose so edits can wait for the buffer to catch up."""
        path = path_of(uri)
        if path is not None and (event := self._changed.pop(path, None)) is not None:
            event.set()

    def _capabilities(self) -> tuple[bool, set[str]]:
        """Whether versioned applyEdit works, and which resource operations the client allows."""
        try:
            caps = self._server.client_capabilities.workspace
        except (AttributeError, RuntimeError):
            return False, set()
        edit = caps.workspace_edit if caps else None
        if caps is None or not caps.apply_edit or edit is None or not edit.document_changes:
            return False, set()
        return True, {str(op.value) for op in edit.resource_operations or ()}

    def _encoding(self) -> str:
        encoding = self._server.workspace.position_encoding
        return str(getattr(encoding, "value", encoding) or "utf-16")

    def is_open(self, path: Path) -> bool:
        return self._document(path) is not None

    # --- reads -----------------------------------------------------------------------------

    async def read_bytes(self, path: Path) -> bytes:
        document = self._document(path)
        if document is not None:
            return document.source.encode("utf-8")
        return await self._disk.read_bytes(path)

    async def read_text(self, path: Path) -> str:
        document = self._document(path)
        if document is not None:
            return document.source
        return await self._disk.read_text(path)

    async def stat(self, path: Path) -> FileStat:
        disk = await self._disk.stat(path)
        document = self._document(path)
        if document is None:
            return disk
        size = len(document.source.encode("utf-8"))
        return FileStat(path=path, exists=True, is_dir=False, size=size, mtime_ns=disk.mtime_ns)

    # --- writes ----------------------------------------------------------------------------

    async def write_bytes(self, path: Path, data: bytes, ctx: EditContext) -> None:
        # Marked before the edit goes out: an editor re-checks as soon as it applies the change,
        # which can be before it answers applyEdit, and that report already describes the new text.
        self.diagnostics.mark_edit(_key(path))
        versioned, operations = self._capabilities()
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = None  # binary content has no place in an editor buffer
        if versioned and text is not None:
            document = self._document(path)
            if document is not None:
                text = await self._edit_open(path, document, text, ctx.label)
                data = text.encode("utf-8")
            else:
                await self._edit_closed(path, text, ctx.label, operations)
        await self._disk.write_bytes(path, data, ctx)

    async def delete(self, path: Path, ctx: EditContext) -> None:
        versioned, operations = self._capabilities()
        if versioned and "delete" in operations:
            change = lsp.DeleteFile(
                uri=uri_of(path), options=lsp.DeleteFileOptions(ignore_if_not_exists=True)
            )
            if not await self._apply([change], ctx.label):
                log.warning("client refused to delete %s; deleting it on disk", path)
        if (await self._disk.stat(path)).exists:
            await self._disk.delete(path, ctx)

    async def wait_diagnostics(self, path: Path, timeout: float = 2.0) -> list[str]:
        """Error-level editor diagnostics of the first report after the last edit of ``path``."""
        return await self.diagnostics.wait(_key(path), timeout)

    async def _edit_open(self, path: Path, document: TextDocument, text: str, label: str) -> str:
        """Replace an open buffer's text; returns what the buffer holds afterwards."""
        # pygls updates the document object in place, so keep what the edit was built against.
        base, version, uri = document.source, document.version, document.uri
        if await self._replace(path, uri, version, base, text, label):
            return text
        # Refused: the user typed between our snapshot of the buffer and the edit. Give the
        # didChange a moment to arrive, then re-apply the agent's change to the new text once.
        current = self._document(path)
        if current is not None and current.version == version:
            await self._wait_changed(path)
            current = self._document(path)
        if current is None:
            raise ToolError(CHANGED_UNDER_US)
        merged = rebase(base, text, current.source)
        if merged is None:
            raise ToolError(CHANGED_UNDER_US)
        if await self._replace(path, current.uri, current.version, current.source, merged, label):
            return merged
        raise ToolError(CHANGED_UNDER_US)

    async def _replace(
        self, path: Path, uri: str, version: int | None, old: str, new: str, label: str
    ) -> bool:
        line, character = end_position(old, self._encoding())
        edit = lsp.TextDocumentEdit(
            text_document=lsp.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version),
            edits=[lsp.TextEdit(range=_range(0, 0, line, character), new_text=new)],
        )
        waiter = self._changed.setdefault(_key(path), asyncio.Event())
        if not await self._apply([edit], label):
            return False
        if version is not None:
            try:
                async with asyncio.timeout(BUFFER_SYNC_TIMEOUT):
                    while (doc := self._document(path)) is not None and doc.source != new:
                        await waiter.wait()
                        waiter = self._changed.setdefault(_key(path), asyncio.Event())
            except TimeoutError:
                log.warning("%s: the editor applied the edit but sent no didChange", path)
        return True

    async def _wait_changed(self, path: Path) -> None:
        waiter = self._changed.setdefault(_key(path), asyncio.Event())
        try:
            async with asyncio.timeout(BUFFER_SYNC_TIMEOUT):
                await waiter.wait()
        except TimeoutError:
            pass

    async def _edit_closed(self, path: Path, text: str, label: str, operations: set[str]) -> None:
        """Write a file that no buffer shows; the editor records it so it can be undone."""
        uri = uri_of(path)
        changes: list[Any] = []
        if (await self._disk.stat(path)).exists:
            old = await self._disk.read_text(path)
        elif "create" in operations:
            old = ""
            changes.append(lsp.CreateFile(uri=uri, options=lsp.CreateFileOptions(ignore_if_exists=True)))
        else:
            return  # the client cannot create files: the disk write alone does it
        line, character = end_position(old, self._encoding())
        changes.append(
            lsp.TextDocumentEdit(
                text_document=lsp.OptionalVersionedTextDocumentIdentifier(uri=uri, version=None),
                edits=[lsp.TextEdit(range=_range(0, 0, line, character), new_text=text)],
            )
        )
        if not await self._apply(changes, label):
            log.warning("client refused the edit of closed file %s; writing it on disk", path)

    async def _apply(self, changes: list[Any], label: str) -> bool:
        params = lsp.ApplyWorkspaceEditParams(
            edit=lsp.WorkspaceEdit(document_changes=changes), label=label or None
        )
        result = await self._server.workspace_apply_edit_async(params)
        if not result.applied:
            log.info("workspace/applyEdit refused (%s): %s", label, result.failure_reason)
        return bool(result.applied)


def _range(l0: int, c0: int, l1: int, c1: int) -> lsp.Range:
    return lsp.Range(start=lsp.Position(line=l0, character=c0), end=lsp.Position(line=l1, character=c1))


def register_document_hooks(server: LanguageServer, current: Callable[[], LspWorkspace | None]) -> None:
    """Feed buffer changes and ``agent/diagnostics`` reports to the workspace ``current()`` returns."""

    def changed(params: Any) -> None:
        if (workspace := current()) is not None:
            workspace.document_changed(params.text_document.uri)

    for method in (lsp.TEXT_DOCUMENT_DID_OPEN, lsp.TEXT_DOCUMENT_DID_CHANGE, lsp.TEXT_DOCUMENT_DID_CLOSE):
        server.feature(method)(changed)

    @server.feature(AGENT_DIAGNOSTICS)
    def diagnostics(params: Any) -> None:
        try:
            report = parse(Diagnostics, params)
        except JsonRpcInvalidParams as exc:
            log.warning("ignoring malformed %s: %s", AGENT_DIAGNOSTICS, exc.message)
            return
        workspace = current()
        path = path_of(report.uri)
        if workspace is not None and path is not None:
            workspace.diagnostics.report(path, report.diagnostics)
