"""Whole turns through the real server and the fake model: events, files through the editor, dialogs."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException

from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from lsp_server import errors
from tests.lsp.conftest import Connected, agent_config
from tests.lsp.editor import uri


@pytest.fixture
def options(request: pytest.FixtureRequest, model: FakeModelServer, title_model: FakeModelServer) -> Any:
    """The fake model's config; ``indirect`` parametrization adds config keys."""
    return {"config": agent_config(model, title_model, **getattr(request, "param", {}))}


def tool_results(request_messages: list[dict[str, Any]]) -> str:
    return "\n".join(str(m.get("content")) for m in request_messages if m.get("role") == "tool")


async def prompt(connected: Connected, sid: str, text: str) -> Any:
    params = {"sessionID": sid, "parts": [{"type": "text", "text": text}]}
    return await connected.call("agent/session/prompt", params)


async def new_session(connected: Connected) -> str:
    session = await connected.call("agent/session/create", {})
    return str(session["id"])


async def test_prompt_streams_events_and_answers_the_final_message(
    plugin: Connected, model: FakeModelServer
) -> None:
    model.script(Turn.text("Hello from the agent", chunks=6))
    sid = await new_session(plugin)
    result = await prompt(plugin, sid, "hi")
    assert result["info"]["role"] == "assistant" and result["info"]["sessionID"] == sid
    assert [p["text"] for p in result["parts"] if p["type"] == "text"] == ["Hello from the agent"]
    await plugin.editor.wait_for(lambda: plugin.events("session.idle"))
    deltas = [e["properties"]["delta"] for e in plugin.events("message.part.delta")]
    assert "".join(deltas) == "Hello from the agent"
    types = {e["type"] for e in plugin.events()}
    assert {"message.updated", "message.part.updated", "session.status"} <= types
    # A client that reconnects rebuilds the transcript from messages.
    messages = (await plugin.call("agent/session/messages", {"sessionID": sid}))["messages"]
    assert [m["info"]["role"] for m in messages] == ["user", "assistant"]


async def test_read_sees_the_unsaved_buffer_and_file_parts_take_uris(
    plugin: Connected, model: FakeModelServer
) -> None:
    path = plugin.root / "hello.py"
    plugin.editor.open(path, "print('UNSAVED BUFFER')\n")
    model.script(Turn.tool_call("read", {"filePath": str(path)}), Turn.text("It prints."))
    sid = await new_session(plugin)
    parts = [{"type": "text", "text": "what does it print?"}, {"type": "file", "uri": uri(path)}]
    await plugin.call("agent/session/prompt", {"sessionID": sid, "parts": parts})
    assert "UNSAVED BUFFER" in str(model.requests[0].messages)  # the attached file, from the buffer
    assert "UNSAVED BUFFER" in tool_results(model.requests[1].messages)


async def test_edit_is_applied_by_the_editor_and_on_disk(plugin: Connected, model: FakeModelServer) -> None:
    path = plugin.root / "hello.py"
    plugin.editor.open(path, "print('hello')\n")
    edit = {"filePath": str(path), "oldString": "hello", "newString": "bye"}
    model.script(Turn.tool_call("edit", edit), Turn.text("Changed."))
    sid = await new_session(plugin)
    await prompt(plugin, sid, "change")
    assert path.read_text() == "print('bye')\n"
    assert plugin.editor.buffers[uri(path)].text == "print('bye')\n"
    (applied,) = plugin.editor.edits
    assert applied.label and "hello.py" in applied.label
    edited = plugin.events("file.edited")
    assert edited and edited[0]["properties"]["file"].endswith("hello.py")


async def test_abort_through_cancel_request(plugin: Connected, model: FakeModelServer) -> None:
    model.script(Turn.text("a long answer that never ends", chunks=8).stall(after=2))
    sid = await new_session(plugin)
    params = {"sessionID": sid, "parts": [{"type": "text", "text": "go"}]}
    request = asyncio.ensure_future(
        plugin.client.protocol.send_request_async("agent/session/prompt", params, msg_id="prompt-1")
    )
    await plugin.editor.wait_for(lambda: plugin.events("message.part.delta"))
    plugin.client.protocol.notify("$/cancelRequest", lsp.CancelParams(id="prompt-1"))
    with pytest.raises(JsonRpcException) as caught:
        await asyncio.wait_for(request, 30)
    assert caught.value.code == errors.REQUEST_CANCELLED
    await plugin.editor.wait_for(lambda: plugin.events("session.idle"))
    messages = (await plugin.call("agent/session/messages", {"sessionID": sid}))["messages"]
    assert messages[-1]["info"]["error"]["name"] == "aborted"


