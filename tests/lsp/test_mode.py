"""agent/session/mode through the real server: ask asks, auto writes at once and leaves hunks to
review, plan refuses edits, a deny rule beats auto, and the project remembers the mode."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from pygls.exceptions import JsonRpcException

from demo.config import fake_model_config
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.lsp.conftest import Connected, connect
from tests.lsp.editor import PLUGIN

PERMISSION = {"edit": {"*": "ask", "secret.txt": "deny"}, "bash": "allow"}


@pytest.fixture
def options(model: FakeModelServer, title_model: FakeModelServer) -> Any:
    return {"config": fake_model_config(model, title_model, permission=PERMISSION)}


def asked(plugin: Connected) -> list[dict[str, Any]]:
    return [e["properties"]["request"] for e in plugin.events("permission.asked")]


async def _session(plugin: Connected) -> str:
    return str((await plugin.call("agent/session/create", {}))["id"])


async def _prompt(plugin: Connected, sid: str) -> Any:
    params = {"sessionID": sid, "parts": [{"type": "text", "text": "go"}]}
    return await plugin.call("agent/session/prompt", params, timeout=60)


def _edit(path: Path, old: str = "hello", new: str = "bye") -> Turn:
    return Turn.tool_call("edit", {"filePath": str(path), "oldString": old, "newString": new})


async def test_auto_writes_without_a_dialog_and_leaves_hunks_to_review(
    plugin: Connected, model: FakeModelServer
) -> None:
    path = plugin.root / "hello.py"
    sid = await _session(plugin)
    state = await plugin.call("agent/session/mode", {"sessionId": sid})
    assert state["mode"] == "ask" and [m["id"] for m in state["modes"]] == ["ask", "auto", "plan"]
    state = await plugin.call("agent/session/mode", {"sessionID": sid, "mode": "auto"})
    assert (state["sessionID"], state["mode"]) == (sid, "auto")
    events = await plugin.editor.wait_for(lambda: plugin.events("session.mode"))
    assert events[-1]["properties"] == {"sessionID": sid, "mode": "auto"}

    model.script(_edit(path), Turn.text("Changed."))
    await _prompt(plugin, sid)
    assert path.read_text() == "print('bye')\n"
    assert asked(plugin) == []
    hunks = (await plugin.call("agent/review/list", {"sessionID": sid}))["hunks"]
    assert [(h["file"], h["state"]) for h in hunks] == [("hello.py", "pending")]


async def test_ask_asks_before_an_edit_as_before(plugin: Connected, model: FakeModelServer) -> None:
    path = plugin.root / "hello.py"
    sid = await _session(plugin)
    model.script(_edit(path), Turn.text("Changed."))
    running = asyncio.ensure_future(_prompt(plugin, sid))
    (request,) = await plugin.editor.wait_for(lambda: asked(plugin))
    assert (request["permission"], request["patterns"]) == ("edit", ["hello.py"])
    assert path.read_text() == "print('hello')\n"
    await plugin.call("agent/permission/reply", {"requestID": request["id"], "reply": "once"})
    await running
    assert path.read_text() == "print('bye')\n"


async def test_switching_to_auto_lets_a_waiting_edit_through(
    plugin: Connected, model: FakeModelServer
) -> None:
    path = plugin.root / "hello.py"
    sid = await _session(plugin)
    model.script(_edit(path), Turn.text("Changed."))
    running = asyncio.ensure_future(_prompt(plugin, sid))
    await plugin.editor.wait_for(lambda: asked(plugin))
    await plugin.call("agent/session/mode", {"sessionID": sid, "mode": "auto"})
    await running
    assert path.read_text() == "print('bye')\n"
    replied = plugin.events("permission.replied")
    assert [e["properties"]["reply"] for e in replied] == ["once"]


async def test_plan_refuses_an_edit_and_tells_the_model(plugin: Connected, model: FakeModelServer) -> None:
    path = plugin.root / "hello.py"
    sid = await _session(plugin)
    await plugin.call("agent/session/mode", {"sessionID": sid, "mode": "plan"})
    model.script(_edit(path), Turn.text("I may not."))
    await _prompt(plugin, sid)
    assert path.read_text() == "print('hello')\n"
    assert asked(plugin) == []
    first, second = model.requests[0], model.requests[1]
    assert "plan" in str(first.messages[-1]).lower()  # the plan reminder
    result = second.messages[-1]
    told = str(result["content"])
    assert result["role"] == "tool" and "read-only mode is on" in told and "/mode ask" in told
    assert "denied by the configuration" not in told


async def test_a_deny_rule_beats_auto(plugin: Connected, model: FakeModelServer) -> None:
    secret = plugin.root / "secret.txt"
    secret.write_text("keep\n")
    sid = await _session(plugin)
    await plugin.call("agent/session/mode", {"sessionID": sid, "mode": "auto"})
    model.script(_edit(secret, "keep", "gone"), Turn.text("Denied."))
    await _prompt(plugin, sid)
    assert secret.read_text() == "keep\n"
    assert asked(plugin) == []
    assert "denied" in str(model.requests[1].messages[-1]["content"])


async def test_an_unknown_mode_names_the_modes(plugin: Connected) -> None:
    sid = await _session(plugin)
    with pytest.raises(JsonRpcException) as caught:
        await plugin.call("agent/session/mode", {"sessionID": sid, "mode": "yolo"})
    assert caught.value.code == -32602
    assert "ask, auto, plan" in caught.value.message
    assert (await plugin.call("agent/session/mode", {"sessionID": sid}))["mode"] == "ask"


async def test_the_project_remembers_the_mode_across_a_restart(
    tmp_path: Path, project: Path, options: Any
) -> None:
    async for first in connect(tmp_path, project, PLUGIN, options):
        sid = await _session(first)
        await first.call("agent/session/mode", {"sessionID": sid, "mode": "auto"})
        other = await _session(first)
        # Auto-accept is chosen per session: the next one starts in Ask.
        assert (await first.call("agent/session/mode", {"sessionID": other}))["mode"] == "ask"
        await first.call("agent/session/mode", {"sessionID": other, "mode": "plan"})
    async for second in connect(tmp_path, project, PLUGIN, options):
        # Each session keeps its own choice; a new one starts in the mode chosen last.
        assert (await second.call("agent/session/mode", {"sessionID": sid}))["mode"] == "auto"
        new = await _session(second)
        assert (await second.call("agent/session/mode", {"sessionID": new}))["mode"] == "plan"


async def test_a_subagent_follows_its_parents_mode(plugin: Connected, model: FakeModelServer) -> None:
    path = plugin.root / "hello.py"
    sid = await _session(plugin)
    await plugin.call("agent/session/mode", {"sessionID": sid, "mode": "auto"})
    other = await _session(plugin)  # the project now remembers "ask": the child must not take that
    await plugin.call("agent/session/mode", {"sessionID": other, "mode": "ask"})
    task = {"description": "edit hello", "prompt": "change hello to bye", "subagent_type": "general"}
    model.script(
        Turn.tool_call("task", task), _edit(path), Turn.text("Child done."), Turn.text("Parent done.")
    )
    await _prompt(plugin, sid)
    assert path.read_text() == "print('bye')\n"
    assert asked(plugin) == []  # the child's edit did not ask either
    children = [e["properties"]["info"] for e in plugin.events("session.created")]
    assert any(info.get("parentID") == sid for info in children)


async def test_a_chat_without_a_session_reads_what_a_new_session_starts_with(
    tmp_path: Path, project: Path, options: Any
) -> None:
    async for server in connect(tmp_path, project, PLUGIN, options):
        listed = (await server.call("agent/session/list", {}))["sessions"]
        draft = await server.call("agent/session/mode", {})
        assert draft["sessionID"] is None and draft["mode"] == "ask"
        assert [m["id"] for m in draft["modes"]] == ["ask", "auto", "plan"]
        effort = await server.call("agent/session/effort", {})
        assert effort["sessionID"] is None and effort["effort"] == "default" and effort["model"]
        # Choosing needs a session: nothing is stored, and no session is made by reading.
        choices = (("agent/session/mode", {"mode": "plan"}), ("agent/session/effort", {"effort": "low"}))
        for method, params in choices:
            with pytest.raises(JsonRpcException) as caught:
                await server.call(method, params)
            assert caught.value.code == -32602 and "create the session first" in caught.value.message
        assert (await server.call("agent/session/list", {}))["sessions"] == listed
        sid = await _session(server)
        await server.call("agent/session/mode", {"sessionID": sid, "mode": "plan"})
        # The next chat without a session shows the mode chosen last.
        assert (await server.call("agent/session/mode", {}))["mode"] == "plan"
