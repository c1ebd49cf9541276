"""``todowrite`` / ``todoread``: the session's task list, kept by the todos service in ``ctx.todos``."""

from __future__ import annotations

import json
from typing import Literal

from pydantic import BaseModel, Field

from core.errors import ToolError
from core.message.models import Todo
from core.tools.base import Tool, ToolParams, ToolResult, load_description
from core.tools.context import TodoStore, ToolContext


class TodoItem(BaseModel):
    content: str = Field(min_length=1, description="What to do, as a short imperative sentence")
    status: Literal["pending", "in_progress", "completed", "cancelled"] = Field(
        description="pending, in_progress (one item at a time), completed or cancelled"
    )
    priority: Literal["high", "medium", "low"] = Field(description="high, medium or low")


class TodoWriteParams(ToolParams):
    todos: list[TodoItem] = Field(description="The complete updated list; it replaces the current one")


class TodoReadParams(ToolParams):
    pass


def _store(ctx: ToolContext) -> TodoStore:
    if ctx.todos is None:
        raise ToolError("The todo list is not available in this session; keep track of the steps yourself.")
    return ctx.todos


def _result(todos: list[Todo]) -> ToolResult:
    open_count = sum(1 for t in todos if t.status not in ("completed", "cancelled"))
    body = [t.model_dump(exclude_none=True) for t in todos]
    return ToolResult(
        title=f"{open_count} todos",
        output=json.dumps(body, indent=2, ensure_ascii=False),
        metadata={"todos": body},
    )


class TodoWriteTool(Tool[TodoWriteParams]):
    id = "todowrite"
    Params = TodoWriteParams

    @property
    def description(self) -> str:
        return load_description("core.tools.todowrite")

    async def execute(self, params: TodoWriteParams, ctx: ToolContext) -> ToolResult:
        todos = [Todo(content=t.content, status=t.status, priority=t.priority) for t in params.todos]
        await _store(ctx).set_todos(ctx.session_id, todos)
        return _result(todos)


class TodoReadTool(Tool[TodoReadParams]):
    id = "todoread"
    Params = TodoReadParams
    read_only = True

    @property
    def description(self) -> str:
        return load_description("core.tools.todoread")

    async def execute(self, params: TodoReadParams, ctx: ToolContext) -> ToolResult:
        return _result(await _store(ctx).get_todos(ctx.session_id))
