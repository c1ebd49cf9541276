"""One ACP connection's side of things: the client's methods called over it (``ClientCalls``) and
the connection's state (``Front``): its sessions, its projects, the client's capabilities and open
dialogs. acp_server.connection builds one per connection.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp.connection import Connection
from acp.meta import CLIENT_METHODS
from acp.schema import (
    CreateFormSessionElicitationRequest,
    CreateTerminalRequest,
    CreateTerminalResponse,
    KillTerminalRequest,
    PermissionOption,
    ReadTextFileRequest,
    ReadTextFileResponse,
    ReleaseTerminalRequest,
    RequestPermissionRequest,
    RequestPermissionResponse,
    SessionNotification,
    TerminalOutputRequest,
    TerminalOutputResponse,
    ToolCallUpdate,
    WaitForTerminalExitRequest,
    WaitForTerminalExitResponse,
    WriteTextFileRequest,
    WriteTextFileResponse,
)
from acp.utils import notify_model, request_model, request_optional_model, serialize_params

from acp_server.dialogs import Dialogs
from acp_server.projects import Project, Projects
from acp_server.state import AcpSession
from acp_server.workspace import FileAccess
from core.events import (
    Event,
    PermissionAsked,
    PermissionReplied,
    PlanReviewAsked,
    PlanReviewCancelled,
    PlanReviewReplied,
    QuestionAsked,
    QuestionRejected,
    QuestionReplied,
)

if TYPE_CHECKING:
    from core.host_tools import Tool

log = logging.getLogger(__name__)

# The tools a connection's client lends the agent, asked each time a project's agent opens.
Lend = Callable[["Front"], Sequence["Tool[Any]"]]


class ClientCalls:
    """The client's methods, called over the connection (set once the connection exists)."""

    conn: Connection

    async def session_update(self, session_id: str, update: Any) -> None:
        await notify_model(
            self.conn,
            CLIENT_METHODS["session_update"],
            SessionNotification(session_id=session_id, update=update),
        )

    async def request_permission(
        self, session_id: str, tool_call: ToolCallUpdate, options: list[PermissionOption]
    ) -> RequestPermissionResponse:
        params = RequestPermissionRequest(session_id=session_id, tool_call=tool_call, options=options)
        return await request_model(
            self.conn, CLIENT_METHODS["session_request_permission"], params, RequestPermissionResponse
        )

    async def create_elicitation(self, params: CreateFormSessionElicitationRequest) -> Any:
        """``elicitation/create``: the client's raw answer (``action``, ``content``)."""
        return await self.conn.send_request(CLIENT_METHODS["elicitation_create"], serialize_params(params))

    async def read_text_file(self, session_id: str, path: str) -> ReadTextFileResponse:
        params = ReadTextFileRequest(session_id=session_id, path=path)
        return await request_model(
            self.conn, CLIENT_METHODS["fs_read_text_file"], params, ReadTextFileResponse
        )

    async def write_text_file(self, session_id: str, path: str, content: str) -> WriteTextFileResponse | None:
        params = WriteTextFileRequest(session_id=session_id, path=path, content=content)
        return await request_optional_model(
            self.conn, CLIENT_METHODS["fs_write_text_file"], params, WriteTextFileResponse
        )

    async def create_terminal(self, params: CreateTerminalRequest) -> CreateTerminalResponse:
        return await request_model(
            self.conn, CLIENT_METHODS["terminal_create"], params, CreateTerminalResponse
        )

    async def terminal_output(self, session_id: str, terminal_id: str) -> TerminalOutputResponse:
        params = TerminalOutputRequest(session_id=session_id, terminal_id=terminal_id)
        return await request_model(
            self.conn, CLIENT_METHODS["terminal_output"], params, TerminalOutputResponse
        )

    async def wait_for_terminal_exit(self, session_id: str, terminal_id: str) -> WaitForTerminalExitResponse:
        params = WaitForTerminalExitRequest(session_id=session_id, terminal_id=terminal_id)
        return await request_model(
            self.conn, CLIENT_METHODS["terminal_wait_for_exit"], params, WaitForTerminalExitResponse
        )

    async def kill_terminal(self, session_id: str, terminal_id: str) -> None:
        params = KillTerminalRequest(session_id=session_id, terminal_id=terminal_id)
        await self.conn.send_request(CLIENT_METHODS["terminal_kill"], serialize_params(params))

    async def release_terminal(self, session_id: str, terminal_id: str) -> None:
        params = ReleaseTerminalRequest(session_id=session_id, terminal_id=terminal_id)
        await self.conn.send_request(CLIENT_METHODS["terminal_release"], serialize_params(params))


class Front:
    """The state of one ACP connection."""

    def __init__(self, data_dir: Path | None = None, lend: Lend = lambda front: ()) -> None:
        self.client = ClientCalls()
        self._lend = lend
        self.sessions: dict[str, AcpSession] = {}
        self.access = FileAccess()
        self.terminal = False
        self.client_name = "an ACP client"  # clientInfo.name: what the host's other front ends see
        self.dialogs = Dialogs(self.client, {})
        self.projects = Projects(
            self.client,
            self.access,
            self.sessions,
            self.send,
            self.dialog,
            data_dir,
            self.host_tools,
            lambda: self.client_name,
        )
        self._tasks: set[asyncio.Task[Any]] = set()

    def host_tools(self) -> list[Tool[Any]]:
        """The tools this client lends the agent (``lend``: bash through its terminals, when it has
        them; acp_server.connection chooses)."""
        return list(self._lend(self))

    async def send(self, session_id: str, update: Any) -> None:
        """One ``session/update``."""
        await self.client.session_update(session_id, update)

    def dialog(self, event: Event, session_id: str) -> None:
        """A permission or question event of a session the client has open."""
        state = self.sessions.get(session_id)
        if isinstance(event, PermissionAsked) and state is not None:
            self.dialogs.permission(state.project.app, state, event.request)
        elif isinstance(event, QuestionAsked) and state is not None:
            self.dialogs.question(state.project.app, state, event.request)
        elif isinstance(event, PlanReviewAsked) and state is not None:
            self.dialogs.plan(state.project.app, state, event.request, self.send)
        elif isinstance(
            event,
            PermissionReplied | QuestionReplied | QuestionRejected | PlanReviewReplied | PlanReviewCancelled,
        ):
            self.dialogs.closed(event.requestID)

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        """Run a background task, keeping a reference and logging its failure."""
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and (exc := task.exception()) is not None:
            log.error("background task failed", exc_info=exc)

    async def default_project(self) -> Project:
        """For requests without a cwd: the first project opened, else the server's own directory."""
        running = self.projects.running()
        return running[0] if running else await self.projects.get(Path.cwd())

    async def close(self) -> None:
        """Stop every turn and agent."""
        for task in list(self._tasks):
            task.cancel()
        await self.projects.close()
