"""One running agent (``core.api.Agent``) per project directory and MCP server set the client asks for.

ACP gives every session its own ``cwd`` and MCP servers, while the core runs one agent per
project with the tools of its MCP servers. Sessions that agree on both share an agent; a session
with other MCP servers gets an agent of its own over the same store.

An agent attached to the host (``AGENTLS_HOST``) whose host died and could not be restarted moves
into this process (``Projects.in_process``): the client is told once, in each of its sessions of
that project, and the requests made meanwhile wait for the move (``Project.agent``).
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp.schema import HttpMcpServer, McpServerStdio, SseMcpServer

from acp_server.feed import Feed, Send, Spawn
from acp_server.updates import warning
from acp_server.workspace import AcpWorkspace, FileAccess, FileClient
from core.config.paths import data_dir as default_data_dir
from core.errors import AgentError
from core.open import host_mode, open_agent
from core.project_trust import TrustQuestion, question_for
from core.trust import distrust

if TYPE_CHECKING:
    from acp_server.state import AcpSession
    from core.api import Agent, Layer
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
    # Set while the agent moves into this process (its host is gone); it keeps the error of a
    # move that failed, which every later request of the project's sessions then reports.
    moving: asyncio.Future[None] | None = None

    async def agent(self) -> Agent:
        """The agent, once a move into this process or a new host being reached has settled."""
        while True:
            if self.moving is not None:
                await asyncio.shield(self.moving)  # (raises the failed move's error)
            # An attached agent (core.remote.agent.RemoteAgent) reaching a new host: when none can
            # be reached, the move starts before those waiting here wake up.
            reattaching: asyncio.Future[None] | None = getattr(self.app, "reattaching", None)
            if reattaching is None:
                return self.app
            await asyncio.shield(reattaching)


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
        project = await asyncio.shield(future)
        await project.agent()
        return project

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
        layers = _layers(layer)
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
            host_gone=functools.partial(self.in_process, key),  # when none can be reached
            notice=log.warning,
        )
        feed = Feed(app, workspace, self._sessions, self._send, self._dialog)
        log.info("agent ready in %s", cwd)
        return Project(key, app, workspace, feed, pending_trust=question)

    async def in_process(self, key: tuple[str, str], why: str) -> None:
        """The host of ``key``'s attached agent died and no new one could be reached: go on with
        the agent in this process (the client is told once; the store holds what the host
        committed). A move that fails leaves its error for every request of the project's sessions
        and forgets the project, so that the next ``get`` opens it anew."""
        future = self._open.get(key)
        if future is None or not future.done() or future.exception() is not None:
            return  # closed, or opened anew meanwhile
        project = future.result()
        lost, lost_feed = project.app, project.feed
        moving = project.moving = asyncio.get_running_loop().create_future()
        text = f"{why}; the agent runs in this process now"
        log.warning("%s: %s", key[0], text)
        await lost_feed.flush()  # what the host said before it died first
        await lost_feed.close()
        await self._say(project, text)
        try:
            app = await open_agent(
                Path(key[0]),
                workspace=project.workspace,
                layers=_layers(json.loads(key[1])),
                data_dir=self._data_dir,
                tools=self._host_tools(),
            )
        except Exception as exc:
            log.exception("the agent failed to start in %s", key[0])
            failed = exc if isinstance(exc, AgentError) else AgentError(str(exc) or type(exc).__name__)
            moving.set_exception(AgentError(f"agentls could not start in this process: {failed}"))
            moving.exception()  # retrieved: each request reports it
            if self._open.get(key) is future:
                del self._open[key]
            await self._say(project, f"agentls could not start in this process: {failed}")
            await lost.close()
            return
        project.app = app
        project.feed = Feed(app, project.workspace, self._sessions, self._send, self._dialog)
        moving.set_result(None)
        log.info("agent ready in %s, in this process", key[0])
        await lost.close()  # (detached already: its host is gone)
        if self._open.get(key) is not future:  # closed meanwhile: close() did not see this agent
            await project.feed.close()
            await app.close()

    async def _say(self, project: Project, text: str) -> None:
        """A warning line in each of the client's sessions of ``project`` (ACP has no notice of its own)."""
        for session_id, state in list(self._sessions.items()):
            if state.project is project:
                try:
                    await self._send(session_id, warning(text))
                except (ConnectionError, BrokenPipeError):
                    log.info("the client went away; not told: %s", text)


def _layers(layer: dict[str, Any]) -> list[Layer]:
    """The config layer of a session's MCP servers (none when it names none)."""
    from core.api import Layer

    return [Layer(name="ACP session mcpServers", data=layer)] if layer else []


def _import_front_door() -> None:
    import core.api  # noqa: F401  (the config schema: off the event loop)
