"""The ``task`` tool: hand a self-contained job to a subagent running in a child session."""

from __future__ import annotations

from pydantic import Field

from core.errors import ToolError
from core.permission.request import PermissionAsk
from core.tools.base import Tool, ToolParams, ToolResult
from core.tools.context import SubtaskResult, SubtaskRunner, ToolContext

__all__ = ["SubtaskResult", "SubtaskRunner", "TaskParams", "TaskTool"]


class TaskParams(ToolParams):
    description: str = Field(description="A short (3-5 words) description of the task")
    prompt: str = Field(description="The complete task for the subagent, with all the context it needs")
    subagent_type: str = Field(description="Which subagent to use (one of those listed in this description)")
    task_id: str | None = Field(
        None, description="To continue an earlier task, the task_id it returned (its session resumes)"
    )
    background: bool = Field(
        False,
        description="Run the subagent in the background: the call returns at once and its report "
        "arrives later as a message",
    )


class TaskTool(Tool[TaskParams]):
    id = "task"
    Params = TaskParams

    def __init__(self, runner: SubtaskRunner) -> None:
        self._runner = runner

    @property
    def description(self) -> str:
        listing = "\n".join(f"- {name}: {text}" for name, text in self._runner.describe_subagents())
        return f"{super().description}\n\nAvailable subagents:\n{listing or '- (none)'}"

    async def execute(self, params: TaskParams, ctx: ToolContext) -> ToolResult:
        names = {name for name, _ in self._runner.describe_subagents()}
        if params.subagent_type not in names:
            raise ToolError(
                f"Unknown subagent {params.subagent_type!r}. "
                f"Use one of: {', '.join(sorted(names)) or 'none'}."
            )
        await ctx.ask(
            PermissionAsk(
                "task",
                [params.subagent_type],
                always=[params.subagent_type],
                title=f"Run the {params.subagent_type} subagent: {params.description}",
                metadata={"description": params.description, "subagent": params.subagent_type},
            )
        )
        if params.background:
            child = await self._runner.start_background(
                ctx, params.subagent_type, params.prompt, params.description, params.task_id
            )
            return ToolResult(
                title=params.description,
                output=(
                    f"Started in the background as task_id {child}. Its report will arrive as a "
                    "message when it finishes: go on with other work meanwhile, and do not edit the "
                    "files you asked it to change."
                ),
                metadata={"sessionID": child, "subagent": params.subagent_type, "background": True},
            )
        result = await self._runner.run_subtask(
            ctx, params.subagent_type, params.prompt, params.description, params.task_id
        )
        output = f"{result.text}\n\n<task_metadata>\ntask_id: {result.session_id}\n</task_metadata>"
        return ToolResult(
            title=params.description,
            output=output,
            metadata={"sessionID": result.session_id, "subagent": params.subagent_type},
        )
