"""``agent.warning``: a failure that does not fail the turn reaches every client — plugin clients as
an ``agent/event``, stock clients as ``window/showMessage`` (Warning). Here: no small model."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from lsprotocol import types as lsp

from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.lsp.conftest import Connected, agent_config


@pytest.fixture
def options(model: FakeModelServer, title_model: FakeModelServer) -> dict[str, Any]:
    # openai/nowhere has no key here (the tests run without OPENAI_API_KEY): no model for titles.
    return {"config": agent_config(model, title_model, small_model="openai/nowhere")}


async def test_a_plugin_client_gets_the_warning_as_an_event(
    plugin: Connected, model: FakeModelServer
) -> None:
    model.script(Turn.text("Hello."))
    session = await plugin.call("agent/session/create", {})
    params = {"sessionID": session["id"], "parts": [{"type": "text", "text": "hi"}]}
    answer = await plugin.call("agent/session/prompt", params)
    assert answer["info"]["role"] == "assistant"

    [warning] = await plugin.editor.wait_for(lambda: plugin.events("agent.warning"))
    assert warning["properties"]["kind"] == "small-model"
    assert warning["properties"]["sessionID"] == session["id"]
    assert "nowhere" in warning["properties"]["message"]
    assert not any(m.type == lsp.MessageType.Warning for m in plugin.client.messages)  # shown once


async def test_a_stock_client_gets_the_warning_as_a_message(
    vscode: Connected, model: FakeModelServer
) -> None:
    model.script(Turn.text("Hello."))
    params = lsp.ExecuteCommandParams(command="agentls.prompt", arguments=["hi"])
    result = await asyncio.wait_for(vscode.client.workspace_execute_command_async(params), 30)
    assert result["text"] == "Hello."

    def warnings() -> list[lsp.ShowMessageParams]:
        return [m for m in vscode.client.messages if m.type == lsp.MessageType.Warning]

    [shown] = await vscode.editor.wait_for(warnings)
    assert shown.message.startswith("agentls: no small model") and "nowhere" in shown.message
    assert vscode.events() == []
