"""``agent/mcp/*``: the MCP servers' resources for a client's ``@`` menu, and the servers view
(list them; enable, disable or restart one)."""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from lsp_server import protocol as p

if TYPE_CHECKING:
    from core.api import Agent
    from lsp_server.server import AgentServer


class McpSet(p.Params):
    """Enable or disable an MCP server (in the user's config), or restart it."""

    name: str = Field(min_length=1)
    action: Literal["enable", "disable", "restart"]


def register(server: AgentServer) -> None:
    """Add the MCP requests to ``server``."""

    @server.request("agent/mcp/list", p.NoParams)
    async def servers(app: Agent, params: p.NoParams) -> Any:
        return {"servers": [asdict(s) for s in await app.mcp_servers()]}

    @server.request("agent/mcp/set", McpSet)
    async def set_server(app: Agent, params: McpSet) -> Any:
        return {"servers": [asdict(s) for s in await app.mcp_set(params.name, params.action)]}

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
