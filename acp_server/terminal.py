"""bash through the client's terminals (``terminal/*``) when the client offers them.

The command runs in a terminal the editor creates and shows inside the tool call (``terminal``
content), so the user watches it live in the editor's own terminal view; the agent waits for its
exit, racing the call's timeout and the turn's abort (both kill it), then reads its output for the
model. Permission checks are the core bash tool's; without a client terminal, or outside a prompt,
the core bash tool runs the command itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp import RequestError
from acp.schema import CreateTerminalRequest, EnvVariable

from acp_server.workspace import current_session
from core.errors import ToolError
from core.host_tools import (
    BashParams,
    BashTool,
    TerminalRun,
    TerminalStop,
    Tool,
    ToolContext,
    ToolResult,
    load_description,
    run_in_terminal,
)

if TYPE_CHECKING:
    from acp_server.front import Front

log = logging.getLogger(__name__)

OUTPUT_LIMIT = 256 * 1024  # bytes the client keeps (it truncates from the start)


def lent_tools(front: Front) -> list[Tool[Any]]:
    """What a connection's client lends the agent: bash through its terminals, when it has them."""
    return [TerminalBash(front)] if front.terminal else []


class TerminalBash(BashTool):
    """The ``bash`` tool, run in a client terminal."""

    def __init__(self, front: Front) -> None:
        super().__init__()
        self._front = front
        self.terminal = ClientTerminal(front)  # what an attached front end lends the host instead

    @property
    def description(self) -> str:
        # The same text the model reads about the core bash tool (it lives beside that module).
        return load_description(BashTool.__module__)

    async def execute(self, params: BashParams, ctx: ToolContext) -> ToolResult:
        session = current_session.get()
        if not self._front.terminal or session not in self._front.sessions:
            return await super().execute(params, ctx)
        return await run_in_terminal(self, self.terminal, params, ctx, super().execute)


class ClientTerminal:
    """``core.host_tools.Terminal`` over the client's ``terminal/*``, in the session of the prompt
    being served (``current_session``)."""

    def __init__(self, front: Front) -> None:
        self._front = front

    def _session(self) -> str:
        session = current_session.get()
        state = self._front.sessions.get(session) if session else None
        if state is None:
            raise ToolError("the client's terminal runs commands only within a prompt of its session")
        return state.id

    async def create(self, argv: list[str], env: dict[str, str], cwd: Path, call_id: str) -> str:
        session = self._session()
        try:
            created = await self._front.client.create_terminal(
                CreateTerminalRequest(
                    session_id=session,
                    command=argv[0],
                    args=argv[1:],
                    env=[EnvVariable(name=name, value=value) for name, value in env.items()] or None,
                    cwd=str(cwd),
                    output_byte_limit=OUTPUT_LIMIT,
                )
            )
        except RequestError as exc:
            log.warning("the client could not create a terminal (%s); running bash here", exc)
            return ""
        self._front.sessions[session].project.feed.terminals[call_id] = created.terminal_id
        return created.terminal_id

    async def wait(self, terminal_id: str, timeout_s: float) -> TerminalRun:
        session, client = self._session(), self._front.client
        # Cancelled (the turn stopped), the terminal stays for ``kill``, which reads and releases it.
        try:
            await asyncio.wait_for(client.wait_for_terminal_exit(session, terminal_id), timeout_s)
            stop: TerminalStop = "exit"
        except TimeoutError:
            stop = "timeout"
            with contextlib.suppress(RequestError, ConnectionError):
                await client.kill_terminal(session, terminal_id)
        try:
            return await self._output(session, terminal_id, stop)
        finally:
            with contextlib.suppress(RequestError, ConnectionError):
                await client.release_terminal(session, terminal_id)

    async def kill(self, terminal_id: str) -> TerminalRun:
        session, client = self._session(), self._front.client
        try:
            with contextlib.suppress(RequestError, ConnectionError):
                await client.kill_terminal(session, terminal_id)
            return await self._output(session, terminal_id, "aborted")
        finally:
            with contextlib.suppress(RequestError, ConnectionError):
                await client.release_terminal(session, terminal_id)

    async def _output(self, session: str, terminal_id: str, stop: TerminalStop) -> TerminalRun:
        try:
            out = await self._front.client.terminal_output(session, terminal_id)
        except (RequestError, ConnectionError) as exc:  # the client lost it: what it printed is gone
            log.warning("the client could not give terminal %s's output: %s", terminal_id, exc)
            return TerminalRun(stop=stop, exit_code=None, output="")
        code = out.exit_status.exit_code if out.exit_status else None
        text = ("[... earlier output was not kept ...]\n" if out.truncated else "") + out.output
        return TerminalRun(stop=stop, exit_code=code, output=text)
