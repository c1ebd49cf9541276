"""What the editor clients build on beyond the first protocol: rename, model limits, the proposed text."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from pygls.exceptions import JsonRpcException

from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.lsp.conftest import Connected, agent_config


@pytest.fixture
def options(model: FakeModelServer, title_model: FakeModelServer) -> Any:
    return {"config": agent_config(model, title_model, permission={"edit": "ask"})}


async def test_rename_sets_the_title_and_announces_it(plugin: Connected) -> None:
    session = await plugin.call("agent/session/create", {})
    params = {"sessionID": session["id"], "title": "  Fix add()  "}
    renamed = await plugin.call("agent/session/update", params)
    assert renamed["title"] == "Fix add()"
    assert (await plugin.call("agent/session/get", {"sessionID": session["id"]}))["title"] == "Fix add()"
    titles = lambda: [e["properties"]["info"]["title"] for e in plugin.events("session.updated")]  # noqa: E731
    assert "Fix add()" in await plugin.editor.wait_for(lambda: "Fix add()" in titles() and titles())


async def test_rename_refuses_an_empty_title_and_an_unknown_session(plugin: Connected) -> None:
    session = await plugin.call("agent/session/create", {})
    with pytest.raises(JsonRpcException) as empty:
        await plugin.call("agent/session/update", {"sessionID": session["id"], "title": "   "})
    assert empty.value.code == -32602
    with pytest.raises(JsonRpcException) as missing:
        await plugin.call("agent/session/update", {"sessionID": "ses_nope", "title": "x"})
    assert missing.value.code == -32010


async def test_config_gives_each_models_limits(plugin: Connected) -> None:
    info = await plugin.call("agent/config", {})
    assert info["modelLimits"]["fake/m"] == {"context": 100_000, "output": 4_000}
    assert set(info["modelLimits"]) == set(info["models"])


async def test_edit_permission_carries_the_full_proposed_text(
    plugin: Connected, model: FakeModelServer
) -> None:
    path = plugin.root / "hello.py"
    plugin.editor.open(path, "print('hello')\nprint('UNSAVED')\n")
    edit = {"filePath": str(path), "oldString": "hello", "newString": "bye"}
    model.script(Turn.tool_call("edit", edit), Turn.text("Changed."))
    session = await plugin.call("agent/session/create", {})
    params = {"sessionID": session["id"], "parts": [{"type": "text", "text": "change it"}]}
    running = asyncio.ensure_future(plugin.call("agent/session/prompt", params))
    (asked,) = await plugin.editor.wait_for(lambda: plugin.events("permission.asked"))
    request = asked["properties"]["request"]
    assert request["permission"] == "edit"
    assert request["metadata"]["filepath"] == str(path)
    # The proposed text is built on the unsaved buffer, so a client can diff the buffer against it.
    assert request["metadata"]["after"] == "print('bye')\nprint('UNSAVED')\n"
    await plugin.call("agent/permission/reply", {"requestID": request["id"], "reply": "once"})
    await running
