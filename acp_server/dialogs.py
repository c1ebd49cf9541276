"""Permission requests and questions as ``session/request_permission`` dialogs in the client.

Every "ask" reaches the user: an edit request carries its diff (the current text, read through
the client so unsaved changes count, against the proposed text), and a request the client cannot
show is rejected with a reason the model can read, never silently. "Allow always" is stored
exactly as the LSP front end stores it (the project's approvals); "reject always" denies the same
patterns for the rest of the session. Each question with choices becomes a dialog with one option
per choice (a multi-select one is asked again until Done); free-text questions are dismissed.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from acp import RequestError
from acp.schema import (
    AllowedOutcome,
    CreateFormSessionElicitationRequest,
    FileEditToolCallContent,
    PermissionOption,
    RequestPermissionResponse,
    ToolCallLocation,
    ToolCallUpdate,
)

from acp_server import plan_review, question_form, tool_calls
from acp_server.edit_lines import first_changed_line
from acp_server.workspace import AcpWorkspace, current_session
from core.errors import AgentError, NotFoundError
from core.events import PermissionRequest, PlanReviewRequest, QuestionOption, QuestionRequest
from core.permission.rules import Rule

if TYPE_CHECKING:
    from acp_server.state import AcpSession
    from core.api import Agent, Reply

log = logging.getLogger(__name__)

Choice = Literal["once", "always", "reject", "reject_always"]

PERMISSION_OPTIONS: tuple[tuple[Choice, str, Any], ...] = (
    ("once", "Allow once", "allow_once"),
    ("always", "Always allow", "allow_always"),
    ("reject", "Reject", "reject_once"),
    ("reject_always", "Reject for this session", "reject_always"),
)
PERMISSION_KINDS: dict[str, tool_calls.ToolKind] = {
    "edit": "edit",
    "bash": "execute",
    "read": "read",
    "webfetch": "fetch",
    "local_network": "fetch",  # a fetch from this machine or its network (asked besides webfetch)
}


class Asker(Protocol):
    """The client calls that show a dialog or a form (``ClientCalls`` has them)."""

    async def request_permission(
        self, session_id: str, tool_call: ToolCallUpdate, options: list[PermissionOption]
    ) -> RequestPermissionResponse: ...

    async def create_elicitation(self, params: CreateFormSessionElicitationRequest) -> Any: ...


@dataclass
class Dialogs:
    """Pending dialogs of one connection: the client request per core request id."""

    client: Asker
    pending: dict[str, asyncio.Task[None]]
    forms: bool = False  # the client declared ``elicitation.form``: questions are asked as forms

    def permission(self, app: Agent, session: AcpSession, request: PermissionRequest) -> None:
        """Show a permission request; its answer goes to the permission service."""
        self._start(request.id, self._permission(app, session, request))

    def question(self, app: Agent, session: AcpSession, request: QuestionRequest) -> None:
        """Show a question as a dialog when it fits one; dismiss it with a reason otherwise."""
        self._start(request.id, self._question(app, session, request))

    def plan(
        self, app: Agent, session: AcpSession, request: PlanReviewRequest, send: plan_review.Send
    ) -> None:
        """Show a plan for review (``plan_review``): the session's plan and an Approve / Reject dialog."""
        self._start(request.id, plan_review.ask(self.client, send, app, session, request))

    def closed(self, request_id: str) -> None:
        """The core settled a request (answered elsewhere, or the turn was aborted): drop our wait."""
        task = self.pending.pop(request_id, None)
        if task is not None and task is not asyncio.current_task():
            task.cancel()

    def _start(self, request_id: str, coro: Any) -> None:
        task = asyncio.create_task(coro, name=f"acp dialog {request_id}")
        self.pending[request_id] = task
        task.add_done_callback(lambda t: self._done(request_id, t))

    def _done(self, request_id: str, task: asyncio.Task[None]) -> None:
        if self.pending.get(request_id) is task:
            del self.pending[request_id]
        if not task.cancelled() and (exc := task.exception()) is not None:
            log.error("dialog %s failed", request_id, exc_info=exc)

    async def _permission(self, app: Agent, session: AcpSession, request: PermissionRequest) -> None:
        current_session.set(session.id)  # the diff's old text comes from the client's buffer
        tool_call = await permission_tool_call(session.project.workspace, request)
        options = [
            PermissionOption(option_id=c, name=_option_name(c, request), kind=k)
            for c, _, k in PERMISSION_OPTIONS
        ]
        try:
            answer = await self.client.request_permission(
                session_id=session.id, tool_call=tool_call, options=options
            )
        except (RequestError, ConnectionError) as exc:
            log.warning("the client could not show permission %s: %s", request.id, exc)
            await _reply(
                app, request.id, "reject", f"The editor could not show the permission dialog ({exc})."
            )
            return
        outcome = answer.outcome
        if not isinstance(outcome, AllowedOutcome):
            await _reply(app, request.id, "reject", None)  # cancelled: the turn is being stopped
            return
        choice = outcome.option_id
        if choice == "reject_always":
            patterns = request.always or request.patterns
            session.denied.extend(
                Rule(request.permission, p, "deny", origin="user session") for p in patterns
            )
            app.dialogs.deny_in_session(session.id, list(session.denied))
            choice = "reject"
        replies: dict[str, Reply] = {"once": "once", "always": "always", "reject": "reject"}
        if choice not in replies:
            await _reply(app, request.id, "reject", f"The editor answered with an unknown option {choice!r}.")
            return
        await _reply(app, request.id, replies[choice], None)

    async def _question(self, app: Agent, session: AcpSession, request: QuestionRequest) -> None:
        """Each question as a dialog in turn: one option per choice; a multi-select question is asked
        again, without the choices taken, until the user picks Done. Free-text questions (no options)
        cannot be shown by a permission dialog: the whole request is dismissed, which the model reads.
        A client that declared forms gets the whole request as one form instead (``question_form``)."""
        if self.forms:
            await self._question_as_form(app, session, request)
            return
        if any(not item.options for item in request.questions):
            _dismiss(app, request.id)
            return
        answers: list[list[str]] = []
        for number, item in enumerate(request.questions, 1):
            chosen: list[str] = []
            while True:
                left = [o for o in item.options if o.label not in chosen]
                title = item.question
                if len(request.questions) > 1:
                    title = f"({number}/{len(request.questions)}) {title}"
                if item.multiple:
                    title += (
                        f" — chosen: {', '.join(chosen)}" if chosen else " — pick one at a time, then Done"
                    )
                pick = await self._choose(session, request, title, left, done=item.multiple)
                if pick is None:
                    _dismiss(app, request.id)
                    return
                if pick == "done":
                    break
                chosen.append(pick)
                if not item.multiple or len(chosen) == len(item.options):
                    break
            answers.append(chosen)
        try:
            app.dialogs.answer(request.id, answers)
        except NotFoundError:
            pass

    async def _question_as_form(self, app: Agent, session: AcpSession, request: QuestionRequest) -> None:
        try:
            response = await self.client.create_elicitation(question_form.form_for(session.id, request))
        except (RequestError, ConnectionError) as exc:
            log.warning("the client could not show question %s as a form: %s", request.id, exc)
            response = None
        answers = question_form.answers_from(request, response)
        if answers is None:
            _dismiss(app, request.id)
            return
        try:
            app.dialogs.answer(request.id, answers)
        except NotFoundError:
            pass

    async def _choose(
        self,
        session: AcpSession,
        request: QuestionRequest,
        title: str,
        choices: list[QuestionOption],
        *,
        done: bool,
    ) -> str | None:
        """One dialog: the label picked, "done", or None (dismissed, cancelled, or not shown)."""
        options = [
            PermissionOption(option_id=str(i), name=o.label, kind="allow_once") for i, o in enumerate(choices)
        ]
        if done:
            options.append(PermissionOption(option_id="done", name="Done", kind="allow_once"))
        options.append(PermissionOption(option_id="dismiss", name="Dismiss", kind="reject_once"))
        listing = "\n".join(
            f"- {o.label}: {o.description}" if o.description else f"- {o.label}" for o in choices
        )
        tool_call = ToolCallUpdate(
            tool_call_id=request.callID or request.id,
            title=title,
            kind="other",
            status="pending",
            content=[tool_calls.text_content(listing)] if listing else None,
        )
        try:
            answer = await self.client.request_permission(
                session_id=session.id, tool_call=tool_call, options=options
            )
        except (RequestError, ConnectionError) as exc:
            log.warning("the client could not show question %s: %s", request.id, exc)
            return None
        outcome = answer.outcome
        if not isinstance(outcome, AllowedOutcome):
            return None
        if outcome.option_id == "done" and done:
            return "done"
        if outcome.option_id.isdigit() and int(outcome.option_id) < len(choices):
            return choices[int(outcome.option_id)].label
        return None


