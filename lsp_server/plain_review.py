"""Review and mode for stock LSP clients: code actions on a pending hunk, and commands.

On a range that touches a pending hunk of the client's current session (``PlainPath``), a stock
client gets "Keep agent change" and "Undo agent change" code actions (``agentls.keep`` /
``agentls.undo``); ``agentls.review`` opens the pending hunks as a diff document (``plain_document``;
a message names them where the client cannot open it), ``agentls.mode [mode]`` and ``agentls.effort
[level]`` show or set the session's mode and effort. The same hunks show as code lenses and hint
diagnostics (``plain_marks``). Plugin clients have their own review views (``agent/review/*``) and
get none of these actions. Hunk lines are where the agent left them (``afterStart``): lines the user
added above since shift what a range matches.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types as lsp
from pydantic import Field

from core.message.review import Hunk, ReviewResult
from lsp_server import plain_document, plain_marks
from lsp_server import protocol as p
from lsp_server.errors import jsonrpc_errors
from lsp_server.protocol import dump
from lsp_server.workspace import path_of

if TYPE_CHECKING:
    from core.api import Agent
    from lsp_server.server import AgentServer

log = logging.getLogger(__name__)

KEEP, UNDO, REVIEW, MODE, EFFORT = (
    "agentls.keep",
    "agentls.undo",
    "agentls.review",
    "agentls.mode",
    "agentls.effort",
)
COMMANDS = (REVIEW, KEEP, UNDO, MODE, EFFORT)


class HunkChoice(p.Params):
    """``agentls.keep`` / ``agentls.undo``'s argument: hunks of a session (default: the current one, all)."""

    sessionID: str | None = Field(default=None, min_length=1)
    hunkIDs: list[str] | None = None


class ReviewChoice(HunkChoice):
    """``agentls.review``'s argument: the hunks to show (default: all), and whether to open them."""

    show: bool = True  # False: only answer with the hunks (a script polling the review)


