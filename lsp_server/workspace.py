"""The agent's files as the editor sees them: open buffers for reads; writes that never prompt.

Reads return the user's unsaved text for open documents. A write picks, per file and client, the
path that lands the edit in the editor's buffer without a "changed on disk" prompt (and, for a
stock editor, never writes the user's unsaved text to disk; ``docs/protocol.md``, "Files go through
the editor"):

- a file no buffer shows: the disk only (an edit through the editor would leave a hidden modified
  buffer behind);
- an open document of a client that saves agent edits (``experimental.agent.savesEdits``): one
  labelled ``workspace/applyEdit``; the client saves it before it answers;
- an open document without unsaved changes, other clients: the disk only; the editor reloads the
  unmodified buffer itself (Neovim's ``autoread`` at ``:checktime``, Emacs' auto-revert, VS Code),
  with the reload as one undo step, and nothing is left modified to conflict with the disk later;
- an open document with unsaved changes: one ``workspace/applyEdit`` on top of them
  (``documentChanges`` when announced, else ``changes``); for a stock client nothing on disk (the
  buffer stays modified, the disk keeps the user's last save until they save again), for a plugin
  client that does not save, then the buffer's new text to disk.

After any write the server's view of an open document is the new text until the editor's next
didOpen/didChange/didClose, so a second edit in the same turn never starts from stale text.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path
from pygls.workspace import TextDocument

from core.errors import ToolError
from core.workspace import DiskWorkspace, EditContext, FileStat
from lsp_server.clients import agent_capability
from lsp_server.diagnostics import DiagnosticsStore
from lsp_server.protocol import Diagnostics, parse
from lsp_server.text_edits import rebase, smallest_edit

log = logging.getLogger(__name__)

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
        self._overlay: dict[Path, str] = {}  # the text a buffer has after our edit, until it says so
        self._seq: dict[Path, int] = {}  # didOpen/didChange/didClose count per file
        self._modified: set[Path] = set()  # buffers our applyEdit left modified, until saved or reopened
        self._open_watchers: list[Callable[[], None]] = []  # an attached agent's host: what is open

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

    def _text(self, path: Path, document: TextDocument) -> str:
        return self._overlay.get(_key(path), document.source)

    def document_changed(self, uri: str, saved: bool = False) -> None:
        """didOpen/didChange/didClose: the editor's own report of the buffer supersedes our view.

        didOpen, didClose and didSave also end "modified by our edit": the buffer matches the disk.
        """
        path = path_of(uri)
        if path is None:
            return
        if saved:
            self._modified.discard(path)
            return
        self._seq[path] = self._seq.get(path, 0) + 1
        self._overlay.pop(path, None)

    def document_reset(self, uri: str) -> None:
        """didOpen/didClose: a buffer freshly read from (or no longer shown over) the disk."""
        self.document_changed(uri)
        if (path := path_of(uri)) is not None:
            self._modified.discard(path)
        for changed in self._open_watchers:
            changed()

    def open_paths(self) -> list[Path]:
        """The files the editor has open (``core.remote.lend.OpenDocuments``)."""
        try:
            uris = list(self._server.workspace.text_documents)
        except RuntimeError:  # not initialized yet: nothing is open
            return []
        return [path for uri in uris if (path := path_of(uri)) is not None]

    def watch_open(self, changed: Callable[[], None]) -> None:
        """Call ``changed()`` after each didOpen and didClose (the host routes files by them)."""
        self._open_watchers.append(changed)

    def _client(self) -> tuple[bool, bool, bool]:
        """(applyEdit works, documentChanges works, the client saves what an agent edit touched)."""
        try:
            caps = self._server.client_capabilities
        except (AttributeError, RuntimeError):
            return False, False, False
        workspace = caps.workspace
        edit = workspace.workspace_edit if workspace else None
        agent = agent_capability(caps)
        saves = bool(agent and agent.get("savesEdits") is True)
        return bool(workspace and workspace.apply_edit), bool(edit and edit.document_changes), saves

    def _encoding(self) -> str:
        encoding = self._server.workspace.position_encoding
        return str(getattr(encoding, "value", encoding) or "utf-16")

    def is_open(self, path: Path) -> bool:
        return self._document(path) is not None

    # --- reads -----------------------------------------------------------------------------

    async def read_bytes(self, path: Path) -> bytes:
        document = self._document(path)
        if document is not None:
            return self._text(path, document).encode("utf-8")
        return await self._disk.read_bytes(path)

    async def read_text(self, path: Path) -> str:
        document = self._document(path)
        if document is not None:
            return self._text(path, document)
        return await self._disk.read_text(path)

    async def stat(self, path: Path) -> FileStat:
        disk = await self._disk.stat(path)
        document = self._document(path)
        if document is None:
            return disk
        size = len(self._text(path, document).encode("utf-8"))
        return FileStat(path=path, exists=True, is_dir=False, size=size, mtime_ns=disk.mtime_ns)

    # --- writes ----------------------------------------------------------------------------

    async def write_bytes(self, path: Path, data: bytes, ctx: EditContext) -> None:
        # Marked before the edit goes out: an editor re-checks as soon as it applies the change,
        # which can be before it answers applyEdit, and that report already describes the new text.
        self.diagnostics.mark_edit(_key(path))
        document = self._document(path)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = None  # binary content has no place in an editor buffer
        if document is None or text is None:
            await self._disk.write_bytes(path, data, ctx)
            return
        apply_edit, document_changes, saves = self._client()
        current = self._text(path, document)
        unsaved = not saves and (
            _key(path) in self._modified or current.encode("utf-8") != await self._disk_bytes(path)
        )
        if not apply_edit or (not saves and not unsaved):
            await self._disk.write_bytes(path, data, ctx)
            self._overlay[_key(path)] = text  # the editor's reload brings its buffer here
            return
        text = await self._edit_open(path, document, current, text, ctx.label, document_changes)
        if not saves:
            self._modified.add(_key(path))
            # A stock editor asks about a modified buffer over a newer file (Neovim W12, Emacs "changed
            # on disk"): its disk keeps the user's last save, and their next save writes both. A plugin
            # client is told of every edit (agent/event) and keeps its buffer and the disk together.
            if agent_capability(self._server.client_capabilities) is not None:
                await self._disk.write_bytes(path, text.encode("utf-8"), ctx)

    async def _disk_bytes(self, path: Path) -> bytes | None:
        try:
            return await self._disk.read_bytes(path)
        except FileNotFoundError:
            return None

    async def delete(self, path: Path, ctx: EditContext) -> None:
        apply_edit, document_changes, _ = self._client()
        if self.is_open(path) and apply_edit and document_changes and self._can("delete"):
            change = lsp.DeleteFile(
                uri=uri_of(path), options=lsp.DeleteFileOptions(ignore_if_not_exists=True)
            )
            applied, reason = await self._apply(lsp.WorkspaceEdit(document_changes=[change]), ctx.label, [])
            if not applied:
                log.info("the editor refused to close the deleted %s (%s); deleting it on disk", path, reason)
        if (await self._disk.stat(path)).exists:
            await self._disk.delete(path, ctx)

    def _can(self, operation: str) -> bool:
        caps = self._server.client_capabilities.workspace
        edit = caps.workspace_edit if caps else None
        operations = edit.resource_operations if edit is not None else None
        return operation in {str(op.value) for op in operations or ()}

    async def wait_diagnostics(self, path: Path, timeout: float = 2.0) -> list[str]:
        """Error-level editor diagnostics of the first report after the last edit of ``path``."""
        return await self.diagnostics.wait(_key(path), timeout)

    async def _edit_open(
        self, path: Path, document: TextDocument, base: str, text: str, label: str, versioned: bool
    ) -> str:
        """Put ``text`` in an open buffer; returns what the buffer holds afterwards."""
        # A version is only known while no edit of ours is unconfirmed; else the editor checks none.
        version = document.version if versioned and _key(path) not in self._overlay else None
        seq = self._seq.get(_key(path), 0)
        applied, reason = await self._replace(path, document.uri, version, base, text, label, versioned)
        if applied:
            return text
        current = self._document(path)
        if current is None:
            raise ToolError(CHANGED_UNDER_US)
        theirs = self._text(path, current)
        if self._seq.get(_key(path), 0) == seq and theirs == base:
            # Nothing changed in the buffer: the user (or the editor) said no.
            raise ToolError(refused(path, reason))
        # The user typed between our read and the edit: re-apply the agent's change on top, once.
        merged = rebase(base, text, theirs)
        if merged is None:
            raise ToolError(CHANGED_UNDER_US)
        again = current.version if versioned else None
        applied, _ = await self._replace(path, current.uri, again, theirs, merged, label, versioned)
        if applied:
            return merged
        raise ToolError(CHANGED_UNDER_US)

    async def _replace(
        self, path: Path, uri: str, version: int | None, old: str, new: str, label: str, versioned: bool
    ) -> tuple[bool, str]:
        (l0, c0), (l1, c1), replacement = smallest_edit(old, new, self._encoding())
        edit = lsp.TextEdit(range=_range(l0, c0, l1, c1), new_text=replacement)
        if versioned:
            identifier = lsp.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version)
            workspace_edit = lsp.WorkspaceEdit(
                document_changes=[lsp.TextDocumentEdit(text_document=identifier, edits=[edit])]
            )
        else:
            workspace_edit = lsp.WorkspaceEdit(changes={uri: [edit]})
        return await self._apply(workspace_edit, label, [(_key(path), new)])

    async def _apply(
        self, edit: lsp.WorkspaceEdit, label: str, results: list[tuple[Path, str]]
    ) -> tuple[bool, str]:
        """Send one applyEdit; an error reply is a refusal. Applied: ``results`` become our view."""
        params = lsp.ApplyWorkspaceEditParams(edit=edit, label=label or None)
        future: Future[Any] = self._server.protocol.send_request(lsp.WORKSPACE_APPLY_EDIT, params)
        answered: dict[Path, int] = {}

        def note(_: Future[Any]) -> None:
            # Runs as the answer is read, before any later didChange: later reports are newer.
            for path, _text in results:
                answered[path] = self._seq.get(path, 0)

        future.add_done_callback(note)
        try:
            result = await asyncio.wrap_future(future)
        except JsonRpcException as exc:
            log.info("workspace/applyEdit (%s) answered with an error: %s", label, exc.message)
            return False, exc.message
        if not getattr(result, "applied", False):
            reason = getattr(result, "failure_reason", None) or ""
            log.info("workspace/applyEdit refused (%s): %s", label, reason)
            return False, reason
        for path, text in results:
            if self._seq.get(path, 0) == answered.get(path):
                self._overlay[path] = text
        return True, ""


def refused(path: Path, reason: str) -> str:
    """The tool error for an edit the editor did not apply."""
    why = f" ({reason})" if reason else ""
    return f"the editor refused the edit of {path.name}{why}; the file is unchanged. Do not retry it as is."


def _range(l0: int, c0: int, l1: int, c1: int) -> lsp.Range:
    return lsp.Range(start=lsp.Position(line=l0, character=c0), end=lsp.Position(line=l1, character=c1))


def register_document_hooks(
    server: LanguageServer,
    current: Callable[[], LspWorkspace | None],
    typed: Callable[[], None] = lambda: None,
    edited: Callable[[str], None] = lambda uri: None,
    opened: Callable[[str], None] = lambda uri: None,
    others: Callable[[], list[LspWorkspace]] = list,
) -> None:
    """Feed buffer changes and ``agent/diagnostics`` reports to the workspace ``current()`` returns
    (and to the ``others()``: the worktree agents' workspaces); ``typed()`` hears of each didChange
    (the user is typing), ``edited(uri)`` of each document's, ``opened(uri)`` of each didOpen and
    didClose."""

    def every() -> list[LspWorkspace]:
        workspace = current()
        return [*([workspace] if workspace is not None else []), *others()]

    def changed(params: Any) -> None:
        typed()
        for workspace in every():
            workspace.document_changed(params.text_document.uri)
        edited(params.text_document.uri)

    def reset(params: Any) -> None:
        for workspace in every():
            workspace.document_reset(params.text_document.uri)
        opened(params.text_document.uri)

    def saved(params: Any) -> None:
        for workspace in every():
            workspace.document_changed(params.text_document.uri, saved=True)

    server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)(changed)
    server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)(reset)
    server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)(reset)
    # Registering didSave makes the server ask for it (textDocumentSync.save).
    server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)(saved)

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
