"""``shell_output``: what a background shell printed since the last read, and whether it runs."""

from __future__ import annotations

from pydantic import Field

from core.errors import ToolError
from core.tools.base import Tool, ToolParams, ToolResult
from core.tools.context import ToolContext


class ShellOutputParams(ToolParams):
    shell_id: str = Field(description="The id bash gave the background shell, e.g. shell_1")


class ShellOutputTool(Tool[ShellOutputParams]):
    id = "shell_output"
    Params = ShellOutputParams
    read_only = True
    truncate = "none"  # bounded by the shell's own read size

    async def execute(self, params: ShellOutputParams, ctx: ToolContext) -> ToolResult:
        if ctx.shells is None:
            raise ToolError("background shells are not available here")
        shell = ctx.shells.get(ctx.session_id, params.shell_id)
        new, missed, more = shell.read()
        lines = []
        if missed:
            lines.append(f"[{missed} characters printed before this were not kept]")
        lines.append(new if new else "(no new output)")
        tail = f"{shell.id} is {shell.state}"
        if more:
            tail += "; more output is waiting: call shell_output again"
        output = "\n".join(lines).rstrip("\n") + f"\n\n{tail}."
        metadata = {"shellID": shell.id, "state": shell.state, "output": new[-4000:]}
        return ToolResult(title=f"{shell.id}: {shell.command}", output=output, metadata=metadata)
