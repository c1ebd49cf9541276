"""``agent/background/*``: the roster of background sub-agents and the background shells (issue 40).

Thin handlers over the front door (``core.api``); clients follow changes with the
``background.*`` events and list again when they connect.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsp_server import protocol as p

if TYPE_CHECKING:
    from core.api import Agent
    from lsp_server.server import AgentServer


def register(server: AgentServer) -> None:
    """The background requests."""

    @server.request("agent/background/list", p.BackgroundList)
    async def background_list(app: Agent, params: p.BackgroundList) -> Any:
        if params.sessionID is not None:
            await app.get_session(params.sessionID)  # NotFoundError for an unknown session
        every = [app] if params.sessionID is not None else [app, *server.worktrees.running()]
        agents = [a for one in every for a in await one.background_agents(params.sessionID)]
        shells = [s for one in every for s in await one.background_shells(params.sessionID)]
        return {"agents": agents, "shells": shells}

    @server.request("agent/background/stop", p.SessionRef)
    async def background_stop(app: Agent, params: p.SessionRef) -> Any:
        return await app.stop_background_agent(params.sessionID)

    @server.request("agent/background/message", p.BackgroundMessage)
    async def background_message(app: Agent, params: p.BackgroundMessage) -> Any:
        await app.message_background_agent(params.sessionID, params.text)
        return None

    @server.request("agent/background/shell/stop", p.ShellRef)
    async def shell_stop(app: Agent, params: p.ShellRef) -> Any:
        return await app.stop_background_shell(params.shellID)
