"""The ``bash`` tool: run a command in its own process group with live output and a hard stop."""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import Field

from core.errors import PermissionDeniedError, PermissionRejectedError, ToolError
from core.permission.bash import bash_requests
from core.permission.request import PermissionAsk
from core.tools import paths
from core.tools.base import Tool, ToolParams, ToolResult
from core.tools.context import ToolContext
from core.tools.process import run_command

if TYPE_CHECKING:
    from core.sandbox.blocked import Blocked
    from core.sandbox.sandbox import Sandbox

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT_MS = 120_000
MAX_TIMEOUT_MS = 600_000
LIVE_CHARS = 30_000
BLOCKED_OUTPUT_CHARS = 300  # of a command the sandbox stopped, what the model reads after the notes

BashRequests = Callable[[str, Path, Path], list[PermissionAsk]]


class BashParams(ToolParams):
    command: str = Field(description="The command to run")
    timeout: int | None = Field(
        None, gt=0, le=MAX_TIMEOUT_MS, description="Timeout in milliseconds (default 120000, max 600000)"
    )
    workdir: str | None = Field(
        None, description="The folder to run the command in (default: working directory)"
    )
    description: str | None = Field(
        None, description="What the command does in 5-10 words, e.g. 'Run the unit tests'"
    )
    background: bool = Field(
        False,
        description="Run it in the background and return at once with a shell id (servers, watchers); "
        "read its output with shell_output, stop it with shell_kill",
    )


class BashTool(Tool[BashParams]):
    id = "bash"
    Params = BashParams
    truncate = "tail"  # errors and summaries come at the end of a command's output

    def __init__(self, requests: BashRequests | None = None) -> None:
        self._requests = requests or bash_requests

    async def prepare(self, params: BashParams, ctx: ToolContext) -> Path:
        """Check the call and ask its permissions (the command, files it reads or writes, folders
        outside the project); the folder to run it in. Whoever runs the command calls this first."""
        if not params.command.strip():
            raise ToolError("command is empty: give the shell command to run.")
        cwd = paths.resolve(ctx, params.workdir)
        if not cwd.is_dir():
            raise ToolError(f"workdir {cwd} does not exist or is not a folder.")
        # The check reads the whole line (up to 32 KB): off the event loop, so that other
        # sessions and clients are answered meanwhile.
        requests = await asyncio.to_thread(self._requests, params.command, cwd, ctx.worktree.resolve())
        mark = unsandboxed_mark(ctx.sandbox)
        for request in requests:
            await ctx.ask(mark(request))
        return cwd

    async def execute(self, params: BashParams, ctx: ToolContext) -> ToolResult:
        cwd = await self.prepare(params, ctx)
        description = params.description or params.command
        if params.background:
            return await self._in_background(params, cwd, description, ctx)
        timeout_ms = params.timeout or DEFAULT_TIMEOUT_MS

        def live(text: str) -> None:
            ctx.update(description, {"output": text, "description": description})

        log.debug("bash call %s: %s (cwd %s)", ctx.call_id, params.command, cwd)
        result = await run_command(
            params.command,
            cwd=cwd,
            timeout_s=timeout_ms / 1000,
            abort=ctx.abort,
            on_output=live,
            live_chars=LIVE_CHARS,
            sandbox=ctx.sandbox,
            session_id=ctx.session_id,
            ask_host=functools.partial(ask_for_host, ctx),
        )
        output = result.output
        if result.dropped_bytes:
            output = f"[... {result.dropped_bytes} earlier characters were not kept ...]\n{output}"
        done = command_result(
            description,
            output,
            result.output,
            result.exit_code,
            result.stop,
            timeout_ms,
            killed="it and every process it started were killed",
        )
        return with_blocked(done, result.blocked, result.exit_code)

    async def _in_background(
        self, params: BashParams, cwd: Path, description: str, ctx: ToolContext
    ) -> ToolResult:
        if ctx.shells is None:
            raise ToolError("background shells are not available here: run the command without background")
        shell = await ctx.shells.start(params.command, cwd, ctx.session_id, ctx.sandbox)
        output = (
            f"Started in the background as {shell.id}. Read its output with shell_output "
            f"(shell_id {shell.id!r}), stop it with shell_kill when it is no longer needed."
        )
        metadata = {"shellID": shell.id, "background": True, "description": description, "output": ""}
        return ToolResult(title=description, output=output, metadata=metadata)


def with_blocked(done: ToolResult, blocked: Sequence[Blocked], exit_code: int | None) -> ToolResult:
    """``done`` with what the sandbox blocked: a tool error when the command failed (so that the
    model asks the user rather than trying another way), else notes after the output."""
    if not blocked:
        return done
    notes = "\n".join(b.note for b in blocked)
    done.metadata["sandboxBlocked"] = [b.what for b in blocked]
    if exit_code:
        # The notes come first: a tool error is cut to its first kilobyte or so.
        tail = done.output[-BLOCKED_OUTPUT_CHARS:]
        raise ToolError(f"{notes}\n\nThe command's output (its end):\n{tail}")
    done.output = f"{done.output}\n\n{notes}"
    return done


async def ask_for_host(ctx: ToolContext, host: str) -> bool:
    """Whether a running command may connect to ``host`` (not on the sandbox's allow-list): the
    ``network`` permission for that host, asked like any other (an "always" remembers it). A "no"
    refuses the connection; the command goes on and the turn is not stopped."""
    request = PermissionAsk(
        permission="network",
        patterns=[host],
        always=[host],
        title=f"let the command connect to {host}",
        metadata={"host": host},
    )
    try:
        await ctx.ask(request)
    except (PermissionDeniedError, PermissionRejectedError):
        return False
    return True


def unsandboxed_mark(sandbox: Sandbox | None) -> Callable[[PermissionAsk], PermissionAsk]:
    """What marks a command's permission requests when it will run without an OS sandbox (full
    mode, or no sandbox possible here): the dialog says so. Unchanged when it runs confined."""
    if sandbox is None or sandbox.protection().active:
        return lambda request: request

    def mark(request: PermissionAsk) -> PermissionAsk:
        title = f"{request.title or ' '.join(request.patterns)} (runs without a sandbox)"
        return replace(request, title=title, metadata={**request.metadata, "sandbox": "none"})

    return mark


def command_result(
    description: str,
    output: str,
    kept: str,
    exit_code: int | None,
    stop: str,
    timeout_ms: int,
    *,
    killed: str,
) -> ToolResult:
    """What the model reads of a finished command: its output, then why it stopped if not by itself
    or with a failure. ``kept``: the output for the call's metadata (clients show it); ``killed``:
    what stopping it killed."""
    notes = []
    if stop == "timeout":
        notes.append(
            f"The command was still running after {timeout_ms} ms, so {killed}. "
            "Run long tasks with a larger timeout or in the background."
        )
    elif stop == "aborted":
        notes.append(f"The user aborted the command; {killed}.")
    elif exit_code:
        notes.append(f"Exit code: {exit_code}")
    shown = output if output.strip() else "(no output)"
    if notes:
        shown = shown.rstrip("\n") + "\n\n" + "\n".join(notes)
    metadata = {
        "output": kept[-LIVE_CHARS:],
        "exit": exit_code,
        "description": description,
        "timedOut": stop == "timeout",
        "aborted": stop == "aborted",
    }
    return ToolResult(title=description, output=shown, metadata=metadata)
