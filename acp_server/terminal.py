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
from typing import TYPE_CHECKING, Any

from acp import RequestError
from acp.schema import CreateTerminalRequest, EnvVariable

from acp_server.workspace import current_session
from core.host_tools import (
    DEFAULT_TIMEOUT_MS,
    BashParams,
    BashTool,
    Tool,
    ToolContext,
    ToolResult,
    command_result,
    load_description,
    with_blocked,
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

    @property
    def description(self) -> str:
        # The same text the model reads about the core bash tool (it lives beside that module).
        return load_description(BashTool.__module__)

    async def execute(self, params: BashParams, ctx: ToolContext) -> ToolResult:
        session = current_session.get()
        state = self._front.sessions.get(session) if session else None
        if not self._front.terminal or state is None:
            return await super().execute(params, ctx)
        cwd = await self.prepare(params, ctx)
        description = params.description or params.command
        timeout_ms = params.timeout or DEFAULT_TIMEOUT_MS
        client = self._front.client
        # The terminal runs the command confined like the agent's own bash (the client's terminal
        # keeps its own environment: only the sandbox's temp dir variables are added to it).
        argv, env, confined = ["/bin/sh", "-c", params.command], None, None
        if ctx.sandbox is not None:
            confined = ctx.sandbox.confine(argv, cwd, {}, session_id=ctx.session_id)
            argv = confined.argv
            if confined.policy is not None:
                tmp = str(confined.policy.tmpdir)
                env = [EnvVariable(name=name, value=tmp) for name in ("TMPDIR", "TMP", "TEMP")]
        try:
            created = await client.create_terminal(
                CreateTerminalRequest(
                    session_id=state.id,
                    command=argv[0],
                    args=argv[1:],
                    env=env,
                    cwd=str(cwd),
                    output_byte_limit=OUTPUT_LIMIT,
                )
            )
        except RequestError as exc:
            log.warning("the client could not create a terminal (%s); running bash here", exc)
            return await super().execute(params, ctx)
        terminal = created.terminal_id
        state.project.feed.terminals[ctx.call_id] = terminal
        ctx.update(description, {"description": description, "terminal": terminal})
        try:
            stop, exit_code, output = await self._wait(state.id, terminal, timeout_ms / 1000, ctx.abort)
        finally:
            with contextlib.suppress(RequestError, ConnectionError):
                await client.release_terminal(state.id, terminal)
        killed = "it was killed"
        done = command_result(description, output, output, exit_code, stop, timeout_ms, killed=killed)
        blocked = confined.blocked(output) if confined is not None and stop == "exit" else []
        return with_blocked(done, blocked, exit_code)

    async def _wait(
        self, session_id: str, terminal: str, timeout: float, abort: asyncio.Event
    ) -> tuple[str, int | None, str]:
        client = self._front.client
        exited = asyncio.ensure_future(client.wait_for_terminal_exit(session_id, terminal))
        aborted = asyncio.ensure_future(abort.wait())
        try:
            done, _ = await asyncio.wait(
                {exited, aborted}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
            )
        finally:
            aborted.cancel()
        stop = "exit" if exited in done else "aborted" if aborted in done else "timeout"
        if stop != "exit":
            exited.cancel()
            with contextlib.suppress(RequestError, ConnectionError):
                await client.kill_terminal(session_id, terminal)
        out = await client.terminal_output(session_id, terminal)
        code = out.exit_status.exit_code if out.exit_status else None
        text = ("[... earlier output was not kept ...]\n" if out.truncated else "") + out.output
        return stop, code, text
