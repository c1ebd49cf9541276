"""The session's review as a document a stock LSP client opens (``agentls.review``, the "Diff" lens).

The pending hunks as one unified diff, opened with ``window/showDocument`` where the client supports
it. A client with LSP 3.18's ``workspace/textDocumentContent`` (dynamically registered for the
``agentls`` scheme) gets a virtual ``agentls:/review/<session>-<digest>.diff`` the server serves;
any other — Neovim 0.11 and eglot 1.9 have no such request — a file written to
``<data dir>/review/<session>-<digest>.diff``. Without ``window/showDocument`` (eglot 1.9) the
message names the file.
"""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

from core.config.paths import data_dir
from core.message.review import Hunk

if TYPE_CHECKING:
    from lsp_server.server import AgentServer

log = logging.getLogger(__name__)

SCHEME = "agentls"


def review_diff(hunks: list[Hunk], title: str) -> str:
    """The hunks as a unified diff, grouped by file, with a header saying how to act on them."""
    lines = [
        f"# agentls review: {len(hunks)} pending agent change(s) in session {title!r}",
        "# Keep or Undo each one in its file (code lens or code action), or all: agentls.keep, agentls.undo.",
    ]
    if not hunks:
        lines.append("# Nothing waits for review.")
    shown: str | None = None
    for hunk in hunks:
        if hunk.file != shown:
            shown = hunk.file
            lines += ["", f"--- a/{hunk.file}", f"+++ b/{hunk.file}"]
        if hunk.kind != "text":
            lines.append(f"@@ {hunk.lines_label()} @@ {hunk.id}{hunk.by()}")
            continue
        old = f"{hunk.beforeStart + 1},{len(hunk.before)}"
        new = f"{hunk.afterStart + 1},{len(hunk.after)}"
        lines.append(f"@@ -{old} +{new} @@ {hunk.id}{hunk.by()}")
        lines += ["-" + text.rstrip("\r\n") for text in hunk.before]
        lines += ["+" + text.rstrip("\r\n") for text in hunk.after]
    return "\n".join(lines) + "\n"


def review_file(session_id: str, text: str) -> Path:
    """Write the review of ``session_id`` where the client can open it.

    Named by its content: an editor that still holds an earlier review in a buffer shows that buffer
    when asked to open the same file again, so a changed review gets a new name (the old file goes).
    """
    folder = data_dir() / "review"
    folder.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256(text.encode()).hexdigest()[:12]
    path = folder / f"{session_id}-{digest}.diff"
    for old in folder.glob(f"{session_id}-*.diff"):
        if old != path:
            old.unlink(missing_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def can_show(server: AgentServer) -> bool:
    """Whether the client opens documents the server asks it to (``window/showDocument``)."""
    window = server.client_capabilities.window
    return window is not None and window.show_document is not None and bool(window.show_document.support)


async def show(server: AgentServer, uri: str) -> bool:
    """Open ``uri`` in the client; False when it cannot or refused."""
    if not can_show(server):
        return False
    try:
        result = await server.window_show_document_async(lsp.ShowDocumentParams(uri=uri, take_focus=True))
    except JsonRpcException as exc:
        log.info("window/showDocument %s failed: %s", uri, exc)
        return False
    return bool(result.success)


class VirtualDocuments:
    """Review documents served by URI (``workspace/textDocumentContent``), for clients that have it."""

    def __init__(self, server: AgentServer) -> None:
        self.server = server
        self.texts: dict[str, str] = {}
        self._registered = False

    def supported(self) -> bool:
        """Whether the client can be told to ask for ``agentls:`` documents (dynamic registration)."""
        workspace = self.server.client_capabilities.workspace
        content = workspace.text_document_content if workspace is not None else None
        return content is not None and bool(content.dynamic_registration)

    async def put(self, session_id: str, text: str) -> str:
        """Serve ``text`` as the review of ``session_id`` (registering the scheme first); its URI."""
        if not self._registered:
            options = lsp.TextDocumentContentRegistrationOptions(schemes=[SCHEME])
            method = lsp.WORKSPACE_TEXT_DOCUMENT_CONTENT
            registration = lsp.Registration(id=f"{SCHEME}-review", method=method, register_options=options)
            await self.server.client_register_capability_async(lsp.RegistrationParams([registration]))
            self._registered = True
        digest = hashlib.sha256(text.encode()).hexdigest()[:12]
        uri = f"{SCHEME}:/review/{session_id}-{digest}.diff"
        prefix = f"{SCHEME}:/review/{session_id}-"
        for old in [u for u in self.texts if u.startswith(prefix)]:
            del self.texts[old]
        self.texts[uri] = text
        return uri

    def content(self, uri: str) -> str:
        """The text of a document served here (-32602 for any other URI)."""
        if uri not in self.texts:
            raise JsonRpcInvalidParams(message=f"invalid params: uri: {uri} is not a review agentls serves")
        return self.texts[uri]


def register(server: AgentServer) -> VirtualDocuments:
    """Serve ``workspace/textDocumentContent`` for the review documents."""
    documents = VirtualDocuments(server)

    @server.feature(lsp.WORKSPACE_TEXT_DOCUMENT_CONTENT)
    def content(params: lsp.TextDocumentContentParams) -> lsp.TextDocumentContentResult:
        return lsp.TextDocumentContentResult(text=documents.content(params.uri))

    return documents