class ReviewActions:
    """The agent once it runs, for code actions (which must not wait for it to start)."""

    def __init__(self, server: AgentServer) -> None:
        self.server = server
        self.app: Agent | None = None

    async def actions(self, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
        """Keep / Undo for each pending hunk of the current session that the range touches."""
        app, session_id = self.app, self.server.plain.session_id
        if app is None or session_id is None or self.server.connection.plugin:
            return []
        path = path_of(params.text_document.uri)
        if path is None:
            return []
        file = _relative(app, path)
        first, last = params.range.start.line, max(params.range.end.line, params.range.start.line)
        out: list[lsp.CodeAction] = []
        for hunk in await app.review(session_id):
            if hunk.file != file or not _touches(hunk, first, last):
                continue
            where = hunk.lines_label() + hunk.by()
            for title, command in (("Keep agent change", KEEP), ("Undo agent change", UNDO)):
                argument = {"sessionID": session_id, "hunkIDs": [hunk.id]}
                full = f"{title} ({where})"
                out.append(
                    lsp.CodeAction(
                        title=full,
                        kind=lsp.CodeActionKind.Empty,
                        command=lsp.Command(title=full, command=command, arguments=[argument]),
                    )
                )
        return out


def _relative(app: Agent, path: Path) -> str | None:
    try:
        return path.resolve().relative_to(app.worktree.resolve()).as_posix()
    except ValueError:
        return None


def _touches(hunk: Hunk, first: int, last: int) -> bool:
    if hunk.kind != "text":
        return True  # a whole-file change: anywhere in the file
    start = hunk.afterStart
    end = start + max(len(hunk.after), 1) - 1  # lines removed: the line where they were
    return start <= last and first <= end


def review_text(hunks: list[Hunk]) -> str:
    """The pending hunks as one message."""
    if not hunks:
        return "agentls: no agent changes wait for review"
    lines = [
        f"- {h.file}: {h.lines_label()} (+{len(h.after)} -{len(h.before)}) {h.id}{h.by()}" for h in hunks
    ]
    return f"agentls: {len(hunks)} agent change(s) to review\n" + "\n".join(lines)


def _result_text(verb: str, result: ReviewResult) -> str:
    lines = [f"agentls: {verb} {len(result.changed)} agent change(s)"]
    lines += [f"- {h.file}: {h.lines_label()}" for h in result.changed]
    lines += [f"not undone, {c.file}: {c.reason}" for c in result.conflicts]
    return "\n".join(lines)


async def _open_review(
    server: AgentServer,
    documents: plain_document.VirtualDocuments,
    app: Agent,
    session_id: str,
    hunks: list[Hunk],
    whole: bool,
) -> None:
    """The review as a document in the client, else as a message naming its file."""
    if not hunks:
        gone = "no agent changes wait for review" if whole else "that agent change no longer waits for review"
        server.show_message(f"agentls: {gone}")
        return
    text = plain_document.review_diff(hunks, (await app.get_session(session_id)).title)
    # A virtual document where the client asks the server for it, else a file any client opens.
    virtual = plain_document.can_show(server) and documents.supported()
    if virtual and await plain_document.show(server, await documents.put(session_id, text)):
        return
    path = plain_document.review_file(session_id, text)
    if not await plain_document.show(server, path.as_uri()):
        server.show_message(f"{review_text(hunks)}\nThe diff: {path}")


def _word(args: tuple[Any, ...]) -> str | None:
    first = args[0] if args else None
    return first if isinstance(first, str) and first.strip() else None


def register(server: AgentServer) -> ReviewActions:
    """Add the review and mode commands; the code actions are served through ``actions``."""
    review = ReviewActions(server)
    marks = plain_marks.register(server)
    documents = plain_document.register(server)
    server.plain.session_changed.append(lambda: server.spawn(marks.refresh()))

    def ready(app: Agent) -> None:
        review.app = app

    server.app_ready.append(ready)

    @server.command(REVIEW)
    @jsonrpc_errors
    async def list_(*args: Any) -> Any:
        choice = p.parse(ReviewChoice, args[0] if args and args[0] is not None else {})
        app = await server.app()
        session_id = choice.sessionID or await server.plain.session(app)
        hunks = await app.review(session_id)
        if choice.hunkIDs is not None:
            hunks = [h for h in hunks if h.id in choice.hunkIDs]
        if choice.show:
            await _open_review(server, documents, app, session_id, hunks, whole=choice.hunkIDs is None)
        return dump(hunks)

    def decide(command: str) -> None:
        @server.command(command)
        @jsonrpc_errors
        async def run(*args: Any) -> Any:
            choice = p.parse(HunkChoice, args[0] if args else {})
            app = await server.app()
            session_id = choice.sessionID or await server.plain.session(app)
            if command == KEEP:
                result = await app.keep(session_id, choice.hunkIDs)
            else:
                result = await app.undo(session_id, choice.hunkIDs)
            # The marks go before the answer: eglot 1.9 (Emacs 28's jsonrpc) leaves a notification
            # that arrives right after the reply it waits for unread until more comes.
            await marks.refresh()
            server.show_message(_result_text("kept" if command == KEEP else "undid", result))
            return dump(result)

    for command in (KEEP, UNDO):
        decide(command)

    @server.command(MODE)
    @jsonrpc_errors
    async def mode(*args: Any) -> Any:
        app = await server.app()
        state = await app.session_mode(await server.plain.session(app), _word(args))
        names = ", ".join(m.id for m in state.modes)
        server.show_message(f"agentls: mode {state.mode} (modes: {names})")
        return {"sessionID": state.session_id, "mode": state.mode, "modes": [m.id for m in state.modes]}

    @server.command(EFFORT)
    @jsonrpc_errors
    async def effort(*args: Any) -> Any:
        app = await server.app()
        state = await app.session_effort(await server.plain.session(app), _word(args))
        levels = ", ".join(state.levels) or "none for this model"
        server.show_message(f"agentls: effort {state.effort} (levels: {levels})")
        return {"sessionID": state.session_id, "effort": state.effort, "levels": list(state.levels)}

    return review
