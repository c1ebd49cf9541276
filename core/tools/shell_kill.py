"""``shell_kill``: stop a background shell and every process it started."""

from __future__ import annotations

from pydantic import Field

from core.errors import ToolError
from core.tools.base import Tool, ToolParams, ToolResult
from core.tools.context import ToolContext


class ShellKillParams(ToolParams):
    shell_id: str = Field(description="The id bash gave the background shell, e.g. shell_1")


class ShellKillTool(Tool[ShellKillParams]):
    id = "shell_kill"
    Params = ShellKillParams

    async def execute(self, params: ShellKillParams, ctx: ToolContext) -> ToolResult:
        if ctx.shells is None:
            raise ToolError("background shells are not available here")
        shell = ctx.shells.get(ctx.session_id, params.shell_id)
        was = shell.state
        await ctx.shells.kill(shell)
        output = f"{shell.id} ({shell.command}) was {was}; now {shell.state}."
        return ToolResult(title=f"stop {shell.id}", output=output, metadata={"shellID": shell.id})
