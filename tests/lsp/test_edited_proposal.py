"""agent/permission/reply with ``edited`` through the real server: the user's version of a proposed
edit is what lands in the file, the model is told it differs (with a short diff), and a reply that
cannot carry an edit is refused with the request still waiting."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from pygls.exceptions import JsonRpcException

from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from lsp_server import errors
from tests.lsp.conftest import Connected, agent_config
from tests.lsp.editor import uri


@pytest.fixture
def options(model: FakeModelServer, title_model: FakeModelServer) -> Any:
    return {"config": agent_config(model, title_model, permission={"edit": "ask", "bash": "ask"})}


def _prompt(plugin: Connected, sid: str) -> asyncio.Future[Any]:
    params = {"sessionID": sid, "parts": [{"type": "text", "text": "go"}]}
    return asyncio.ensure_future(plugin.client.protocol.send_request_async("agent/session/prompt", params))


async def _asked(
    plugin: Connected, model: FakeModelServer, call: Turn
) -> tuple[str, asyncio.Future[Any], dict[str, Any]]:
    model.script(call, Turn.text("Done."))
    sid = str((await plugin.call("agent/session/create", {}))["id"])
    turn = _prompt(plugin, sid)
    (asked,) = await plugin.editor.wait_for(lambda: plugin.events("permission.asked"))
    return sid, turn, asked["properties"]["request"]


def _tool_output(model: FakeModelServer) -> str:
    """The tool result the model got in its last request."""
    return str([m for m in model.requests[-1].messages if m.get("role") == "tool"])


@pytest.mark.parametrize("tool", ["edit", "write"])
async def test_accepting_an_edited_proposal_writes_the_users_text(
    plugin: Connected, model: FakeModelServer, tool: str
) -> None:
    path = plugin.root / "hello.py"
    path.write_text("a\nb\nc\n")
    plugin.editor.open(path, "a\nb\nc\n")
    args = (
        {"filePath": str(path), "oldString": "b\n", "newString": "B\n"}
        if tool == "edit"
        else {"filePath": str(path), "content": "a\nB\nc\n"}
    )
    _, turn, request = await _asked(plugin, model, Turn.tool_call(tool, args))
    assert request["metadata"]["editable"] is True and request["metadata"]["after"] == "a\nB\nc\n"

    mine = "a\nBee  # the user's own\nc\n"
    await plugin.call("agent/permission/reply", {"requestID": request["id"], "reply": "once", "edited": mine})
    await asyncio.wait_for(turn, 30)

    assert plugin.editor.buffers[uri(path)].text == mine
    assert path.read_text() == mine  # the plugin profile saves what an agent edit touched
    told = _tool_output(model)
    assert "The user edited your proposal before accepting it" in told
    assert "-B" in told and "+Bee  # the user's own" in told


async def test_an_unchanged_edited_text_is_a_plain_accept(plugin: Connected, model: FakeModelServer) -> None:
    path = plugin.root / "hello.py"
    path.write_text("a\nb\n")
    call = Turn.tool_call("edit", {"filePath": str(path), "oldString": "b\n", "newString": "B\n"})
    _, turn, request = await _asked(plugin, model, call)
    reply = {"requestID": request["id"], "reply": "always", "edited": "a\nB\n"}
    await plugin.call("agent/permission/reply", reply)
    await asyncio.wait_for(turn, 30)
    assert path.read_text() == "a\nB\n"
    assert "edited your proposal" not in _tool_output(model)


@pytest.mark.parametrize(
    ("tool", "reply", "message"),
    [
        ("bash", "once", "proposes no file text to edit"),
        ("edit", "reject", 'accept an edited proposal with "once" or "always", not "reject"'),
    ],
)
async def test_an_edit_that_cannot_apply_is_refused_and_the_request_still_waits(
    plugin: Connected, model: FakeModelServer, tool: str, reply: str, message: str
) -> None:
    path = plugin.root / "hello.py"
    path.write_text("a\nb\n")
    call = (
        Turn.tool_call("bash", {"command": "echo hi", "description": "say hi"})
        if tool == "bash"
        else Turn.tool_call("edit", {"filePath": str(path), "oldString": "b\n", "newString": "B\n"})
    )
    _, turn, request = await _asked(plugin, model, call)
    with pytest.raises(JsonRpcException, match=message) as caught:
        await plugin.call(
            "agent/permission/reply", {"requestID": request["id"], "reply": reply, "edited": "x\n"}
        )
    assert caught.value.code == errors.INVALID_PARAMS
    pending = (await plugin.call("agent/permission/list", {}))["requests"]
    assert [r["id"] for r in pending] == [request["id"]]  # nothing lost: it can still be answered
    assert path.read_text() == "a\nb\n"
    await plugin.call("agent/permission/reply", {"requestID": request["id"], "reply": "once"})
    await asyncio.wait_for(turn, 30)


async def test_an_edited_reply_to_an_unknown_request_is_not_found(plugin: Connected) -> None:
    with pytest.raises(JsonRpcException) as caught:
        await plugin.call("agent/permission/reply", {"requestID": "per_nope", "reply": "once", "edited": "x"})
    assert caught.value.code == errors.NOT_FOUND


@pytest.mark.parametrize(
    ("typed", "expected", "told"),
    [
        ("# mine\na\nb\nc\nd\n", "# mine\na\nB\nc\nd\n", "Edited"),  # elsewhere: both kept
        ("a\nb, mine\nc\nd\n", "a\nb, mine\nc\nd\n", "while this edit waited for permission"),  # same line
    ],
)
async def test_typing_while_the_dialog_waits_is_never_lost(
    plugin: Connected, model: FakeModelServer, typed: str, expected: str, told: str
) -> None:
    path = plugin.root / "hello.py"
    path.write_text("a\nb\nc\nd\n")
    plugin.editor.open(path, "a\nb\nc\nd\n")
    call = Turn.tool_call("edit", {"filePath": str(path), "oldString": "b\n", "newString": "B\n"})
    _, turn, request = await _asked(plugin, model, call)
    plugin.editor.type(path, typed)  # unsaved, while the dialog is up
    await plugin.call("agent/permission/reply", {"requestID": request["id"], "reply": "once"})
    await asyncio.wait_for(turn, 30)
    assert plugin.editor.buffers[uri(path)].text == expected
    assert told in _tool_output(model)
