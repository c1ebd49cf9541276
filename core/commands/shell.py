"""``!`command` `` in a command template: asked like the bash tool's commands, then run."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

from core.commands.template import RunShell
from core.errors import AbortedError, InvalidInputError
from core.permission.bash import bash_requests
from core.permission.request import PermissionAsk
from core.tools.bash import unsandboxed_mark
from core.tools.process import run_command

if TYPE_CHECKING:
    from core.sandbox.sandbox import Sandbox

log = logging.getLogger(__name__)

TIMEOUT_S = 60.0
MAX_CHARS = 30_000  # a command's output kept in the prompt (its tail)

Ask = Callable[[PermissionAsk], Awaitable[None]]


def shell_runner(
    ask: Ask,
    directory: Path,
    worktree: Path,
    abort: asyncio.Event,
    *,
    sandbox: Sandbox | None = None,
    session_id: str | None = None,
) -> RunShell:
    """Run a template's shell command in ``directory`` once ``ask`` allowed each of its requests.

    The requests are the bash tool's (``bash_requests``): the same rules, approvals and dialogs
    decide, so a denied or rejected command raises and the command sends no prompt. ``abort`` set
    (the session's abort) closes an open dialog or kills the command, and raises AbortedError.
    The command runs confined by ``sandbox`` like the bash tool's; what it blocked is noted after
    the output, for the model.
    """

    root = worktree.resolve()

    async def run(command: str) -> str:
        mark = unsandboxed_mark(sandbox)
        for request in await asyncio.to_thread(bash_requests, command, directory, root):
            await _unless_aborted(ask(mark(request)), abort, command)
        if abort.is_set():
            raise AbortedError(f"the command was aborted before !`{command}` ran")
        log.info("command template runs: %s", command)
        result = await run_command(
            command, cwd=directory, timeout_s=TIMEOUT_S, abort=abort, sandbox=sandbox, session_id=session_id
        )
        if result.stop == "timeout":
            raise InvalidInputError(f"!`{command}` was still running after {TIMEOUT_S:.0f} s and was stopped")
        if result.stop == "aborted":
            raise AbortedError(f"the command was aborted while !`{command}` ran")
        output = result.output.rstrip("\n")[-MAX_CHARS:]
        if result.exit_code:
            output = f"{output}\n(exit code {result.exit_code})".lstrip("\n")
        for blocked in result.blocked:
            output = f"{output}\n({blocked.note})"
        return output

    return run


async def _unless_aborted(asking: Awaitable[None], abort: asyncio.Event, command: str) -> None:
    """Wait for a permission answer; an abort meanwhile withdraws the dialog and raises."""
    answer = asyncio.ensure_future(asking)
    aborted = asyncio.ensure_future(abort.wait())
    try:
        await asyncio.wait({answer, aborted}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        aborted.cancel()
        if not answer.done():
            answer.cancel()  # the permission service closes the dialog on the clients
            await asyncio.wait({answer})
    if answer.cancelled():
        raise AbortedError(f"the command was aborted while !`{command}` waited for permission")
    answer.result()
