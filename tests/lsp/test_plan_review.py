"""Plan review over the real server: a plugin client's event, list and reply; a stock client's plan
document and Approve / Revise / Reject dialog (a revision written into the plan's buffer)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException

from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.lsp.conftest import Connected, agent_config
from tests.lsp.editor import uri

PLAN = ".agentls/plans/greeting.md"
PLAN_TEXT = "# Greeting\n\n1. In hello.py, print bye instead of hello.\n"


@pytest.fixture
def options(model: FakeModelServer, title_model: FakeModelServer) -> dict[str, Any]:
    return {"config": agent_config(model, title_model, permission={"edit": "allow"})}


def script_plan(model: FakeModelServer, root: Path, *after: Turn) -> None:
    edit = {"filePath": str(root / "hello.py"), "oldString": "hello", "newString": "bye"}
    model.script(
        Turn.tool_call("write", {"filePath": PLAN, "content": PLAN_TEXT}),
        Turn.tool_call("plan_exit", {"path": PLAN}),
        *after,
        Turn.tool_call("edit", edit),
        Turn.text("It says bye now."),
    )


async def command(connected: Connected, name: str, *arguments: Any) -> Any:
    params = lsp.ExecuteCommandParams(command=name, arguments=list(arguments))
    return await asyncio.wait_for(connected.client.workspace_execute_command_async(params), 30)


async def test_plugin_gets_the_plan_event_lists_it_and_approves(
    plugin: Connected, model: FakeModelServer
) -> None:
    script_plan(model, plugin.root)
    sid = (await plugin.call("agent/session/create", {}))["id"]
    params = {"sessionID": sid, "parts": [{"type": "text", "text": "plan a goodbye"}], "agent": "plan"}
    running = asyncio.ensure_future(plugin.call("agent/session/prompt", params))
    (asked,) = await plugin.editor.wait_for(lambda: plugin.events("plan.review.asked"))
    request = asked["properties"]["request"]
    assert request["path"] == PLAN and request["text"] == PLAN_TEXT and request["sessionID"] == sid
    assert [r["id"] for r in (await plugin.call("agent/plan/list", {}))["requests"]] == [request["id"]]
    # A revision that says nothing, and a comment past the end, are refused; the plan still waits.
    for bad in ({"reply": "revise"}, {"reply": "revise", "comments": [{"line": 40, "text": "x"}]}):
        with pytest.raises(JsonRpcException) as caught:
            await plugin.call("agent/plan/reply", {"requestID": request["id"], **bad})
        assert caught.value.code == -32602
    with pytest.raises(JsonRpcException) as caught:
        await plugin.call("agent/plan/reply", {"requestID": request["id"], "reply": "maybe"})
    assert caught.value.code == -32602
    assert await plugin.call("agent/plan/reply", {"requestID": request["id"], "reply": "approve"}) is None
    answer = await asyncio.wait_for(running, 30)
    assert answer["info"]["agent"] == "build"
    assert (plugin.root / "hello.py").read_text() == "print('bye')\n"
    (replied,) = plugin.events("plan.review.replied")
    assert replied["properties"]["reply"] == "approve"
    with pytest.raises(JsonRpcException) as caught:
        await plugin.call("agent/plan/reply", {"requestID": request["id"], "reply": "approve"})
    assert caught.value.code == -32010


async def test_stock_client_opens_the_plan_and_revises_it_by_editing_then_approves(
    vscode: Connected, model: FakeModelServer
) -> None:
    plan_path = vscode.root / PLAN
    script_plan(
        model,
        vscode.root,
        Turn.tool_call("write", {"filePath": PLAN, "content": PLAN_TEXT + "2. Say why.\n"}),
        Turn.tool_call("plan_exit", {"path": PLAN}),
    )
    answers = iter(["Revise", "Revise", "Approve"])
    asked: list[str] = []

    def ask(params: lsp.ShowMessageRequestParams) -> lsp.MessageActionItem | None:
        vscode.editor.dialogs.append(params)
        choice = next(answers)
        asked.append(choice)
        if len(asked) == 2:  # the user writes a note into the plan, then picks Revise again
            vscode.editor.open(plan_path, PLAN_TEXT + "NOTE: and explain the change\n")
        return lsp.MessageActionItem(title=choice)

    vscode.editor.ask = ask  # type: ignore[method-assign]
    assert (await command(vscode, "agentls.mode", "plan"))[
        "mode"
    ] == "plan"  # read-only: stock has no agent picker
    result = await command(vscode, "agentls.prompt", "plan a goodbye")
    assert result["text"] == "It says bye now."
    first = vscode.editor.dialogs[0]
    assert [a.title for a in first.actions or []] == ["Approve", "Revise", "Reject"]
    assert PLAN in first.message and "It is open in the editor" in first.message
    assert vscode.client.shown_documents[0].uri == uri(plan_path)
    assert any("the plan is unchanged" in m.message for m in vscode.client.messages)
    told = str([m.get("content") for m in model.requests[2].messages if m.get("role") == "tool"][-1])
    assert "wrote their revision into the plan file" in told and "+NOTE: and explain the change" in told
    assert asked == ["Revise", "Revise", "Approve"]
    assert (vscode.root / "hello.py").read_text() == "print('bye')\n"
    assert (await command(vscode, "agentls.mode"))["mode"] == "ask"  # approving left read-only mode


async def test_stock_client_closing_the_dialog_rejects_the_plan(
    vscode: Connected, model: FakeModelServer
) -> None:
    script_plan(model, vscode.root)
    await command(vscode, "agentls.mode", "plan")
    result = await command(vscode, "agentls.prompt", "plan a goodbye")  # no answer queued: closed
    assert len(vscode.editor.dialogs) == 1
    assert len(model.requests) == 2  # the rejection stopped the turn
    assert (vscode.root / "hello.py").read_text() == "print('hello')\n"
    history = await vscode.call("agent/session/messages", {"sessionID": result["sessionID"]})
    parts = [p for m in history["messages"] for p in m["parts"] if p.get("tool") == "plan_exit"]
    assert parts[0]["state"]["status"] == "error"
    assert "closed the plan review" in parts[0]["state"]["error"]
