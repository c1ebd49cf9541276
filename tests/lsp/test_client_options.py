"""Client options of the wrong type (a settings layer that sends a string for a number) are
reported to the user, not silently dropped; the good ones still apply."""

from __future__ import annotations

from typing import Any

import pytest
from lsprotocol import types as lsp

from demo.fake_model import FakeModelServer
from tests.lsp.conftest import Connected, agent_config


def warnings(connected: Connected) -> list[str]:
    return [m.message for m in connected.client.messages if m.type == lsp.MessageType.Warning]


@pytest.fixture
def options(model: FakeModelServer, title_model: FakeModelServer) -> dict[str, Any]:
    return {"config": agent_config(model, title_model), "dialogTimeout": "soon", "toolLog": "off"}


async def test_a_wrongly_typed_initialization_option_is_reported(vscode: Connected) -> None:
    await vscode.call("agent/config", {})
    (warning,) = await vscode.editor.wait_for(lambda: warnings(vscode))
    assert "initializationOptions" in warning and "dialogTimeout" in warning, warning


async def test_a_wrongly_typed_setting_is_reported(vscode: Connected) -> None:
    await vscode.call("agent/config", {})
    settings = {"agentls": {"asyncCommands": "yes please", "toolLog": "message"}}
    vscode.client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(settings=settings))
    await vscode.editor.wait_for(lambda: any("asyncCommands" in w for w in warnings(vscode)))
    assert any("agentls settings" in w and "asyncCommands" in w for w in warnings(vscode))
