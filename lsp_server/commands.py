"""``agent/commands`` and ``agent/session/command``: the slash commands, listed and run."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from pydantic import Field

from core.message.findings import Finding
from lsp_server import protocol as p
from lsp_server.sessions import prompt_inputs

if TYPE_CHECKING:
    from core.api import Agent
    from lsp_server.server import AgentServer

ShowFindings = Callable[[str, tuple[Finding, ...]], Awaitable[None]]


class SessionCommand(p.SessionRef):
    """Run ``/command arguments`` in a session; ``parts``: files attached to it."""

    command: str = Field(min_length=1)
    arguments: str = ""
    parts: list[p.PromptPart] = Field(default_factory=list)
    agent: str | None = None
    model: str | None = None


def register(server: AgentServer, show_findings: ShowFindings | None = None) -> None:
    """Add the command requests to ``server``; ``show_findings``: where a code review's findings go
    (``lsp_server/review_findings.py`` publishes them as diagnostics)."""

    @server.request("agent/commands", p.NoParams)
    async def commands(app: Agent, params: p.NoParams) -> Any:
        listed = await app.commands()
        return {
            "commands": [c.to_wire() for c in listed.commands],
            "errors": list(listed.errors),
            "warnings": list(listed.warnings),
        }

    @server.request("agent/session/command", SessionCommand)
    async def run(app: Agent, params: SessionCommand) -> Any:
        result = await app.run_command(
            params.sessionID,
            params.command,
            params.arguments,
            params.agent,
            params.model,
            attachments=prompt_inputs(params.parts),
        )
        if result.findings is not None and show_findings is not None:
            await show_findings(params.sessionID, result.findings)
        return {
            "command": result.name,
            "message": result.message,
            "revert": result.revert,
            "text": result.text,
            "value": result.value,
            "session": result.session,
            "items": list(result.items),
            "review": result.review,
            "findings": None if result.findings is None else [f.model_dump() for f in result.findings],
        }
