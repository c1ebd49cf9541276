"""The agent's pending changes marked in a stock client's files: code lenses and hint diagnostics.

A stock LSP client (no agentls plugin: Neovim's built-in client, eglot, Helix…) sees each pending
hunk of its current session (``PlainPath``) as code lenses "Keep", "Undo" and "Diff" on the hunk's
first line (``agentls.keep`` / ``agentls.undo`` / ``agentls.review`` with the hunk's id), and its
lines as a hint diagnostic (source ``agentls``) that goes when the hunk is kept or undone. Lenses
are asked for again after ``workspace/codeLens/refresh`` where the client supports it, else on its
next request; a client without code lenses still has the code actions (``plain_review``). Plugin
clients draw their own review (``agent/review/*``) and get neither.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException

from core.events import Event, ReviewUpdated
from core.message.review import Hunk
from lsp_server.workspace import path_of

if TYPE_CHECKING:
    from core.api import Agent
    from lsp_server.server import AgentServer

log = logging.getLogger(__name__)

SOURCE = "agentls"  # the diagnostics' source; the fix actions leave these alone (code_actions)
CODE = "agent-change"
LENSES = (("Keep", "agentls.keep"), ("Undo", "agentls.undo"), ("Diff", "agentls.review"))


def hunk_range(hunk: Hunk) -> lsp.Range:
    """The hunk's lines in the agent's version (the line where lines were removed; line 0 for a
    whole-file change)."""
    if hunk.kind != "text":
        return _at(0)
    start = hunk.afterStart
    if not hunk.after:
        return _at(start)
    last = hunk.after[-1].rstrip("\r\n")
    end = lsp.Position(line=start + len(hunk.after) - 1, character=len(last))
    return lsp.Range(start=lsp.Position(line=start, character=0), end=end)


def _at(line: int) -> lsp.Range:
    return lsp.Range(start=lsp.Position(line=line, character=0), end=lsp.Position(line=line, character=0))


def lenses(hunks: list[Hunk], session_id: str) -> list[lsp.CodeLens]:
    """Keep · Undo · Diff above each hunk's first line."""
    out: list[lsp.CodeLens] = []
    for hunk in hunks:
        line = _at(hunk_range(hunk).start.line)
        argument = {"sessionID": session_id, "hunkIDs": [hunk.id]}
        for title, command in LENSES:
            run = lsp.Command(title=title, command=command, arguments=[argument])
            out.append(lsp.CodeLens(range=line, command=run))
    return out


def diagnostic(hunk: Hunk) -> lsp.Diagnostic:
    """The hint that marks a pending hunk's lines."""
    return lsp.Diagnostic(
        range=hunk_range(hunk),
        message=f"agent change ({hunk.lines_label()}){hunk.by()} waiting for review: Keep or Undo",
        severity=lsp.DiagnosticSeverity.Hint,
        source=SOURCE,
        code=CODE,
        data={"hunkID": hunk.id},
    )


class ReviewMarks:
    """Publishes the current session's pending hunks as diagnostics and serves its code lenses."""

    def __init__(self, server: AgentServer) -> None:
        self.server = server
        self.app: Agent | None = None
        self._marked: set[Path] = set()  # files whose hints are published
        self._lock = asyncio.Lock()

    def ready(self, app: Agent) -> None:
        """Follow the review once the agent runs."""
        self.app = app
        app.listen(self._on_event, ReviewUpdated)

    def _on_event(self, event: Event) -> None:
        assert isinstance(event, ReviewUpdated)
        if not self.server.connection.plugin and event.sessionID == self.server.plain.session_id:
            self.server.spawn(self.refresh())

    async def refresh(self) -> None:
        """Publish the hints of the current session's pending hunks (clearing files that have none
        left) and ask the client for its lenses again."""
        app, session_id = self.app, self.server.plain.session_id
        if app is None or self.server.connection.plugin or not self.server.connection.connected:
            return
        async with self._lock:
            hunks = await app.review(session_id) if session_id is not None else []
            by_file: dict[Path, list[Hunk]] = {}
            for hunk in hunks:
                by_file.setdefault(app.worktree / hunk.file, []).append(hunk)
            for path in self._marked | set(by_file):
                items = [diagnostic(h) for h in by_file.get(path, [])]
                params = lsp.PublishDiagnosticsParams(uri=path.as_uri(), diagnostics=items)
                self.server.text_document_publish_diagnostics(params)
            log.info("session %s: %d hunk(s) marked in %d file(s)", session_id, len(hunks), len(by_file))
            self._marked = set(by_file)
        if self._refresh_support():
            self.server.spawn(self._refresh_lenses())

    def _refresh_support(self) -> bool:
        workspace = self.server.client_capabilities.workspace
        code_lens = workspace.code_lens if workspace is not None else None
        return bool(code_lens is not None and code_lens.refresh_support)

    async def _refresh_lenses(self) -> None:
        try:
            await self.server.workspace_code_lens_refresh_async(None)
        except (JsonRpcException, ConnectionError) as exc:  # the lenses come on the client's next request
            log.info("workspace/codeLens/refresh failed: %s", exc)

    async def code_lens(self, params: lsp.CodeLensParams) -> list[lsp.CodeLens]:
        """The lenses of one file (none for a plugin client, or before the agent runs)."""
        app, session_id = self.app, self.server.plain.session_id
        if app is None or session_id is None or self.server.connection.plugin:
            return []
        path = path_of(params.text_document.uri)
        if path is None:
            return []
        try:
            file = path.resolve().relative_to(app.worktree.resolve()).as_posix()
        except ValueError:
            return []
        return lenses([h for h in await app.review(session_id) if h.file == file], session_id)


def register(server: AgentServer) -> ReviewMarks:
    """Serve ``textDocument/codeLens`` and publish the hints as the review changes."""
    marks = ReviewMarks(server)
    server.app_ready.append(marks.ready)

    @server.feature(lsp.TEXT_DOCUMENT_CODE_LENS, lsp.CodeLensOptions(resolve_provider=False))
    async def code_lens(params: lsp.CodeLensParams) -> list[lsp.CodeLens]:
        return await marks.code_lens(params)

    return marks
