"""``agent/mcp/*``: the MCP servers' resources for a client's ``@`` menu."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsp_server import protocol as p

if TYPE_CHECKING:
    from core.api import Agent
    from lsp_server.server import AgentServer


def register(server: AgentServer) -> None:
    """Add the MCP requests to ``server``."""

    @server.request("agent/mcp/resources", p.NoParams)
    async def resources(app: Agent, params: p.NoParams) -> Any:
        listed = await app.mcp_resources()
        return {
            "resources": [
                {
                    "server": r.server,
                    "uri": r.uri,
                    "name": r.name,
                    "description": r.description,
                    "mimeType": r.mime_type,
                    "size": r.size,
                }
                for r in listed.resources
            ],
            "templates": [
                {
                    "server": t.server,
                    "uriTemplate": t.uri_template,
                    "name": t.name,
                    "description": t.description,
                    "mimeType": t.mime_type,
                    "arguments": list(t.arguments),
                }
                for t in listed.templates
            ],
        }
