"""Sub-agents seen from a client: the task part names its child session as soon as the child starts,
and a dialog asked inside the child names the task that asks."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.lsp.conftest import Connected, agent_config

TASK = {"description": "check the build", "prompt": "run the check", "subagent_type": "general"}


@pytest.fixture
def options(model: FakeModelServer, title_model: FakeModelServer) -> Any:
    return {"config": agent_config(model, title_model, permission={"bash": "ask"})}


def _running_task(plugin: Connected) -> dict[str, Any] | None:
    for event in plugin.events("message.part.updated"):
        part = event["properties"]["part"]
        state = part.get("state", {})
        running = part["type"] == "tool" and part["tool"] == "task" and state.get("status") == "running"
        if running and (state.get("metadata") or {}).get("sessionID"):
            return dict(part)
    return None


async def _child_dialog_names_its_task(plugin: Connected, model: FakeModelServer, parts: list[Any]) -> None:
    sid = (await plugin.call("agent/session/create", {}))["id"]
    turn = asyncio.create_task(plugin.call("agent/session/prompt", {"sessionID": sid, "parts": parts}))
    await plugin.editor.wait_for(lambda: plugin.events("permission.asked"))
    # Before the child asks anything, the running task part already carried the child's id.
    task_part = _running_task(plugin)
    assert task_part is not None
    child = task_part["state"]["metadata"]["sessionID"]
    assert task_part["state"]["metadata"]["subagent"] == "general"
    assert task_part["state"]["title"] == "check the build"
    request = plugin.events("permission.asked")[0]["properties"]["request"]
    assert request["sessionID"] == child and request["permission"] == "bash"
    assert request["task"] == {
        "sessionID": sid,
        "messageID": task_part["messageID"],
        "callID": task_part["callID"],
        "description": "check the build",
        "subagent": "general",
    }
    # The same in the list a client reads after a reload.
    listed = (await plugin.call("agent/permission/list", {}))["requests"]
    assert [r["task"]["callID"] for r in listed] == [task_part["callID"]]
    session = await plugin.call("agent/session/get", {"sessionID": child})
    assert session["parentID"] == sid
    await plugin.call("agent/permission/reply", {"requestID": request["id"], "reply": "once"})
    await asyncio.wait_for(turn, 30)


async def test_a_model_task_shows_its_child_and_the_childs_dialog_names_it(
    plugin: Connected, model: FakeModelServer
) -> None:
    model.script(
        Turn.tool_call("task", TASK),
        Turn.tool_call("bash", {"command": "echo checked"}),  # the child's step: asks
        Turn.text("The check passed."),  # the child's answer
        Turn.text("All good."),  # the parent reads the report
    )
    await _child_dialog_names_its_task(plugin, model, [{"type": "text", "text": "check it"}])


async def test_an_agent_mention_shows_its_child_and_the_childs_dialog_names_it(
    plugin: Connected, model: FakeModelServer
) -> None:
    # "@general check the build": the loop's own task branch, not a model's call.
    model.script(
        Turn.tool_call("bash", {"command": "echo checked"}),
        Turn.text("The check passed."),
        Turn.text("All good."),
    )
    parts = [{"type": "agent", "name": "general"}, {"type": "text", "text": "check the build"}]
    await _child_dialog_names_its_task(plugin, model, parts)
