"""Agents and permissions through the real loop: plan, explore, subagent tasks, "always" across restarts."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from core.events import PartUpdated, PermissionAsked
from core.message.models import ToolPart
from core.message.prompt_input import AgentInput, TextInput
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.harness import wait_for

from .conftest import AppFactory, HarnessFactory, drain, text_of


def say(text: str) -> list[TextInput]:
    return [TextInput(text=text)]


async def test_plan_agent_is_refused_an_edit_and_reminded_of_plan_mode(
    make_app: AppFactory, model: FakeModelServer, project: Path
) -> None:
    app = await make_app()
    edit = {"filePath": "calc.py", "oldString": "a - b", "newString": "a + b"}
    model.script(Turn.tool_call("edit", edit), Turn.text("Here is the plan instead."))
    session = await app.create_session()
    answer = await app.prompt(session.id, say("fix it"), agent="plan")
    assert text_of(answer) == "Here is the plan instead."
    assert "a - b" in (project / "calc.py").read_text()
    result = model.requests[1].messages[-1]
    assert result["role"] == "tool" and "denied" in result["content"]
    first_user = next(m for m in model.requests[0].messages if m["role"] == "user")
    assert any("You are the plan agent" in c["text"] for c in first_user["content"])


async def test_explore_subagent_sees_only_read_only_tools(
    make_harness: HarnessFactory, model: FakeModelServer
) -> None:
    harness = await make_harness()
    app = harness.agent
    model.script(Turn.text("calc.py defines add and it subtracts."), Turn.text("The explorer found the bug."))
    session = await app.create_session()
    answer = await app.prompt(
        session.id, [AgentInput(name="explore"), TextInput(text="find where add is defined")]
    )
    child_tools = {t["function"]["name"] for t in model.requests[0].tools}
    assert child_tools == {"read", "grep", "glob", "list"}
    assert text_of(answer) == "The explorer found the bug."
    children = await harness.sessions.children(session.id)
    assert len(children) == 1
    task = next(p for m in await app.messages(session.id) for p in m.parts if isinstance(p, ToolPart))
    assert task.tool == "task" and task.state.status == "completed"
    assert "subtracts" in task.state.output


async def test_subagent_task_with_tools_is_aborted_with_its_parent(
    make_harness: HarnessFactory, model: FakeModelServer, project: Path
) -> None:
    harness = await make_harness()
    app = harness.agent
    task = {"description": "run a slow check", "prompt": "run the check", "subagent_type": "general"}
    model.script(
        Turn.tool_call("task", task),
        Turn.tool_call("bash", {"command": "sleep 30"}),  # the child's step
    )
    session = await app.create_session()
    bash_running = asyncio.create_task(
        wait_for(
            app,
            PartUpdated,
            lambda e: e.part.type == "tool" and e.part.tool == "bash" and e.part.state.status == "running",
            timeout=15,
        )
    )
    turn = asyncio.create_task(app.prompt(session.id, say("check it")))
    child_part = (await bash_running).part
    assert child_part.sessionID != session.id  # the bash call runs in the child session
    started = time.monotonic()
    await app.abort(session.id)
    await asyncio.wait_for(turn, timeout=10)
    assert time.monotonic() - started < 3
    child_history = await app.messages(child_part.sessionID)
    bash = next(p for m in child_history for p in m.parts if isinstance(p, ToolPart))
    assert bash.state.status == "error"
    parent = next(p for m in await app.messages(session.id) for p in m.parts if isinstance(p, ToolPart))
    assert parent.tool == "task" and parent.state.status == "error"
    assert not harness.is_busy(session.id) and not harness.is_busy(child_part.sessionID)


async def test_always_survives_a_restart(make_app: AppFactory, model: FakeModelServer) -> None:
    first = await make_app(permission={"bash": "ask"})
    model.script(Turn.tool_call("bash", {"command": "git status"}), Turn.text("clean"))
    session = await first.create_session()
    asked = asyncio.create_task(wait_for(first, PermissionAsked, timeout=10))
    turn = asyncio.create_task(first.prompt(session.id, say("status?")))
    request = (await asked).request
    assert request.always == ["git status *"]
    await first.dialogs.reply_permission(request.id, "always")
    await asyncio.wait_for(turn, timeout=10)
    await first.close()

    second = await make_app(permission={"bash": "ask"})
    sub = second.subscribe(PermissionAsked)
    model.script(Turn.tool_call("bash", {"command": "git status --short"}), Turn.text("still clean"))
    other = await second.create_session()
    answer = await asyncio.wait_for(second.prompt(other.id, say("again?")), timeout=10)
    assert text_of(answer) == "still clean"
    assert drain(sub) == []
