"""bash run in a terminal someone else owns: an ACP client's (``terminal/*``), reached in-process or,
attached to the host, through the front end that lent it (``core/remote/lend.py``).

The permission checks and the confinement are the core bash tool's and happen where the agent
runs; the terminal only runs the confined command line. The command's life is the terminal
owner's three steps: ``create`` it (the call's card shows it live from then on), ``wait`` for its
end (killed at the timeout), or ``kill`` it when the turn is aborted; each gives back what the
model reads of it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol

from core.errors import AgentError
from core.record import record
from core.tools.bash import DEFAULT_TIMEOUT_MS, BashParams, command_result, with_blocked

if TYPE_CHECKING:
    from core.tools.base import ToolResult
    from core.tools.bash import BashTool
    from core.tools.context import ToolContext

TerminalStop = Literal["exit", "timeout", "aborted"]
KILL_TIMEOUT_S = 10.0  # a terminal owner that does not answer the kill is given up on
log = logging.getLogger(__name__)


@record
class TerminalRun:
    """How a command in a terminal ended and what it printed (as much as the terminal kept)."""

    stop: TerminalStop
    exit_code: int | None
    output: str


class Terminal(Protocol):
    """A terminal owner's three steps (its session is the turn's own, known to the owner)."""

    async def create(self, argv: list[str], env: dict[str, str], cwd: Path, call_id: str) -> str:
        """Start ``argv`` in a new terminal; its id, or "" when none could be made (bash runs here)."""
        ...

    async def wait(self, terminal_id: str, timeout_s: float) -> TerminalRun:
        """Until the command exits (or is killed at ``timeout_s``); the terminal is released after."""
        ...

    async def kill(self, terminal_id: str) -> TerminalRun:
        """Kill the command now (the turn was aborted); what it printed; the terminal is released."""
        ...


async def run_in_terminal(
    tool: BashTool,
    terminal: Terminal,
    params: BashParams,
    ctx: ToolContext,
    here: Callable[[BashParams, ToolContext], Awaitable[ToolResult]],
) -> ToolResult:
    """Run the bash call ``params`` in ``terminal``; ``here`` runs it in this process instead (no
    terminal could be made)."""
    cwd = await tool.prepare(params, ctx)
    description = params.description or params.command
    timeout_ms = params.timeout or DEFAULT_TIMEOUT_MS
    # The terminal runs the command confined like the agent's own bash (the terminal keeps its own
    # environment: only the sandbox's temp dir variables are added to it).
    argv, env, confined = ["/bin/sh", "-c", params.command], {}, None
    if ctx.sandbox is not None:
        confined = ctx.sandbox.confine(argv, cwd, {}, session_id=ctx.session_id)
        argv = confined.argv
        if confined.policy is not None:
            env = {name: str(confined.policy.tmpdir) for name in ("TMPDIR", "TMP", "TEMP")}
    terminal_id = await terminal.create(argv, env, cwd, ctx.call_id)
    if not terminal_id:
        return await here(params, ctx)
    ctx.update(description, {"description": description, "terminal": terminal_id})
    waiting = asyncio.ensure_future(terminal.wait(terminal_id, timeout_ms / 1000))
    aborted = asyncio.ensure_future(ctx.abort.wait())
    try:
        await asyncio.wait({waiting, aborted}, return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:  # the call itself was cancelled (its turn stopped): kill, then go
        await _stop(terminal, terminal_id, waiting)
        raise
    finally:
        aborted.cancel()
    if waiting.done():
        run = waiting.result()
    else:
        run = await _stop(terminal, terminal_id, waiting)
    done = command_result(
        description, run.output, run.output, run.exit_code, run.stop, timeout_ms, killed="it was killed"
    )
    blocked = confined.blocked(run.output) if confined is not None and run.stop == "exit" else []
    return with_blocked(done, blocked, run.exit_code)


async def _stop(terminal: Terminal, terminal_id: str, waiting: asyncio.Future[TerminalRun]) -> TerminalRun:
    """Stop waiting and kill the command (what it printed, as it was killed)."""
    waiting.cancel()
    await asyncio.gather(waiting, return_exceptions=True)
    try:
        return await asyncio.wait_for(terminal.kill(terminal_id), KILL_TIMEOUT_S)
    except (AgentError, OSError, TimeoutError) as exc:  # the terminal's owner failed or went away
        log.warning("killing terminal %s failed: %s", terminal_id, exc)
        return TerminalRun(stop="aborted", exit_code=None, output="")
