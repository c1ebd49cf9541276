"""Plan mode stays read-only through a whole turn, whatever the project config and past approvals say."""

from __future__ import annotations

import asyncio
from pathlib import Path

from core.events import PermissionAsked
from core.message.prompt_input import TextInput
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.harness import wait_for

from .conftest import AppFactory, drain, text_of


async def test_an_always_given_in_build_does_not_let_plan_edit(
    make_app: AppFactory, model: FakeModelServer, project: Path
) -> None:
    (project / "hello.py").write_text("print('hi')\n")
    app = await make_app(permission={"edit": "ask"})
    edit = {"filePath": "hello.py", "oldString": "hi", "newString": "hello"}
    model.script(Turn.tool_call("edit", edit), Turn.text("edited"))
    session = await app.create_session()
    asked = asyncio.create_task(wait_for(app, PermissionAsked, timeout=10))
    turn = asyncio.create_task(app.prompt(session.id, [TextInput(text="greet better")]))
    request = (await asked).request
    assert (request.permission, request.patterns) == ("edit", ["hello.py"])
    await app.dialogs.reply_permission(request.id, "always")  # "Always allow hello.py"
    await asyncio.wait_for(turn, timeout=10)
    assert "hello" in (project / "hello.py").read_text()

    sub = app.subscribe(PermissionAsked)
    again = {"filePath": "hello.py", "oldString": "hello", "newString": "HELLO"}
    model.script(Turn.tool_call("edit", again), Turn.text("I can only plan."))
    answer = await asyncio.wait_for(
        app.prompt(session.id, [TextInput(text="shout it")], agent="plan"), timeout=10
    )
    assert text_of(answer) == "I can only plan."
    assert drain(sub) == []  # denied, not asked
    assert (project / "hello.py").read_text() == "print('hello')\n"
    result = model.requests[-1].messages[-1]
    assert result["role"] == "tool" and "denied" in result["content"]
