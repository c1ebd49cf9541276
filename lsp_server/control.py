"""``agent/session/mode`` and ``agent/session/effort``: a session's autonomy mode and effort level."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import AliasChoices, Field

from lsp_server import protocol as p

if TYPE_CHECKING:
    from core.api import Agent
    from lsp_server.server import AgentServer

# Every other request spells it ``sessionID``; ``sessionId`` is taken too (the name lanes agreed on).
# None: a chat with no session yet reads what a new session starts with (reading only).
_SESSION = Field(default=None, min_length=1, validation_alias=AliasChoices("sessionID", "sessionId"))


class SessionMode(p.Params):
    """Read a session's mode, or set it first when ``mode`` is given."""

    sessionID: str | None = _SESSION
    mode: str | None = Field(default=None, min_length=1)


class SessionEffort(p.Params):
    """Read a session's effort, or set it first when ``effort`` is given."""

    sessionID: str | None = _SESSION
    effort: str | None = Field(default=None, min_length=1)
    # The model the client sends the next prompt to (levels follow it); else the last prompt's.
    model: str | None = Field(default=None, min_length=1)


def register(server: AgentServer) -> None:
    """Add the mode and effort requests to ``server``."""

    @server.request("agent/session/mode", SessionMode)
    async def mode(app: Agent, params: SessionMode) -> Any:
        state = await app.session_mode(params.sessionID, params.mode)
        return {
            "sessionID": state.session_id,
            "sessionId": state.session_id,
            "mode": state.mode,
            "modes": [{"id": m.id, "name": m.name, "description": m.description} for m in state.modes],
        }

    @server.request("agent/session/effort", SessionEffort)
    async def effort(app: Agent, params: SessionEffort) -> Any:
        state = await app.session_effort(params.sessionID, params.effort, params.model)
        return {
            "sessionID": state.session_id,
            "sessionId": state.session_id,
            "effort": state.effort,
            "levels": list(state.levels),
            "model": state.model,
        }
