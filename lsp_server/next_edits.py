"""Next edits conditioned on the session (issue #41): when the agent's or the user's edit starts a
pattern (a renamed identifier, a changed call signature), the small model's edit at each remaining
site is offered as an inline completion (``textDocument/inlineCompletion``, LSP 3.18) and as the
code action "Apply the agent's pattern here".

Off unless the client sets ``nextEdits`` (``lsp_server.clients``): then no capability is announced
(``handshake``), and the handlers return at their first line, so no model is ever asked. On, the
pattern comes from the agent's new hunks (``review.updated``) and from the user's own edits
(``didChange``, read after a quiet moment). The sites are the lines of the open documents that
still match it (``core.next_edits.sites``, bounded), nearest the cursor first. The small model is
asked in the background, one site at a time: a keystroke cancels the work (it starts again after
``QUIET`` seconds of quiet), and requests never wait for the model: they answer from the cache or
with nothing (``next_edits_cache``).
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from lsprotocol import types as lsp
from pydantic import Field
from pygls.workspace import TextDocument

from core.editor import EditorLocation
from core.errors import AgentError, InvalidInputError, ToolError
from core.events import Event, ReviewUpdated
from core.message.review import Hunk
from core.next_edits.pattern import Pattern, anchor, changed_lines, detect
from core.next_edits.request import NextEditRequest
from core.next_edits.sites import Site, context_of, find_sites, nearest_first
from lsp_server import protocol as p
from lsp_server.editor import EditorClient
from lsp_server.errors import jsonrpc_errors
from lsp_server.next_edits_cache import APPLIED, Suggestion, SuggestionCache, code_action, inline_item
from lsp_server.protocol import NextEditReady, dump
from lsp_server.workspace import path_of, uri_of

if TYPE_CHECKING:
    from core.api import Agent
    from lsp_server.server import AgentServer

log = logging.getLogger(__name__)

QUIET = 0.3  # seconds without a keystroke before the model is asked
MAX_ASKS = 8  # model calls per pattern (the sites nearest the cursor)
MAX_DOCUMENTS = 50  # open documents scanned for sites
MAX_EXAMPLES = 4
MAX_CLOSED = 50  # closed files the editor's references name that are read for sites
MAX_CLOSED_BYTES = 1_000_000
READY = "agent/nextEdit/ready"


class Applied(p.Params):
    """``agentls.nextEditApplied``'s argument: the suggestion the client applied (next_edits_cache)."""

    uri: str
    line: int = Field(ge=0)
    original: str
    new: str
    sessionID: str = Field(min_length=1)


