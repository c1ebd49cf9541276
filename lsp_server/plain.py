"""A useful agent for clients without the agent protocol: commands, progress, dialogs, messages.

Such clients (any stock LSP client) get ``workspace/executeCommand`` commands on a current session,
a cancellable ``$/progress`` while a turn runs, the tool log in ``window/logMessage``, the answer in
``window/showMessage``, and permission and question dialogs and plan reviews (``plain_plan``) as
``window/showMessageRequest``.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

from core.errors import AgentError, NotFoundError
from core.events import (
    AgentWarning,
    PartUpdated,
    PermissionAsked,
    PermissionRequest,
    PlanReviewAsked,
    QuestionAsked,
    QuestionRequest,
)
from core.message.models import ToolPart
from core.message.prompt_input import AgentInput, FileInput, TextInput
from lsp_server import plain_plan
from lsp_server.errors import jsonrpc_errors
from lsp_server.plain_gate import NOTICE_AFTER, TypingGate, reask_after, typed_ahead
from lsp_server.plain_messages import answer_text, describe_part, permission_message
from lsp_server.protocol import dump

if TYPE_CHECKING:
    from core.api import Agent, Reply
    from core.bus import Subscription
    from lsp_server.server import AgentServer

log = logging.getLogger(__name__)

COMMANDS = ("agentls.prompt", "agentls.abort", "agentls.newSession", "agentls.compact")
ALLOW_ONCE, ALWAYS_ALLOW, REJECT, DISMISS = "Allow once", "Always allow", "Reject", "Dismiss"
PERMISSION_REPLIES: dict[str, Reply] = {ALLOW_ONCE: "once", ALWAYS_ALLOW: "always", REJECT: "reject"}

PromptParts = list[TextInput | FileInput | AgentInput]


class PlainPath:
    """The current session of this client and the turns it runs through commands."""

    def __init__(self, server: AgentServer) -> None:
        self.server = server
        self.session_id: str | None = None
        self.typing = TypingGate()  # fed by textDocument/didChange (workspace.register_document_hooks)
        self.session_changed: list[Callable[[], object]] = []  # the review marks follow the session

    def use(self, session_id: str) -> None:
        """Make ``session_id`` the current session."""
        changed = session_id != self.session_id
        self.session_id = session_id
        if changed:
            for callback in self.session_changed:
                callback()

    async def session(self, app: Agent) -> str:
        """The current session, created on first use (or when the current one was deleted)."""
        if self.session_id is not None:
            try:
                await app.get_session(self.session_id)
                return self.session_id
            except NotFoundError:
                self.session_id = None
        session_id = (await app.create_session()).id
        self.use(session_id)
        return session_id

    async def start(
        self, app: Agent, parts: PromptParts, label: str, wait: bool | None = None
    ) -> dict[str, Any]:
        """Run a turn for a command: to its end, or in the background when the client cannot wait.

        A background turn answers ``{sessionID, async: true}`` at once and delivers its answer with
        ``window/showMessage`` (eglot's requests time out after 10 s and block Emacs meanwhile).
        """
        if wait is None:
            wait = not self.server.connection.async_commands
        if wait:
            return await self.run(app, parts, label)
        session_id = await self.session(app)
        self.server.spawn(self._background(app, parts, label))
        return {"sessionID": session_id, "async": True}

    async def _background(self, app: Agent, parts: PromptParts, label: str) -> None:
        try:
            await self.run(app, parts, label)
        except AgentError as exc:
            self.server.show_message(f"agentls: {exc}", lsp.MessageType.Error)

    async def run(self, app: Agent, parts: PromptParts, label: str) -> dict[str, Any]:
        """Run one turn with progress and log; show the answer; return ids and text."""
        session_id = await self.session(app)
        token = await self._begin_progress(label, lambda: self.server.spawn(app.abort(session_id)))
        narrator = self.server.spawn(self._narrate(app.subscribe(PartUpdated, session_id=session_id), token))
        try:
            # A second prompt while one runs waits for it and gets its own turn (core: mode "queue").
            result = await app.prompt(session_id, parts, mode="queue")  # a cancelled request aborts the turn
        finally:
            narrator.cancel()
            self._end_progress(token)
        text = answer_text(result)
        error = getattr(result.info, "error", None)
        if error is not None:
            self.server.show_message(f"agentls: {error.message}", lsp.MessageType.Error)
        else:
            self.server.show_message(text or "agentls: the agent finished without an answer")
        return {"sessionID": session_id, "messageID": result.info.id, "text": text}

    async def _begin_progress(self, label: str, on_cancel: Any) -> str | None:
        window = self.server.client_capabilities.window
        if window is None or not window.work_done_progress:
            return None
        token = f"agentls-{uuid.uuid4().hex}"
        progress = self.server.work_done_progress
        await progress.create_async(token)
        # Cancelling the progress in the editor cancels this future (pygls): abort the turn.
        progress.tokens[token].add_done_callback(lambda f: on_cancel() if f.cancelled() else None)
        progress.begin(
            token, lsp.WorkDoneProgressBegin(title="agentls", message=label[:80], cancellable=True)
        )
        return token

    def _end_progress(self, token: str | None) -> None:
        if token is None:
            return
        progress = self.server.work_done_progress
        if self.server.connection.connected:
            progress.end(token, lsp.WorkDoneProgressEnd(message="done"))
        progress.tokens.pop(token, None)

    async def _narrate(self, subscription: Subscription, token: str | None) -> None:
        """Tool steps to the progress message and to the tool log (``toolLog``: message/log/off)."""
        seen: dict[str, str] = {}
        with subscription:
            async for event in subscription:
                if not isinstance(event, PartUpdated):
                    continue
                line = describe_part(event.part)
                if line is None or seen.get(event.part.id) == line:
                    continue
                seen[event.part.id] = line
                is_tool = isinstance(event.part, ToolPart)
                where = self.server.connection.tool_log
                if where == "log":
                    self.server.log_message(line)
                elif where == "message" and is_tool:  # the answer itself comes once, at the end
                    self.server.show_message(f"agentls {line}")
                if token is not None and is_tool and self.server.connection.connected:
                    self.server.work_done_progress.report(
                        token, lsp.WorkDoneProgressReport(message=line[:80])
                    )

    # --- dialogs -----------------------------------------------------------------------------

    async def dialogs(self, app: Agent, subscription: Subscription) -> None:
        """Ask each permission and question with showMessageRequest while a plain client is connected;
        show each ``agent.warning`` with showMessage (a plugin client shows the event itself)."""
        with subscription:
            async for event in subscription:
                if self.server.connection.plugin or not self.server.connection.connected:
                    continue
                if isinstance(event, PermissionAsked):
                    self.server.spawn(self._ask_permission(app, event.request))
                elif isinstance(event, QuestionAsked):
                    self.server.spawn(self._ask_question(app, event.request))
                elif isinstance(event, PlanReviewAsked):
                    self.server.spawn(plain_plan.ask_plan(self, app, event.request))
                elif isinstance(event, AgentWarning):
                    self.server.show_message(f"agentls: {event.message}", lsp.MessageType.Warning)

    async def _ask_permission(self, app: Agent, request: PermissionRequest) -> None:
        message = permission_message(request)

        def pending() -> bool:
            return any(r.id == request.id for r in app.dialogs.pending_permissions())

        actions = [ALLOW_ONCE, ALWAYS_ALLOW, REJECT]
        choice = await self.choose(message, actions, lsp.MessageType.Warning, pending)
        reply = PERMISSION_REPLIES.get(choice or REJECT, "reject")
        try:
            await app.dialogs.reply_permission(request.id, reply)
        except NotFoundError:
            log.info("permission %s was answered elsewhere", request.id)

    async def _ask_question(self, app: Agent, request: QuestionRequest) -> None:
        answers: list[list[str]] = []
        for item in request.questions:
            prefix = f"{item.header}: " if item.header else ""
            labels = [option.label for option in item.options]
            choice = await self.choose(
                f"{prefix}{item.question}",
                [*labels, DISMISS],
                lsp.MessageType.Info,
                lambda: any(q.id == request.id for q in app.dialogs.pending_questions()),
            )
            if choice is None or choice == DISMISS:
                try:
                    app.dialogs.dismiss(request.id)
                except NotFoundError:
                    log.info("question %s was answered elsewhere", request.id)
                return
            answers.append([choice])
        try:
            app.dialogs.answer(request.id, answers)
        except NotFoundError:
            log.info("question %s was answered elsewhere", request.id)

    async def choose(
        self, message: str, actions: list[str], kind: lsp.MessageType, pending: Callable[[], bool]
    ) -> str | None:
        """The title the user picked; None when they dismissed it, or it got no answer in time.

        Asked only while the user does not type, and asked again when the answer was typed ahead
        (``plain_gate``), while the request is still ``pending()`` (not answered elsewhere or
        aborted meanwhile); the whole wait counts against ``dialogTimeout``.
        """
        params = lsp.ShowMessageRequestParams(
            type=kind, message=message, actions=[lsp.MessageActionItem(title=a) for a in actions]
        )
        timeout = self.server.connection.dialog_timeout
        try:
            async with asyncio.timeout(timeout):
                return await self._ask_when_read(params, pending)
        except TimeoutError:
            # eglot sends no answer at all when the user quits the prompt with C-g.
            log.info("no answer to a dialog within %.0f s: taking it as dismissed", timeout or 0)
            self.server.show_message(f"agentls: no answer within {timeout:.0f} s; taken as dismissed")
            return None
        except JsonRpcException as exc:
            log.info("the dialog failed in the client (%s): taking it as dismissed", exc.message)
            return None

    async def _ask_when_read(
        self, params: lsp.ShowMessageRequestParams, pending: Callable[[], bool]
    ) -> str | None:
        min_read = self.server.connection.dialog_min_read
        refused = 0  # answers in a row that came too soon to have been read
        while True:
            try:
                # Said only when the typing goes on: a didChange can also be the editor reloading
                # a buffer the agent just wrote.
                async with asyncio.timeout(NOTICE_AFTER):
                    await self.typing.pause(at_least=reask_after(refused, self.typing.quiet))
            except TimeoutError:
                # Short: a longer message could bring Neovim's hit-enter prompt, which takes keys.
                self.server.show_message("agentls: a dialog waits until you pause typing")
                await self.typing.pause()
            if not pending():
                log.info("a dialog was answered elsewhere while it waited: not asked")
                return None
            asked = time.monotonic()
            item = await self.server.window_show_message_request_async(params)
            if not typed_ahead(asked, time.monotonic(), min_read):
                return item.title if item is not None else None
            log.info("a dialog was answered %r before it could be read: asking again", item)
            self.server.show_message("agentls: keys typed ahead answered nothing; asking again")
            refused += 1


def command_text(args: tuple[Any, ...]) -> str:
    """The prompt of ``agentls.prompt``: ``["text"]`` or ``[{"text": ...}]``."""
    first = args[0] if args else None
    text = first.get("text") if isinstance(first, dict) else first
    if not isinstance(text, str) or not text.strip():
        raise JsonRpcInvalidParams(
            message="invalid params: arguments.0: the prompt text (a non-empty string)"
        )
    return text


def command_wait(args: tuple[Any, ...]) -> bool | None:
    """``{"async": true}`` in the first argument: answer at once, deliver the answer as a message."""
    first = args[0] if args else None
    value = first.get("async") if isinstance(first, dict) else None
    if value is not None and not isinstance(value, bool):
        raise JsonRpcInvalidParams(message="invalid params: arguments.0.async: true or false")
    return None if value is None else not value


def register(server: AgentServer) -> PlainPath:
    """Add the commands and start the dialogs once the agent runs."""
    plain = PlainPath(server)
    server.plain = plain

    @server.command("agentls.prompt")
    @jsonrpc_errors
    async def prompt(*args: Any) -> Any:
        text = command_text(args)
        wait = command_wait(args)
        app = await server.app()
        return await plain.start(app, [TextInput(type="text", text=text)], text, wait)

    @server.command("agentls.abort")
    @jsonrpc_errors
    async def abort(*args: Any) -> Any:
        app = await server.app()
        if plain.session_id is not None:
            await app.abort(plain.session_id)
        return None

    @server.command("agentls.newSession")
    @jsonrpc_errors
    async def new_session(*args: Any) -> Any:
        title = args[0] if args and isinstance(args[0], str) else None
        app = await server.app()
        session = await app.create_session(title)
        plain.use(session.id)
        return dump(session)

    @server.command("agentls.compact")
    @jsonrpc_errors
    async def compact(*args: Any) -> Any:
        app = await server.app()
        return dump(await app.compact(await plain.session(app)))

    def ready(app: Agent) -> None:
        events = app.subscribe(PermissionAsked, QuestionAsked, PlanReviewAsked, AgentWarning)
        server.spawn(plain.dialogs(app, events))

    server.app_ready.append(ready)
    return plain
