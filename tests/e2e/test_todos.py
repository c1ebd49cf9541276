"""The todo tools through the real app: the list is stored with the session and announced."""

from __future__ import annotations

from core.events import TodoUpdated
from core.message.models import ToolPart
from core.message.prompt_input import TextInput
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn

from .conftest import AppFactory, drain

TODOS = {
    "todos": [
        {"content": "Fix add()", "status": "in_progress", "priority": "high"},
        {"content": "Run the tests", "status": "pending", "priority": "medium"},
    ]
}


async def test_todowrite_stores_the_list_and_todoread_gives_it_back(
    make_app: AppFactory, model: FakeModelServer
) -> None:
    app = await make_app()
    model.script(Turn.tool_call("todowrite", TODOS), Turn.tool_call("todoread", {}), Turn.text("Planned."))
    session = await app.create_session()
    sub = app.subscribe()
    answer = await app.prompt(session.id, [TextInput(type="text", text="plan it")])
    assert [t.content for t in await app.todos(session.id)] == ["Fix add()", "Run the tests"]
    announced = [e for e in drain(sub) if isinstance(e, TodoUpdated)]
    assert announced and announced[-1].todos[0].status == "in_progress"
    history = await app.messages(session.id)
    tools = [p for m in history for p in m.parts if isinstance(p, ToolPart)]
    assert [t.state.status for t in tools] == ["completed", "completed"]
    assert "Run the tests" in model.requests[2].messages[-1]["content"]
    assert answer.info.role == "assistant"
