"""The built-in permission defaults through the real server, with no `permission` in any config:
read-only commands run, edits and other commands ask, unknown shell words ask."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from demo.config import fake_model_config
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.lsp.conftest import Connected


@pytest.fixture
def options(model: FakeModelServer, title_model: FakeModelServer) -> Any:
    config = fake_model_config(model, title_model)
    assert "permission" not in config
    return {"config": config}


def asked(plugin: Connected) -> list[dict[str, Any]]:
    return [e["properties"]["request"] for e in plugin.events("permission.asked")]


async def answer_next(plugin: Connected, seen: int, reply: str) -> dict[str, Any]:
    """Wait for dialog number ``seen + 1`` and answer it."""
    requests = await plugin.editor.wait_for(lambda: len(asked(plugin)) > seen and asked(plugin))
    request: dict[str, Any] = requests[seen]
    await plugin.call("agent/permission/reply", {"requestID": request["id"], "reply": reply})
    return request


async def test_read_only_commands_run_and_changes_ask(plugin: Connected, model: FakeModelServer) -> None:
    path = plugin.root / "hello.py"
    model.script(
        Turn.tool_call("bash", {"command": "ls -la && cat hello.py | grep print && git status"}),
        Turn.tool_call("edit", {"filePath": str(path), "oldString": "hello", "newString": "bye"}),
        Turn.tool_call("bash", {"command": "cat $OUT/f"}),  # OUT is unset: reads /f
        Turn.tool_call("bash", {"command": "touch made.txt"}),
        Turn.text("done"),
    )
    session = await plugin.call("agent/session/create", {})
    params = {"sessionID": session["id"], "parts": [{"type": "text", "text": "go"}]}
    running = asyncio.ensure_future(plugin.call("agent/session/prompt", params, timeout=60))

    edit = await answer_next(plugin, 0, "once")  # the first dialog: the edit, not the read-only bash
    assert (edit["permission"], edit["patterns"]) == ("edit", ["hello.py"])
    unknown = await answer_next(plugin, 1, "once")
    assert (unknown["permission"], unknown["patterns"]) == ("unknown_path", ["$OUT/f"])
    assert "variable" in unknown["title"]
    touch = await answer_next(plugin, 2, "reject")
    assert (touch["permission"], touch["patterns"]) == ("edit", ["made.txt"])
    await running

    assert path.read_text() == "print('bye')\n"
    assert not (plugin.root / "made.txt").exists()
    assert len(asked(plugin)) == 3
    listing = model.requests[1].messages[-1]
    assert listing["role"] == "tool" and "hello.py" in listing["content"]
