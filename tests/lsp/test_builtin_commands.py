"""The built-in commands of issue 26 and the review commands of issue 25, run on the server through
``agent/session/command`` (the real server, the fake model)."""

from __future__ import annotations

from typing import Any

import pytest
from pygls.exceptions import JsonRpcException

from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.lsp.conftest import Connected, agent_config

FILE = "a\nb\nc\nd\ne\n"


@pytest.fixture
def options(model: FakeModelServer, title_model: FakeModelServer) -> Any:
    return {"config": agent_config(model, title_model)}


async def _session(plugin: Connected) -> str:
    return str((await plugin.call("agent/session/create", {}))["id"])


async def _run(plugin: Connected, sid: str, command: str, arguments: str = "") -> Any:
    params = {"sessionID": sid, "command": command, "arguments": arguments}
    return await plugin.call("agent/session/command", params, timeout=60)


async def _refused(plugin: Connected, sid: str, command: str, arguments: str) -> JsonRpcException:
    with pytest.raises(JsonRpcException) as caught:
        await _run(plugin, sid, command, arguments)
    return caught.value


async def _prompt(plugin: Connected, sid: str, text: str) -> None:
    params = {"sessionID": sid, "parts": [{"type": "text", "text": text}]}
    await plugin.call("agent/session/prompt", params, timeout=60)


async def test_the_built_ins_are_listed(plugin: Connected) -> None:
    listed = await plugin.call("agent/commands", {})
    builtins = {c["name"] for c in listed["commands"] if c["kind"] == "builtin"}
    assert builtins >= {
        "new",
        "compact",
        "undo",
        "redo",
        "rewind",
        "model",
        "agent",
        "effort",
        "mode",
        "init",
    }
    assert builtins >= {"export", "review", "changes", "keep"}


async def test_new_makes_a_session(plugin: Connected) -> None:
    sid = await _session(plugin)
    result = await _run(plugin, sid, "new", "Second try")
    assert result["command"] == "new" and result["session"]["title"] == "Second try"
    listed = await plugin.call("agent/session/list", {})
    assert result["session"]["id"] in {s["id"] for s in listed["sessions"]}


async def test_rewind_lists_the_messages_and_goes_back_to_one(
    plugin: Connected, model: FakeModelServer
) -> None:
    path = plugin.root / "hello.py"
    sid = await _session(plugin)
    model.script(Turn.text("One."))
    await _prompt(plugin, sid, "first question")
    edit = {"filePath": str(path), "oldString": "hello", "newString": "bye"}
    model.script(Turn.tool_call("edit", edit), Turn.text("Two."))
    await _prompt(plugin, sid, "second question\nwith a second line")
    listed = await _run(plugin, sid, "rewind")
    assert [i["label"] for i in listed["items"]] == ["second question", "first question"]
    assert "`/rewind ID`" in listed["text"]
    second = listed["items"][0]["id"]
    result = await _run(plugin, sid, "/rewind", second)
    assert result["revert"]["restored"] == ["hello.py"]
    assert path.read_text() == "print('hello')\n"
    after = await _run(plugin, sid, "rewind")
    assert [i["label"] for i in after["items"]] == ["first question"]
    error = await _refused(plugin, sid, "rewind", second)
    assert error.code == -32602 and "not a message of this session" in error.message


async def test_model_and_agent_are_checked_and_listed(plugin: Connected) -> None:
    sid = await _session(plugin)
    models = await _run(plugin, sid, "model")
    assert models["value"] == "fake/m" and [i["id"] for i in models["items"]] == ["fake/m", "titles/t"]
    assert (await _run(plugin, sid, "model", "titles/t"))["value"] == "titles/t"
    assert (await _refused(plugin, sid, "model", "nope")).code == -32602
    agents = await _run(plugin, sid, "agent")
    assert agents["value"] == "build" and {"build", "plan"} <= {i["id"] for i in agents["items"]}
    assert (await _run(plugin, sid, "agent", "plan"))["value"] == "plan"
    error = await _refused(plugin, sid, "agent", "explore")
    assert error.code == -32602 and "subagent" in error.message
    assert (await _refused(plugin, sid, "agent", "nobody")).code == -32010


async def test_mode_and_effort_run_on_the_server(plugin: Connected) -> None:
    sid = await _session(plugin)
    result = await _run(plugin, sid, "mode", "auto")
    assert result["value"] == "auto" and "modes: ask, auto, plan" in result["text"]
    assert (await plugin.call("agent/session/mode", {"sessionID": sid}))["mode"] == "auto"
    assert plugin.events("session.mode")[-1]["properties"]["mode"] == "auto"
    effort = await _run(plugin, sid, "effort")
    assert effort["value"] == "default" and "no thinking control" in effort["text"]
    error = await _refused(plugin, sid, "effort", "high")
    assert error.code == -32602 and "fake/m has no effort levels" in error.message


async def test_export_answers_markdown_or_writes_a_file(plugin: Connected, model: FakeModelServer) -> None:
    sid = await _session(plugin)
    model.script(Turn.text("The answer."))
    await _prompt(plugin, sid, "the question")
    shown = await _run(plugin, sid, "export")
    assert "the question" in shown["text"] and "The answer." in shown["text"]
    written = await _run(plugin, sid, "export", "notes/session.md")
    target = plugin.root / "notes" / "session.md"
    assert written["value"] == str(target) and target.read_text() == shown["text"]


async def test_changes_keep_and_undo_hunks(plugin: Connected, model: FakeModelServer) -> None:
    path = plugin.root / "hello.py"
    path.write_text(FILE)
    sid = await _session(plugin)
    assert (await _run(plugin, sid, "changes"))["text"] == "No agent changes wait for review."
    edits = [
        {"filePath": str(path), "oldString": o, "newString": n} for o, n in (("b\n", "B\n"), ("d\n", "D\n"))
    ]
    model.script(Turn.tool_call("edit", edits[0]).tool_call("edit", edits[1]), Turn.text("Changed."))
    await _prompt(plugin, sid, "go")
    listed = await _run(plugin, sid, "changes")
    first, second = (i["id"] for i in listed["items"])
    assert [i["label"] for i in listed["items"]] == ["hello.py: line 2", "hello.py: line 4"]
    assert f"`{first}` hello.py: line 2 (+1 -1)" in listed["text"]
    kept = await _run(plugin, sid, "keep", first)
    assert [(h["id"], h["state"]) for h in kept["review"]["changed"]] == [(first, "kept")]
    undone = await _run(plugin, sid, "undo", "all")
    assert [(h["id"], h["state"]) for h in undone["review"]["changed"]] == [(second, "undone")]
    assert undone["text"].startswith("Undid 1 change(s).") and undone["revert"] is None
    assert path.read_text() == "a\nB\nc\nd\ne\n"
    assert (await _run(plugin, sid, "changes"))["items"] == []
