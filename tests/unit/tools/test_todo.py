"""todowrite / todoread through a todos service in ctx.todos."""

from __future__ import annotations

import json

import pytest

from core.errors import ToolError
from core.message.models import Todo
from core.tools.context import ToolContext
from core.tools.runner import run_tool
from core.tools.todo import TodoReadTool, TodoWriteTool


class MemoryTodos:
    """The todos seam as the sessions service provides it, kept in memory."""

    def __init__(self) -> None:
        self.lists: dict[str, list[Todo]] = {}

    async def get_todos(self, session_id: str) -> list[Todo]:
        return list(self.lists.get(session_id, []))

    async def set_todos(self, session_id: str, todos: list[Todo]) -> None:
        self.lists[session_id] = list(todos)


TODOS = [
    {"content": "Write the parser", "status": "completed", "priority": "high"},
    {"content": "Test it", "status": "in_progress", "priority": "medium"},
    {"content": "Document it", "status": "pending", "priority": "low"},
]


async def test_write_replaces_the_list_and_read_returns_it(ctx: ToolContext) -> None:
    todos = MemoryTodos()
    ctx.todos = todos
    await run_tool(
        TodoWriteTool(), {"todos": [{"content": "old", "status": "pending", "priority": "low"}]}, ctx
    )
    result = await run_tool(TodoWriteTool(), {"todos": TODOS}, ctx)
    assert result.title == "2 todos"
    assert [t.content for t in todos.lists["ses_test"]] == ["Write the parser", "Test it", "Document it"]
    assert json.loads(result.output) == TODOS
    read = await run_tool(TodoReadTool(), {}, ctx)
    assert json.loads(read.output) == TODOS
    assert read.metadata["todos"] == TODOS


async def test_bad_status_is_a_tool_error(ctx: ToolContext) -> None:
    ctx.todos = MemoryTodos()
    bad = [{"content": "x", "status": "doing", "priority": "high"}]
    with pytest.raises(ToolError, match="status"):
        await run_tool(TodoWriteTool(), {"todos": bad}, ctx)


async def test_without_a_todos_service(ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="not available"):
        await run_tool(TodoReadTool(), {}, ctx)


def test_descriptions_load() -> None:
    assert "COMPLETE list" in TodoWriteTool().description
    assert "task list" in TodoReadTool().description
    assert TodoWriteTool().spec()["parameters"]["properties"]["todos"]["type"] == "array"
