"""``agent/permission/*`` and ``agent/question/*``: the reply half of the dialogs.

The ask half is an ``agent/event`` (``permission.asked`` / ``question.asked``), not a server→client
request: Neovim's client must answer a server request synchronously, and a pending dialog has to
outlive a client reload — the client asks for the list again and answers late.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsp_server import protocol as p

if TYPE_CHECKING:
    from core.app import AgentApp
    from lsp_server.server import AgentServer


def register(server: AgentServer) -> None:
    """Add the dialog requests to ``server``."""

    @server.request("agent/permission/reply", p.PermissionReply)
    async def permission_reply(app: AgentApp, params: p.PermissionReply) -> Any:
        await app.permissions.reply(params.requestID, params.reply, message=params.message)
        return None

    @server.request("agent/permission/list", p.NoParams)
    async def permission_list(app: AgentApp, params: p.NoParams) -> Any:
        return {"requests": app.permissions.pending()}

    @server.request("agent/question/reply", p.QuestionReply)
    async def question_reply(app: AgentApp, params: p.QuestionReply) -> Any:
        app.questions.reply(params.requestID, params.answers)
        return None

    @server.request("agent/question/reject", p.QuestionReject)
    async def question_reject(app: AgentApp, params: p.QuestionReject) -> Any:
        app.questions.reject(params.requestID)
        return None

    @server.request("agent/question/list", p.NoParams)
    async def question_list(app: AgentApp, params: p.NoParams) -> Any:
        return {"requests": app.questions.pending()}
