"""``agent/commands`` and ``agent/session/command`` through the real server and the fake model."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
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


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


async def new_session(connected: Connected) -> str:
    return str((await connected.call("agent/session/create", {}))["id"])


async def test_commands_lists_built_ins_user_commands_and_broken_files(plugin: Connected) -> None:
    write(plugin.root / ".opencode" / "command" / "test.md", "---\ndescription: Run the tests\n---\nRun $1\n")
    broken = plugin.root / ".agentls" / "command" / "broken.md"
    write(broken, "---\nmodel: nope\n---\nbody\n")
    listed = await plugin.call("agent/commands", {})
    by_name = {c["name"]: c for c in listed["commands"]}
    assert by_name["compact"]["kind"] == "builtin" and by_name["init"]["source"] == "built-in"
    assert by_name["test"] == {
        "name": "test",
        "description": "Run the tests",
        "kind": "user",
        "source": str(plugin.root / ".opencode" / "command" / "test.md"),
        "hint": "",
        "agent": None,
        "model": None,
        "subtask": False,
    }
    assert "broken" not in by_name
    assert listed["errors"] == [f"{broken}:2: 'model' must be provider/model, not 'nope'"]


async def test_a_user_command_runs_with_arguments_files_and_the_unsaved_buffer(
    plugin: Connected, model: FakeModelServer
) -> None:
    write(plugin.root / ".agentls" / "command" / "explain.md", "Explain @$1 to $2")
    path = plugin.root / "hello.py"
    plugin.editor.open(path, "print('UNSAVED BUFFER')\n")
    extra = plugin.root / "notes.txt"
    extra.write_text("ATTACHED NOTES\n")
    model.script(Turn.text("It prints."))
    sid = await new_session(plugin)
    params = {
        "sessionID": sid,
        "command": "explain",
        "arguments": "hello.py a beginner",
        "parts": [{"type": "file", "uri": uri(extra)}],
    }
    result = await plugin.call("agent/session/command", params)
    assert result["command"] == "explain" and result["message"]["info"]["role"] == "assistant"
    sent = str(model.requests[0].messages)
    assert "Explain @hello.py to a beginner" in sent
    assert "UNSAVED BUFFER" in sent  # the @file is read through the editor
    assert "ATTACHED NOTES" in sent


@pytest.mark.parametrize("options", [{"permission": {"bash": "ask"}}], indirect=True)
async def test_a_template_shell_command_asks_like_bash_and_a_rejection_sends_nothing(
    plugin: Connected, model: FakeModelServer
) -> None:
    write(plugin.root / ".agentls" / "command" / "count.md", "Lines: !`python3 -c 'print(6*7)'`")
    sid = await new_session(plugin)
    params = {"sessionID": sid, "command": "/count"}
    running = asyncio.ensure_future(plugin.call("agent/session/command", params))
    (asked,) = await plugin.editor.wait_for(lambda: plugin.events("permission.asked"))
    request = asked["properties"]["request"]
    assert request["permission"] == "bash" and request["sessionID"] == sid
    await plugin.call("agent/permission/reply", {"requestID": request["id"], "reply": "reject"})
    with pytest.raises(JsonRpcException) as failed:
        await running
    assert failed.value.code == errors.TOOL_ERROR and "reject" in str(failed.value).lower()
    assert model.requests == []

    model.script(Turn.text("One line."))
    running = asyncio.ensure_future(plugin.call("agent/session/command", params))
    await plugin.editor.wait_for(lambda: len(plugin.events("permission.asked")) == 2)
    second = plugin.events("permission.asked")[1]["properties"]["request"]
    await plugin.call("agent/permission/reply", {"requestID": second["id"], "reply": "once"})
    await running
    assert "Lines: 42" in str(model.requests[0].messages)


async def test_template_files_outside_the_project_or_secret_ask_like_read(
    plugin: Connected, model: FakeModelServer
) -> None:
    outside = plugin.root.parent / "outside.txt"
    outside.write_text("OUTSIDE SECRET\n")
    write(plugin.root / ".env", "TOKEN=ENV SECRET\n")
    write(plugin.root / ".agentls" / "command" / "peek.md", "Compare @../outside.txt with @.env")
    sid = await new_session(plugin)
    params = {"sessionID": sid, "command": "/peek"}

    running = asyncio.ensure_future(plugin.call("agent/session/command", params))
    (asked,) = await plugin.editor.wait_for(lambda: plugin.events("permission.asked"))
    request = asked["properties"]["request"]
    folder = outside.parent.resolve().as_posix()
    assert (request["permission"], request["patterns"]) == ("external_directory", [f"{folder}/*"])
    await plugin.call("agent/permission/reply", {"requestID": request["id"], "reply": "reject"})
    with pytest.raises(JsonRpcException) as failed:
        await running
    assert failed.value.code == errors.TOOL_ERROR
    assert model.requests == []

    model.script(Turn.text("Compared."))
    running = asyncio.ensure_future(plugin.call("agent/session/command", params))
    for n, (permission, pattern) in enumerate([("external_directory", f"{folder}/*"), ("read", ".env")], 2):
        await plugin.editor.wait_for(lambda n=n: len(plugin.events("permission.asked")) == n)
        request = plugin.events("permission.asked")[-1]["properties"]["request"]
        assert (request["permission"], request["patterns"]) == (permission, [pattern])
        await plugin.call("agent/permission/reply", {"requestID": request["id"], "reply": "once"})
    await running
    sent = str(model.requests[0].messages)
    assert "OUTSIDE SECRET" in sent and "ENV SECRET" in sent


async def test_undo_redo_and_errors(plugin: Connected, model: FakeModelServer) -> None:
    model.script(Turn.text("Answer."))
    sid = await new_session(plugin)
    with pytest.raises(JsonRpcException) as nothing:
        await plugin.call("agent/session/command", {"sessionID": sid, "command": "undo"})
    assert nothing.value.code == errors.INVALID_PARAMS and "nothing to undo" in str(nothing.value)
    await plugin.call("agent/session/prompt", {"sessionID": sid, "parts": [{"type": "text", "text": "hi"}]})
    undone = await plugin.call("agent/session/command", {"sessionID": sid, "command": "undo"})
    assert undone["command"] == "undo" and "restored" in undone["revert"]
    assert (await plugin.call("agent/session/get", {"sessionID": sid}))["revert"]
    await plugin.call("agent/session/command", {"sessionID": sid, "command": "redo"})
    assert "revert" not in (await plugin.call("agent/session/get", {"sessionID": sid}))
    with pytest.raises(JsonRpcException) as unknown:
        await plugin.call("agent/session/command", {"sessionID": sid, "command": "nope"})
    assert unknown.value.code == errors.NOT_FOUND and "/compact" in str(unknown.value)