class NextEdits:
    """The current pattern, its cached edits and the background work that fills them."""

    def __init__(self, server: AgentServer) -> None:
        self.server = server
        self.app: Agent | None = None
        self.cache = SuggestionCache()
        self.pattern: Pattern | None = None
        self.session: str | None = None  # whose hunk started the pattern (None: the user's edit)
        # The function whose calls are the pattern's sites (from the agent's hunk), and the lines
        # the editor's references of it name, by document (asked once a pattern; None: not yet).
        self.anchor: EditorLocation | None = None
        self.referenced: dict[str, set[int]] | None = None
        self.examples: list[str] = []
        self.asked = 0  # model calls made for the current pattern
        # The model's rewrite of each line text asked for the current pattern (None: no edit): a
        # line that reads the same again (an undone edit, a copy elsewhere) is not asked twice.
        self.answers: dict[str, str | None] = {}
        self.focus: tuple[str | None, int] = (None, 0)  # where the user is: sites near it go first
        self._bases: dict[str, str] = {}  # each document's text when its edits were last read
        self._job: asyncio.Task[None] | None = None

    @property
    def enabled(self) -> bool:
        """Whether the client turned the feature on (``nextEdits``)."""
        return self.server.connection.next_edits

    # --- what starts a pattern --------------------------------------------------------

    def ready(self, app: Agent) -> None:
        """The agent is open: listen for its hunks."""
        self.app = app
        app.listen(self._on_event, ReviewUpdated)
        if self.pattern is not None:  # the user's edit came while the agent was opening
            self._restart()

    def _on_event(self, event: Event) -> None:
        if not self.enabled or not isinstance(event, ReviewUpdated):
            return
        started = False
        for hunk in event.changed:
            if hunk.state != "pending" or hunk.kind != "text":
                continue
            before = [line.rstrip("\r\n") for line in hunk.before]
            after = [line.rstrip("\r\n") for line in hunk.after]
            pattern = detect(before, after)
            if pattern is not None:
                at = anchor(pattern, after)
                where = None
                if at is not None and self.app is not None:
                    where = EditorLocation(self.app.worktree / hunk.file, hunk.afterStart + at[0], at[1])
                self._start(pattern, _diff(hunk.file, before, after, hunk.beforeStart), hunk.sessionID, where)
                started = True
        if started:
            self._restart()

    def opened(self, uri: str) -> None:
        """``didOpen`` / ``didClose``: the user's edits are read from this text on."""
        if not self.enabled:
            return
        document = self.server.workspace.text_documents.get(uri)
        if document is None:
            self._bases.pop(uri, None)
            self.cache.forget(uri)
        else:
            self._bases[uri] = document.source

    def changed(self, uri: str) -> None:
        """``didChange``: the user is typing: stop asking the model; read the edit when it is quiet."""
        if not self.enabled:
            return
        document = self.server.workspace.text_documents.get(uri)
        if document is not None:
            self._bases.setdefault(uri, document.source)
        self._restart(uri)

    def _start(
        self, pattern: Pattern, example: str, session: str | None = None, at: EditorLocation | None = None
    ) -> None:
        if pattern != self.pattern:
            self.pattern, self.asked, self.session = pattern, 0, session
            self.answers = {}
            self.anchor, self.referenced = at, None
            self.examples = []
            self.cache.clear()
        elif session is not None:  # the agent's hunk of a pattern the user started: now the agent's
            self.session = session
        if self.anchor is None and at is not None:
            self.anchor, self.referenced = at, None
        self.examples = [*self.examples, example][-MAX_EXAMPLES:]

    def _restart(self, edited: str | None = None) -> None:
        if self._job is not None:
            self._job.cancel()
        self._job = self.server.spawn(self._after_quiet(edited))

    async def _after_quiet(self, edited: str | None) -> None:
        await asyncio.sleep(QUIET)  # a debounce: cancelled by the next keystroke
        if edited is not None:
            self._read_user_edit(edited)
        await self._fill()

    def _read_user_edit(self, uri: str) -> None:
        document = self.server.workspace.text_documents.get(uri)
        if document is None:
            return
        text, base = document.source, self._bases.get(uri)
        self._bases[uri] = text
        region = changed_lines(base, text) if base is not None else None
        if region is None:
            return
        pattern = detect(*region)
        if pattern is not None and not _reverses(pattern, self.pattern):
            self._start(pattern, _diff(_shown(uri), *region, 0))

    # --- the model, in the background -------------------------------------------------

    async def _fill(self) -> None:
        app, pattern = self.app, self.pattern
        if app is None or pattern is None:
            return
        documents = list(self.server.workspace.text_documents.values())[:MAX_DOCUMENTS]
        texts: dict[str, tuple[int | None, str]] = {d.uri: (d.version, d.source) for d in documents}
        sites = find_sites(pattern, ((d.uri, d.source) for d in documents))
        sites += await self._closed_sites(pattern, texts)
        if self.pattern is not pattern:
            return  # another pattern started while the editor answered
        for site in nearest_first(sites, *self.focus):
            if self.cache.has(site.uri, site.line, site.text):
                continue
            if site.text not in self.answers and self.asked >= MAX_ASKS:
                continue
            version, source = texts[site.uri]
            before, after = context_of(source, site.line)
            request = NextEditRequest(
                pattern=pattern.describe(),
                examples=self.examples,
                file=_shown(site.uri),
                before=before,
                line=site.text,
                after=after,
            )
            if site.text in self.answers:
                new = self.answers[site.text]
            else:
                self.asked += 1
                try:
                    new = await app.next_edit(request)
                except AgentError as exc:  # (logged by the core) no answer: asked again at the next pause
                    log.debug("next edit: no answer for %s:%d: %s", site.uri, site.line + 1, exc)
                    if self.pattern is not pattern:
                        return
                    continue
                if self.pattern is not pattern:
                    return  # another pattern started meanwhile
                self.answers[site.text] = new
            if new is not None:
                described = pattern.describe()
                suggestion = Suggestion(site.uri, version, site.line, site.text, new, described, self.session)
                self.cache.put(suggestion)
                self._announce(suggestion)

    async def _closed_sites(self, pattern: Pattern, texts: dict[str, tuple[int | None, str]]) -> list[Site]:
        """The sites at the lines the editor's references name in files no editor shows (read from
        disk, their text added to ``texts``): their edits are ready when the user opens them."""
        if self.referenced is None:
            self.referenced = await self._references()
        closed: list[tuple[str, str]] = []
        for uri in [u for u in self.referenced if u not in texts][:MAX_CLOSED]:
            path = path_of(uri)
            try:
                if path is None or path.stat().st_size > MAX_CLOSED_BYTES:
                    continue
                text = await asyncio.to_thread(path.read_text, encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                log.info("next edit: %s not read: %s", uri, exc)
                continue
            closed.append((uri, text))
            texts[uri] = (None, text)
        return [s for s in find_sites(pattern, closed) if s.line in self.referenced[s.uri]]

    async def _references(self) -> dict[str, set[int]]:
        """The lines the editor's references of the anchor name, by document; none when the client
        answers no references (a stock client) or the query fails (logged: the user asked nothing)."""
        workspace, at = self.server.lsp_workspace, self.anchor
        if workspace is None or at is None:
            return {}
        editor = EditorClient(self.server, self.server.connection, workspace)
        if "references" not in editor.supported():
            return {}
        try:
            found = await editor.references(at)
        except ToolError as exc:
            log.info("next edit: the editor's references of %s:%d failed: %s", at.path, at.line + 1, exc)
            return {}
        lines: dict[str, set[int]] = {}
        for location in found:
            lines.setdefault(uri_of(location.path), set()).add(location.line)
        return lines

    def _announce(self, suggestion: Suggestion) -> None:
        """Tell the client (a plugin re-asks for inline completions if its cursor is there)."""
        log.info("next edit ready at %s:%d", suggestion.uri, suggestion.line + 1)
        if self.server.connection.plugin:
            ready = NextEditReady(uri=suggestion.uri, line=suggestion.line)
            self.server.notify(READY, ready.model_dump())
        else:  # stock clients keep Log lines out of sight (a script can wait for it)
            where = f"{_shown(suggestion.uri)}:{suggestion.line + 1}"
            self.server.log_message(f"agentls: next edit ready at {where}")

    # --- what the editor asks ---------------------------------------------------------

    def _document(self, uri: str, line: int) -> TextDocument | None:
        if not self.enabled:
            return None
        self.focus = (uri, line)
        document: TextDocument | None = self.server.workspace.text_documents.get(uri)
        return document

    def inline_completion(self, params: lsp.InlineCompletionParams) -> lsp.InlineCompletionList | None:
        """The cached edit at the cursor's line, or nothing; never waits for the model."""
        line = params.position.line
        document = self._document(params.text_document.uri, line)
        if document is None:
            return None
        found = self.cache.at(document, line)
        return lsp.InlineCompletionList(items=[inline_item(document, found)]) if found else None

    async def code_actions(self, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
        """ "Apply the agent's pattern here" on each line of the range with a cached edit."""
        first, last = params.range.start.line, max(params.range.start.line, params.range.end.line)
        document = self._document(params.text_document.uri, first)
        if document is None:
            return []
        found = (self.cache.at(document, line) for line in range(first, min(last, first + 50) + 1))
        return [code_action(document, s) for s in found if s is not None]

    async def applied(self, choice: Applied) -> list[Hunk]:
        """``agentls.nextEditApplied``: the client applied a suggestion of the agent's pattern; it
        joins the review of the session whose pattern it was (the document must show the edit)."""
        document = self.server.workspace.text_documents.get(choice.uri)
        path = path_of(choice.uri)
        if document is None or path is None:
            raise InvalidInputError(f"{choice.uri} is not open in the editor: the edit was not recorded")
        lines = document.source.splitlines(keepends=True)
        current = lines[choice.line].rstrip("\r\n") if choice.line < len(lines) else None
        if current != choice.new:
            raise InvalidInputError(
                f"line {choice.line + 1} of {_shown(choice.uri)} reads {current!r}, not the applied edit "
                f"{choice.new!r}: the edit was not recorded"
            )
        ending = lines[choice.line][len(current) :]
        before = "".join([*lines[: choice.line], choice.original + ending, *lines[choice.line + 1 :]])
        app = await self.server.app()
        return await app.record_edit(choice.sessionID, str(path), before, document.source)


def _reverses(pattern: Pattern, current: Pattern | None) -> bool:
    """Whether ``pattern`` takes ``current`` back (the user undid an accepted suggestion): that is
    no pattern to offer elsewhere, and the current one keeps its suggestions."""
    if current is None or not pattern.kind == current.kind == "rename":
        return False
    return (pattern.old, pattern.new) == (current.new, current.old)


def _shown(uri: str) -> str:
    path = path_of(uri)
    return path.name if path is not None else uri


def _diff(file: str, before: list[str], after: list[str], start: int) -> str:
    """An edit as the model reads it: the file, the first line, the lines removed and added."""
    removed = [f"-{line}" for line in before]
    added = [f"+{line}" for line in after]
    return "\n".join([f"--- {file} (line {start + 1})", *removed, *added])


def register(server: AgentServer) -> NextEdits:
    """Add the inline completion handler and ``agentls.nextEditApplied``; the caller routes code
    actions and document events."""
    edits = NextEdits(server)
    server.app_ready.append(edits.ready)

    @server.feature(lsp.TEXT_DOCUMENT_INLINE_COMPLETION, lsp.InlineCompletionOptions())
    def inline_completion(params: lsp.InlineCompletionParams) -> lsp.InlineCompletionList | None:
        return edits.inline_completion(params)

    @server.command(APPLIED)
    @jsonrpc_errors
    async def applied(*args: Any) -> Any:
        return dump(await edits.applied(p.parse(Applied, args[0] if args else {})))

    return edits
