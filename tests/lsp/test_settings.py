"""``workspace/didChangeConfiguration`` over the real ``agentls serve``: ``agentls.config`` applies live.

The editor's initialization options send `fake/m` to one fake model server; its settings then make
`other/m2`, on a second server, the default — before or after the agent has loaded.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types as lsp

from core.api import Reconfigured
from core.errors import ConfigError
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from lsp_server.server import AgentServer
from tests.lsp.conftest import Connected, agent_config, connect
from tests.ticks import next_tick


@pytest.fixture
async def other() -> AsyncIterator[FakeModelServer]:
    async with FakeModelServer() as srv:
        yield srv


@pytest.fixture
def options(model: FakeModelServer, title_model: FakeModelServer) -> dict[str, Any]:
    return {"config": agent_config(model, title_model)}


def on_other(other: FakeModelServer, **extra: Any) -> dict[str, Any]:
    options = {"api_base": other.openai_base, "api_key": "offline"}
    provider = {"litellm_provider": "openai", "options": options, "models": {"m2": {}}}
    return {"model": "other/m2", "provider": {"other": provider}, **extra}


def change_settings(connected: Connected, agentls: dict[str, Any]) -> None:
    params = lsp.DidChangeConfigurationParams(settings={"agentls": agentls})
    connected.client.workspace_did_change_configuration(params)


async def prompt(connected: Connected, text: str) -> Any:
    params = lsp.ExecuteCommandParams(command="agentls.prompt", arguments=[{"text": text, "async": False}])
    return await asyncio.wait_for(connected.client.workspace_execute_command_async(params), 30)


def errors(connected: Connected) -> list[str]:
    return [m.message for m in connected.client.messages if m.type == lsp.MessageType.Error]


async def test_settings_after_load_switch_the_model_of_the_next_prompt(
    vscode: Connected, model: FakeModelServer, other: FakeModelServer
) -> None:
    model.script(Turn.text("from the first model"))
    other.script(Turn.text("from the new model"))
    first = await prompt(vscode, "hello")
    assert first["text"] == "from the first model"

    change_settings(vscode, {"config": on_other(other)})
    second = await prompt(vscode, "and now?")

    assert second["text"] == "from the new model"
    assert second["sessionID"] == first["sessionID"]  # the same session follows the new default
    assert len(model.requests) == 1 and [r.body["model"] for r in other.requests] == ["m2"]
    info = await vscode.call("agent/config", {})
    assert info["defaultModel"] == "other/m2" and "other/m2" in info["models"]
    assert errors(vscode) == []
    assert not any("restart" in m.message for m in vscode.client.messages)
    logged = [m.message for m in vscode.client.log_messages]
    assert any("new settings are in effect (model, provider)" in m for m in logged)


async def test_a_plugin_learns_the_new_defaults_from_an_event(
    plugin: Connected, other: FakeModelServer
) -> None:
    assert (await plugin.call("agent/config", {}))["defaultModel"] == "fake/m"  # loaded
    agent = {"description": "Reviews code", "mode": "primary"}
    change_settings(plugin, {"config": on_other(other, agent={"reviewer": agent})})
    (event,) = await plugin.editor.wait_for(lambda: plugin.events("config.updated"))
    properties = event["properties"]
    assert properties["changed"] == ["agent", "model", "provider"]
    assert properties["defaultModel"] == "other/m2"
    assert "reviewer" in [a["name"] for a in properties["agents"]]
    assert properties["modelLimits"]["fake/m"] == {"context": 100_000, "output": 4_000}
    info = await plugin.call("agent/config", {})
    assert {k: info[k] for k in ("agents", "models", "defaultAgent", "defaultModel", "modelLimits")} == {
        k: properties[k] for k in ("agents", "models", "defaultAgent", "defaultModel", "modelLimits")
    }


async def test_invalid_settings_keep_the_config_and_are_reported_once(
    vscode: Connected, model: FakeModelServer
) -> None:
    model.script(Turn.text("one"), Turn.text("still the first model"))
    await prompt(vscode, "hello")
    bad = {"model": "fake/m", "compaction": {"tail_turns": -1}}
    change_settings(vscode, {"config": bad})
    await vscode.call("agent/config", {})  # answered once the settings were dealt with
    (error,) = errors(vscode)
    assert "workspace/configuration" in error and "compaction.tail_turns" in error
    assert "previous configuration stays in effect" in error
    # The same settings again (another option changed): not reported a second time.
    change_settings(vscode, {"config": bad, "toolLog": "off"})
    answer = await prompt(vscode, "still there?")
    assert answer["text"] == "still the first model"
    assert len(errors(vscode)) == 1


async def test_settings_sent_with_initialized_are_the_first_configuration(
    tmp_path: Path, project: Path, options: dict[str, Any], other: FakeModelServer
) -> None:
    other.script(Turn.text("configured from the start"))
    async for connected in connect(tmp_path, project, "visual-studio-code", options):
        change_settings(connected, {"config": on_other(other)})  # before or while the agent loads
        answer = await prompt(connected, "hello")
        assert answer["text"] == "configured from the start"
        assert errors(connected) == []


# --- the server's side, in process: one reconfigure at a time, the latest settings win -----------


class FakeApp:
    """Records the layers each reconfigure got; ``gate`` holds a reconfigure until the test opens it."""

    def __init__(self) -> None:
        self.calls: list[Any] = []
        self.gate = asyncio.Event()
        self.fail_with: Exception | None = None

    async def reconfigure(self, layers: list[Any]) -> Any:
        self.calls.append(layers[-1].data if layers else None)
        await self.gate.wait()
        if self.fail_with is not None:
            raise self.fail_with
        return Reconfigured(changed=["model"], warnings=[])


class RecordingServer(AgentServer):
    def __init__(self) -> None:
        super().__init__()
        self.shown: list[tuple[str, lsp.MessageType]] = []

    def show_message(self, message: str, kind: lsp.MessageType = lsp.MessageType.Info) -> None:
        self.shown.append((message, kind))

    def log_message(self, message: str, kind: lsp.MessageType = lsp.MessageType.Log) -> None:
        pass


def loaded(app: FakeApp) -> RecordingServer:
    server = RecordingServer()
    future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
    future.set_result(app)
    server._app = future
    return server


async def test_settings_that_change_during_a_reconfigure_are_applied_after_it() -> None:
    app = FakeApp()
    server = loaded(app)
    server.apply_settings({"agentls": {"config": {"model": "p/one"}}})
    await next_tick()  # the reconfigure starts, and waits at the gate
    server.apply_settings({"agentls": {"config": {"model": "p/two"}}})
    server.apply_settings({"agentls": {"config": {"model": "p/three"}}})
    waiting = asyncio.ensure_future(server.app())
    for _ in range(5):
        await next_tick()
    assert app.calls == [{"model": "p/one"}] and not waiting.done()  # requests wait for the new config
    app.gate.set()
    assert await asyncio.wait_for(waiting, 5) is app
    assert app.calls == [{"model": "p/one"}, {"model": "p/three"}]  # p/two was never the latest
    server.apply_settings({"agentls": {"config": {"model": "p/three"}, "toolLog": "off"}})
    await server.app()
    assert len(app.calls) == 2 and server.shown == []


async def test_an_unexpected_failure_is_reported_and_later_settings_still_apply() -> None:
    app = FakeApp()
    app.gate.set()
    app.fail_with = RuntimeError("boom")
    server = loaded(app)
    server.apply_settings({"agentls": {"config": {"model": "p/one"}}})
    await server.app()
    ((message, kind),) = server.shown
    assert kind == lsp.MessageType.Error and "RuntimeError: boom" in message
    app.fail_with = None
    server.apply_settings({"agentls": {"config": {"model": "p/two"}}})
    await server.app()
    assert app.calls == [{"model": "p/one"}, {"model": "p/two"}] and len(server.shown) == 1


async def test_settings_for_an_agent_that_failed_to_start_change_only_the_options() -> None:
    server = RecordingServer()
    failed: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
    failed.set_exception(ConfigError("initializationOptions.config: model: bad"))
    server._app = failed
    server.apply_settings({"agentls": {"config": {"model": "p/one"}, "toolLog": "off"}})
    assert server.settings_config == {"model": "p/one"} and server.connection.tool_log == "off"
    assert server._reconfiguring is None and server.shown == []
    with pytest.raises(ConfigError):
        await server.app()  # requests keep failing with the reason it did not start
