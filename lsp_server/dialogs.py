"""``agent/permission/*``, ``agent/question/*`` and ``agent/plan/*``: the reply half of the dialogs.

The ask half is an ``agent/event`` (``permission.asked``, ``question.asked``, ``plan.review.asked``),
not a server→client request: Neovim's client must answer a server request synchronously, and a
pending dialog has to outlive a client reload — the client asks for the list again and answers late.
The lists hold the dialogs of worktree sessions too; a reply goes to the agent that asked
(``WorktreeAgents.for_params``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from core.events import PlanComment
from core.plan.review import PlanAnswer
from lsp_server import protocol as p

if TYPE_CHECKING:
    from core.api import Agent
    from lsp_server.server import AgentServer


def register(server: AgentServer) -> None:
    """Add the dialog requests to ``server``."""

    @server.request("agent/permission/reply", p.PermissionReply)
    async def permission_reply(app: Agent, params: p.PermissionReply) -> Any:
        await app.dialogs.reply_permission(
            params.requestID, params.reply, message=params.message, edited=params.edited
        )
        return None

    @server.request("agent/permission/list", p.NoParams)
    async def permission_list(app: Agent, params: p.NoParams) -> Any:
        return {"requests": [r for a in _every(server, app) for r in a.dialogs.pending_permissions()]}

    @server.request("agent/question/reply", p.QuestionReply)
    async def question_reply(app: Agent, params: p.QuestionReply) -> Any:
        app.dialogs.answer(params.requestID, params.answers)
        return None

    @server.request("agent/question/reject", p.QuestionReject)
    async def question_reject(app: Agent, params: p.QuestionReject) -> Any:
        app.dialogs.dismiss(params.requestID)
        return None

    @server.request("agent/question/list", p.NoParams)
    async def question_list(app: Agent, params: p.NoParams) -> Any:
        return {"requests": [r for a in _every(server, app) for r in a.dialogs.pending_questions()]}

    @server.request("agent/plan/reply", p.PlanReply)
    async def plan_reply(app: Agent, params: p.PlanReply) -> Any:
        app.dialogs.reply_plan(params.requestID, plan_answer(params))
        return None

    @server.request("agent/plan/list", p.NoParams)
    async def plan_list(app: Agent, params: p.NoParams) -> Any:
        return {"requests": [r for a in _every(server, app) for r in a.dialogs.pending_plans()]}


def _every(server: AgentServer, app: Agent) -> list[Agent]:
    """The checkout's agent and the worktree sessions' (a list shows the dialogs of all)."""
    return [app, *server.worktrees.running()]


def plan_answer(params: p.PlanReply) -> PlanAnswer:
    """The core's answer from the wire's."""
    comments = tuple(PlanComment(line=c.line, text=c.text) for c in params.comments)
    return PlanAnswer(params.reply, params.message, comments)