async def test_abort_through_the_abort_request(plugin: Connected, model: FakeModelServer) -> None:
    model.script(Turn.text("a long answer that never ends", chunks=8).stall(after=2))
    sid = await new_session(plugin)
    params = {"sessionID": sid, "parts": [{"type": "text", "text": "go"}]}
    running = asyncio.ensure_future(plugin.call("agent/session/prompt", params))
    await plugin.editor.wait_for(lambda: plugin.events("message.part.delta"))
    assert await plugin.call("agent/session/abort", {"sessionID": sid}) is None
    try:
        result = await running
    except JsonRpcException as exc:  # the loop may report the abort as an error instead
        assert exc.code == errors.REQUEST_CANCELLED
    else:
        assert result["info"]["error"]["name"] == "aborted"


async def test_edit_output_carries_the_editors_fresh_errors(
    plugin: Connected, model: FakeModelServer
) -> None:
    path = plugin.root / "hello.py"
    plugin.editor.open(path, "print('hello')\n")

    # The editor's own language server re-checks the file after every change it sees.
    original = plugin.editor.apply

    def apply_then_report(params: Any) -> Any:
        result = original(params)
        position = {"line": 0, "character": 6}
        report = [{"range": {"start": position, "end": position}, "message": "undefined name", "severity": 1}]
        plugin.client.protocol.notify("agent/diagnostics", {"uri": uri(path), "diagnostics": report})
        return result

    plugin.editor.apply = apply_then_report  # type: ignore[method-assign]
    edit = {"filePath": str(path), "oldString": "print('hello')", "newString": "prnt('hello')"}
    model.script(Turn.tool_call("edit", edit), Turn.text("Done."))
    sid = await new_session(plugin)
    await prompt(plugin, sid, "x")
    assert "1:7 undefined name" in tool_results(model.requests[1].messages)


QUESTION = {"questions": [{"question": "Which runner?", "header": "Tests", "options": [{"label": "pytest"}]}]}


async def test_question_event_and_reply_request(plugin: Connected, model: FakeModelServer) -> None:
    model.script(Turn.tool_call("question", QUESTION), Turn.text("Using pytest."))
    sid = await new_session(plugin)
    running = asyncio.ensure_future(prompt(plugin, sid, "set up tests"))
    (asked,) = await plugin.editor.wait_for(lambda: plugin.events("question.asked"))
    request_id = asked["properties"]["request"]["id"]
    assert (await plugin.call("agent/question/list", {}))["requests"][0]["id"] == request_id
    assert (
        await plugin.call("agent/question/reply", {"requestID": request_id, "answers": [["pytest"]]}) is None
    )
    await running
    assert "pytest" in tool_results(model.requests[1].messages)
    assert plugin.events("question.replied")


@pytest.mark.parametrize("options", [{"snapshot": True}], ids=["snapshots"], indirect=True)
async def test_revert_goes_back_through_the_editor(plugin: Connected, model: FakeModelServer) -> None:
    path = plugin.root / "hello.py"
    plugin.editor.open(path, "print('hello')\n")
    edit = {"filePath": str(path), "oldString": "hello", "newString": "bye"}
    model.script(Turn.tool_call("edit", edit), Turn.text("Changed."))
    sid = await new_session(plugin)
    await prompt(plugin, sid, "change")
    assert path.read_text() == "print('bye')\n"
    diff = await plugin.call("agent/session/diff", {"sessionID": sid})
    assert [f["file"] for f in diff["files"]] == ["hello.py"] and diff["files"][0]["additions"] == 1
    messages = (await plugin.call("agent/session/messages", {"sessionID": sid}))["messages"]
    await plugin.call("agent/session/revert", {"sessionID": sid, "messageID": messages[0]["info"]["id"]})
    assert path.read_text() == "print('hello')\n"
    assert plugin.editor.buffers[uri(path)].text == "print('hello')\n"
    assert len(plugin.editor.edits) == 2  # the agent's edit, then the revert: both undoable
    await plugin.call("agent/session/unrevert", {"sessionID": sid})
    assert path.read_text() == "print('bye')\n"
