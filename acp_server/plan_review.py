"""A plan review in an ACP client: the plan as the session's ``plan`` and a permission dialog.

The plan's steps (its Markdown list items; its first heading when it has none) go out as a ``plan``
session update, so the client's plan view shows what is proposed; the whole Markdown is the
content of a permission dialog on the ``plan_exit`` call with the options Approve and Reject. A
permission dialog takes no text, so a revision is the user's next prompt: Reject says so to the
model. A client that cannot show the dialog rejects the plan with that reason, never silently.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from acp import RequestError
from acp.schema import (
    AgentPlanUpdate,
    AllowedOutcome,
    PermissionOption,
    PlanEntry,
    ToolCallLocation,
    ToolCallUpdate,
)

from acp_server import tool_calls
from core.errors import AgentError, NotFoundError
from core.events import PlanReviewRequest
from core.plan.review import PlanAnswer

if TYPE_CHECKING:
    from acp_server.dialogs import Asker
    from acp_server.state import AcpSession
    from core.api import Agent

log = logging.getLogger(__name__)

APPROVE, REJECT = "approve", "reject"
OPTIONS = (
    PermissionOption(option_id=APPROVE, name="Approve: the build agent carries it out", kind="allow_once"),
    PermissionOption(option_id=REJECT, name="Reject", kind="reject_once"),
)
REJECTED = "The user rejected the plan in their editor; their next message says why or what to change."
_STEP = re.compile(r"^\s{0,3}(?:[-*+]|\d+[.)])\s+(.+?)\s*$")
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*$")

Send = Callable[[str, Any], Awaitable[None]]


def plan_entries(request: PlanReviewRequest) -> list[PlanEntry]:
    """The plan's steps as ACP plan entries (top-level list items; else its title, else its path)."""
    steps = [m.group(1) for line in request.text.splitlines() if (m := _STEP.match(line))]
    if not steps:
        heading = next(
            (m.group(1) for line in request.text.splitlines() if (m := _HEADING.match(line))), None
        )
        steps = [heading or request.path]
    return [PlanEntry(content=step, priority="medium", status="pending") for step in steps]


def plan_tool_call(request: PlanReviewRequest, path: str) -> ToolCallUpdate:
    """The dialog's tool call: the ``plan_exit`` call, with the plan's Markdown as its content."""
    return ToolCallUpdate(
        tool_call_id=request.callID or request.id,
        title=f"Review the plan {request.path}",
        kind="think",
        status="pending",
        content=[tool_calls.text_content(request.text)],
        locations=[ToolCallLocation(path=path)],
        raw_input={"path": request.path},
    )


async def ask(client: Asker, send: Send, app: Agent, session: AcpSession, request: PlanReviewRequest) -> None:
    """Show the plan, ask Approve / Reject, and answer the plan review."""
    await send(session.id, AgentPlanUpdate(session_update="plan", entries=plan_entries(request)))
    tool_call = plan_tool_call(request, str(app.worktree / request.path))
    try:
        response = await client.request_permission(
            session_id=session.id, tool_call=tool_call, options=list(OPTIONS)
        )
    except (RequestError, ConnectionError) as exc:
        log.warning("the client could not show plan review %s: %s", request.id, exc)
        _reply(
            app, request.id, PlanAnswer("reject", f"The editor could not show the plan for review ({exc}).")
        )
        return
    outcome = response.outcome
    if not isinstance(outcome, AllowedOutcome):
        return  # cancelled: the turn is being stopped, which cancels the review
    if outcome.option_id == APPROVE:
        _reply(app, request.id, PlanAnswer("approve"))
    else:
        _reply(app, request.id, PlanAnswer("reject", REJECTED))


def _reply(app: Agent, request_id: str, answer: PlanAnswer) -> None:
    try:
        app.dialogs.reply_plan(request_id, answer)
    except NotFoundError:
        log.info("plan review %s was settled before the client answered", request_id)
    except AgentError as exc:
        log.warning("could not answer plan review %s: %s", request_id, exc)