async def permission_tool_call(workspace: AcpWorkspace, request: PermissionRequest) -> ToolCallUpdate:
    """The tool call a permission dialog shows: for edits, the diff of the whole file."""
    metadata = request.metadata
    content: list[Any] | None = None
    locations: list[ToolCallLocation] | None = None
    filepath = metadata.get("filepath")
    if isinstance(filepath, str):
        locations = [ToolCallLocation(path=filepath)]
        after = metadata.get("after")
        if request.permission == "edit" and isinstance(after, str):
            try:
                old: str | None = await workspace.read_text(Path(filepath))
            except (FileNotFoundError, IsADirectoryError):
                old = None
            content = [FileEditToolCallContent(type="diff", path=filepath, old_text=old, new_text=after)]
            locations = [ToolCallLocation(path=filepath, line=first_changed_line(old, after))]
    if content is None and isinstance(metadata.get("command"), str):
        content = [tool_calls.text_content(f"```\n{metadata['command']}\n```")]
    return ToolCallUpdate(
        tool_call_id=request.callID or request.id,
        title=request.title,
        kind=PERMISSION_KINDS.get(request.permission, "other"),
        status="pending",
        content=content,
        locations=locations,
        raw_input={"permission": request.permission, "patterns": request.patterns, **_plain(metadata)},
    )


def _option_name(choice: Choice, request: PermissionRequest) -> str:
    names = dict((c, n) for c, n, _ in PERMISSION_OPTIONS)
    if choice == "always":
        return f"Always allow {', '.join(request.always or request.patterns)}"
    return names[choice]


def _plain(metadata: dict[str, Any]) -> dict[str, Any]:
    # The proposed text is already in the diff; keep the raw input small.
    return {k: v for k, v in metadata.items() if k not in ("after",)}


async def _reply(app: Agent, request_id: str, reply: Reply, message: str | None) -> None:
    try:
        await app.dialogs.reply_permission(request_id, reply, message=message)
    except NotFoundError:
        log.info("permission %s was settled before the client answered", request_id)
    except AgentError as exc:
        log.warning("could not answer permission %s: %s", request_id, exc)


def _dismiss(app: Agent, request_id: str) -> None:
    try:
        app.dialogs.dismiss(request_id)
    except NotFoundError:
        pass
