"""The ACP connection: the library's JSON-RPC connection and router over our transport, serving
one client with an ``AcpAgent`` and the connection's ``Front``.

``acp`` (PyPI ``agent-client-protocol``) supplies the schema types, request validation and the
JSON-RPC connection; this module adds what it lacks here: answers to malformed input
(``acp_server.transport``) and the ``session/delete`` and ``session/set_model`` routes.
"""

from __future__ import annotations

import logging
from pathlib import Path

from acp.agent.router import build_agent_router
from acp.connection import Connection
from acp.meta import AGENT_METHODS
from acp.schema import DeleteSessionRequest

from acp_server.agent import AcpAgent
from acp_server.front import Front
from acp_server.handshake import Answered
from acp_server.legacy import SET_MODEL, SetSessionModelRequest
from acp_server.terminal import lent_tools
from acp_server.transport import StdioLines, stdio

log = logging.getLogger(__name__)


async def serve(data_dir: Path | None = None, transport: StdioLines | Answered | None = None) -> None:
    """Serve one ACP client on stdin/stdout (or ``transport``) until it closes the pipe."""
    if transport is None:
        reader, writer = await stdio()
        transport = StdioLines(reader, writer)
    front = Front(data_dir, lend=lent_tools)
    agent = AcpAgent(front)
    # close/resume are "unstable" in this library release but stable in the protocol's schema.
    router = build_agent_router(agent, use_unstable_protocol=True)  # type: ignore[arg-type]
    router.route_request(AGENT_METHODS["session_delete"], DeleteSessionRequest, agent, "delete_session")
    router.route_request(SET_MODEL, SetSessionModelRequest, agent, "set_session_model")
    conn = Connection(router, transport, listening=False)
    front.client.conn = conn
    try:
        await conn.main_loop()
    finally:
        log.info("the client closed the connection")
        await front.close()
        await conn.close()
