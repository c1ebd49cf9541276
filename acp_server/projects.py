"""One running agent (``core.api.Agent``) per project directory and MCP server set the client asks for.

ACP gives every session its own ``cwd`` and MCP servers, while the core runs one agent per
project with the tools of its MCP servers. Sessions that agree on both share an agent; a session
with other MCP servers gets an agent of its own over the same store.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp.schema import HttpMcpServer, McpServerStdio, SseMcpServer

from acp_server.feed import Feed, Send, Spawn
from acp_server.workspace import AcpWorkspace, FileAccess, FileClient
from core.config.paths import data_dir as default_data_dir
from core.open import host_mode, open_agent
from core.project_trust import TrustQuestion, question_for
from core.trust import distrust

if TYPE_CHECKING:
    from acp_server.state import AcpSession
    from core.api import Agent
    from core.host_tools import Tool

log = logging.getLogger(__name__)

ClientMcp = HttpMcpServer | SseMcpServer | McpServerStdio


@dataclass
class Project:
    """An agent and its ACP plumbing."""

    key: tuple[str, str]
    app: Agent
    workspace: AcpWorkspace
    feed: Feed
    # The trust question asked at the first prompt (acp_server.trust_question); until it is
    # answered the agent runs without the project's own files.
    pending_trust: TrustQuestion | None = None
    asking: asyncio.Lock = field(default_factory=asyncio.Lock)


def mcp_layer(servers: Sequence[ClientMcp]) -> dict[str, Any]:
    """The client's MCP servers as the ``mcp`` section of a config layer."""
    section: dict[str, Any] = {}
    for server in servers:
        if isinstance(server, HttpMcpServer | SseMcpServer):
            section[server.name] = {
                "type": "remote",
                "url": server.url,
                "headers": {h.name: h.value for h in server.headers},
                "transport": "sse" if isinstance(server, SseMcpServer) else "http",
            }
        else:
            section[server.name] = {
                "type": "local",
                "command": [server.command, *server.args],
                "environment": {e.name: e.value for e in server.env},
            }
    return {"mcp": section} if section else {}


class Projects:
    """Opens agents on demand and closes them all at the end."""

    def __init__(
        self,
        client: FileClient,
        access: FileAccess,
        sessions: dict[str, AcpSession],
        send: Send,
        dialog: Spawn,
        data_dir: Path | None = None,
        host_tools: Callable[[], Sequence[Tool[Any]]] = tuple,
        client_name: Callable[[], str] = lambda: "an ACP client",
    ) -> None:
        self._client = client
        self._client_name = client_name
        self._host_tools = host_tools
        self._access = access
        self._sessions = sessions
        self._send = send
        self._dialog = dialog
        self._data_dir = data_dir
        self._open: dict[tuple[str, str], asyncio.Future[Project]] = {}
        # Projects the user trusted in this connection (even where the answer could not be stored).
        self.trusted: set[Path] = set()

    @property
    def data_dir(self) -> Path:
        """The agents' data folder."""
        return self._data_dir or default_data_dir()

    async def get(self, cwd: Path, servers: Sequence[ClientMcp] = ()) -> Project:
        """The agent for ``cwd`` with these MCP servers (opened once, then shared)."""
        layer = mcp_layer(servers)
        key = (str(cwd), json.dumps(layer, sort_keys=True))
        future = self._open.get(key)
        if future is None:
            future = asyncio.get_running_loop().create_future()
            self._open[key] = future
            try:
                future.set_result(await self._start(key, cwd, layer))
            except BaseException as exc:
                del self._open[key]
                future.set_exception(exc)
                future.exception()  # retrieved: the caller gets it raised below
                raise
        return await asyncio.shield(future)

    def running(self) -> list[Project]:
        """The agents opened so far."""
        return [f.result() for f in self._open.values() if f.done() and f.exception() is None]

    async def reopen(self, project: Project) -> Project:
        """Close ``project``'s agent and open it anew (its config changed: the project was trusted)."""
        await project.feed.close()
        await project.app.close()
        future = asyncio.get_running_loop().create_future()
        self._open[project.key] = future
        try:
            fresh = await self._start(project.key, Path(project.key[0]), json.loads(project.key[1]))
        except BaseException as exc:
            del self._open[project.key]
            future.set_exception(exc)
            future.exception()
            raise
        future.set_result(fresh)
        return fresh

    async def close(self) -> None:
        """Stop every agent (running turns are aborted, the store flushed)."""
        for project in self.running():
            await project.feed.close()
            await project.app.close()
        self._open.clear()

    async def _start(self, key: tuple[str, str], cwd: Path, layer: dict[str, Any]) -> Project:
        # Imported here: litellm and the store must not delay `initialize`.
        await asyncio.to_thread(_import_front_door)
        from core.api import Layer

        layers = [Layer(name="ACP session mcpServers", data=layer)] if layer else []
        # A project not trusted yet opens without its own files; the first prompt asks about it.
        question = await asyncio.to_thread(question_for, cwd, self._data_dir)
        if question is not None and question.worktree in self.trusted:
            question = None
        if question is not None:
            distrust(question.worktree)
        workspace = AcpWorkspace(cwd, self._client, self._access)
        app = await open_agent(
            cwd,
            workspace=workspace,
            layers=layers,
            data_dir=self._data_dir,
            tools=self._host_tools(),
            # AGENTLS_HOST=attach|auto: the agent is the host's (docs/host.md), lent this client's
            # files and terminal for the turns it starts.
            host=host_mode(None, "AGENTLS_HOST", log.warning),
            client=self._client_name(),
            reattach=True,  # when the host dies: a new one, attached again (core/remote/reattach.py)
            notice=log.warning,
        )
        feed = Feed(app, workspace, self._sessions, self._send, self._dialog)
        log.info("agent ready in %s", cwd)
        return Project(key, app, workspace, feed, pending_trust=question)


def _import_front_door() -> None:
    import core.api  # noqa: F401  (the config schema: off the event loop)
