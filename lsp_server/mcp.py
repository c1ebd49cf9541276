"""``agent/mcp/*``: the MCP servers' resources for a client's ``@`` menu, and the servers view
(list them; enable, disable or restart one; log in to a remote one — its authorization address
opened in the user's browser with ``window/showDocument {external: true}``)."""

from __future__ import annotations

import logging
from dataclasses import asdict
from typing import TYPE_CHECKING, Any, Literal

from lsprotocol import types as lsp
from pydantic import Field
from pygls.exceptions import JsonRpcException

from lsp_server import protocol as p

if TYPE_CHECKING:
    from core.api import Agent
    from lsp_server.server import AgentServer


log = logging.getLogger(__name__)


class McpSet(p.Params):
    """Enable or disable an MCP server (in the user's config), restart it, or log in to it (a
    remote one: the answer's ``login`` says where; the server restarts once the browser is done)."""

    name: str = Field(min_length=1)
    action: Literal["enable", "disable", "restart", "login"]


def register(server: AgentServer) -> None:
    """Add the MCP requests to ``server``."""

    @server.request("agent/mcp/list", p.NoParams)
    async def servers(app: Agent, params: p.NoParams) -> Any:
        return {"servers": [asdict(s) for s in await app.mcp_servers()]}

    @server.request("agent/mcp/set", McpSet)
    async def set_server(app: Agent, params: McpSet) -> Any:
        if params.action == "login":
            url = await app.mcp_login(params.name)
            listed = {"servers": [asdict(s) for s in await app.mcp_servers()]}
            if url is None:  # it needed no login and was restarted
                return listed
            return {**listed, "login": {"url": url, "opened": await _open_external(server, url)}}
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


async def _open_external(server: AgentServer, url: str) -> bool:
    """Open ``url`` in the user's browser through the client; False when it cannot or refused."""
    window = server.client_capabilities.window
    if window is None or window.show_document is None or not window.show_document.support:
        return False
    try:
        shown = await server.window_show_document_async(lsp.ShowDocumentParams(uri=url, external=True))
    except JsonRpcException as exc:
        log.info("window/showDocument (external) failed: %s", exc)
        return False
    return bool(shown.success)
