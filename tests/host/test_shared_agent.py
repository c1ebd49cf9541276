"""Editors share one agent per project folder in the host whatever their settings' model, however
each sends its settings: VS Code as `initializationOptions.config` (and `agentls.config` in its
settings), the Neovim plugin as settings after `initialized`, a stock client not at all. A turn
started in one is followed live in the others; each front end's turn runs on the model its own
settings set, and its `reconfigure` changes its own model only. A front end whose settings set an
agent-wide key (instructions, MCP servers…) differently gets an agent of its own and is told so
(docs/host.md, "Editors with settings of their own"). Real host, real `agentls serve` processes,
the scripted fake model server seeing the model of each request."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types as lsp

from demo.fake_model import FakeModelServer
from demo.fake_script import Turn

from .conftest import HostProcess, agentls, config, set_config
from .test_reattach import reattached
from .test_serve_attached import Serve, host_status, serves  # noqa: F401  (fixtures)

PARTS = [{"type": "text", "text": "hello"}]


async def projects(data_dir: Path) -> list[str]:
    return [p["handle"] for p in (await host_status(data_dir))["projects"]]


@pytest.fixture
def three_models(
    env: dict[str, str], model: FakeModelServer, title_model: FakeModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`fake/m` (the project's model), `fake/m2` and `fake/m3` on the one fake server (set before
    the host starts: its environment must be the front ends')."""
    data = config(model, title_model)
    limit = data["provider"]["fake"]["models"]["m"]
    data["provider"]["fake"]["models"] = {"m": limit, "m2": limit, "m3": limit}
    set_config(env, data, monkeypatch)


def neovim_settings(serve: Serve, config: dict[str, Any] | None = None) -> None:
    """As the Neovim plugin sends its config: as settings (after `initialized`, and on a change)."""
    settings = {"agentls": {} if config is None else {"config": config}}
    serve.client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(settings=settings))


async def turn(serve: Serve, session: str, server: FakeModelServer, text: str, **params: Any) -> str:
    """Prompt from ``serve`` and answer it with ``text``: the model name the request asked for."""
    server.script(Turn.text(text, chunks=3))
    before = len(server.requests)
    await serve.call("agent/session/prompt", {"sessionID": session, "parts": PARTS, **params})
    return str(server.requests[before].body["model"])


def streamed(serve: Serve, session: str) -> str:
    return "".join(e["properties"]["delta"] for e in serve.events("message.part.delta", session))


async def until_seen(serve: Serve, session: str, text: str) -> None:
    await serve.editor.wait_for(lambda: text in streamed(serve, session), timeout=60)


async def test_editors_with_nothing_set_share_one_agent_and_follow_each_others_turns(
    host: HostProcess,
    data_dir: Path,
    model: FakeModelServer,
    serves: Callable[..., Any],  # noqa: F811
) -> None:
    vscode = await serves({"config": {}})  # as the VS Code extension sends its settings
    neovim = await serves()
    neovim_settings(neovim)
    await neovim.call("agent/commands")  # (answered once the settings applied)
    assert len(await projects(data_dir)) == 1

    model.script(Turn.text("seen in both", chunks=3))
    session = await neovim.call("agent/session/create", {})
    await neovim.call("agent/session/prompt", {"sessionID": session["id"], "parts": PARTS})
    await vscode.editor.wait_for(lambda: vscode.events("session.idle", session["id"]), timeout=60)
    assert streamed(vscode, session["id"]) == "seen in both"


async def test_editors_with_models_of_their_own_share_one_agent_each_turn_on_its_own_model(
    three_models: None,
    host: HostProcess,
    data_dir: Path,
    model: FakeModelServer,
    serves: Callable[..., Any],  # noqa: F811
) -> None:
    vscode = await serves({"config": {"model": "fake/m2"}})  # `agentls.model` set in VS Code
    neovim = await serves()
    neovim_settings(neovim)
    await neovim.call("agent/commands")
    assert len(await projects(data_dir)) == 1
    # Each front end's pickers show its own default model.
    assert (await vscode.call("agent/config", {}))["defaultModel"] == "fake/m2"
    assert (await neovim.call("agent/config", {}))["defaultModel"] == "fake/m"

    session = (await neovim.call("agent/session/create", {}))["id"]
    await vscode.call("agent/session/show", {"sessionIDs": [session]})
    assert await turn(neovim, session, model, "from neovim") == "m"
    await until_seen(vscode, session, "from neovim")
    # The same session, from VS Code: its own model, and Neovim follows it live.
    assert await turn(vscode, session, model, "from vscode") == "m2"
    await until_seen(neovim, session, "from vscode")
    # A model the prompt names beats the editor's.
    assert await turn(vscode, session, model, "picked", model="fake/m3") == "m3"

    # VS Code's settings change (didChangeConfiguration): its next turn, and only its, changes.
    vscode.client.workspace_did_change_configuration(
        lsp.DidChangeConfigurationParams(settings={"agentls": {"config": {"model": "fake/m3"}}})
    )
    await vscode.call("agent/commands")  # (answered once the settings applied)
    assert (await vscode.call("agent/config", {}))["defaultModel"] == "fake/m3"
    assert (await neovim.call("agent/config", {}))["defaultModel"] == "fake/m"
    assert await turn(vscode, session, model, "vscode again") == "m3"
    # Neovim's next turn on a session of its own: the project's model. (On the shared session
    # it goes on with the session's last model, as an editor with no model set does in-process.)
    mine = (await neovim.call("agent/session/create", {}))["id"]
    assert await turn(neovim, mine, model, "neovim again") == "m"
    assert await turn(neovim, session, model, "neovim on the shared one") == "m3"
    assert len(await projects(data_dir)) == 1
    # Each was told of its own config only: VS Code's config.updated names m3, Neovim saw none of it.
    assert [e["properties"]["defaultModel"] for e in vscode.events("config.updated")][-1] == "fake/m3"
    assert "model" in vscode.events("config.updated")[-1]["properties"]["changed"]
    assert all(e["properties"]["defaultModel"] != "fake/m3" for e in neovim.events("config.updated"))


async def test_a_queued_prompt_keeps_the_model_of_the_front_end_that_queued_it(
    three_models: None,
    host: HostProcess,
    model: FakeModelServer,
    serves: Callable[..., Any],  # noqa: F811
) -> None:
    vscode = await serves({"config": {"model": "fake/m2"}})
    neovim = await serves()
    release = asyncio.Event()
    model.script(Turn.text("neovim's long turn", chunks=4).stall(after=2, until=release), Turn.text("queued"))
    session = (await neovim.call("agent/session/create", {}))["id"]
    running = asyncio.ensure_future(
        neovim.call("agent/session/prompt", {"sessionID": session, "parts": PARTS})
    )
    await model.wait_for_requests(1)
    queued = asyncio.ensure_future(
        vscode.call("agent/session/prompt", {"sessionID": session, "parts": PARTS, "mode": "queue"})
    )
    await vscode.editor.wait_for(lambda: vscode.events("queue.added", session), timeout=60)
    release.set()
    await running
    await queued
    assert [r.body["model"] for r in model.requests] == ["m", "m2"]


async def test_an_invalid_model_in_one_editors_settings_is_its_error_only(
    three_models: None,
    host: HostProcess,
    data_dir: Path,
    model: FakeModelServer,
    serves: Callable[..., Any],  # noqa: F811
) -> None:
    vscode = await serves({"config": {"model": "fake/m2"}})
    neovim = await serves()
    neovim_settings(neovim, {"model": 42})  # not a model reference
    await neovim.call("agent/commands")
    await neovim.editor.wait_for(lambda: _shown(neovim, "not applied"), timeout=60)
    assert "model" in _shown(neovim, "not applied")
    assert not _shown(vscode, "not applied")
    # Both go on: Neovim on the project's model, VS Code on its own.
    session = (await neovim.call("agent/session/create", {}))["id"]
    assert await turn(neovim, session, model, "still fine") == "m"
    assert await turn(vscode, session, model, "unaffected") == "m2"
    assert len(await projects(data_dir)) == 1


async def test_an_editor_setting_an_agent_wide_key_gets_an_agent_of_its_own_and_is_told(
    host: HostProcess,
    data_dir: Path,
    model: FakeModelServer,
    serves: Callable[..., Any],  # noqa: F811
) -> None:
    neovim = await serves({"config": {}})
    vscode = await serves({"config": {"instructions": ["STYLE.md"], "model": "fake/m"}})
    assert len(await projects(data_dir)) == 2
    await vscode.editor.wait_for(lambda: _shown(vscode, "agent of its own"), timeout=60)
    said = _shown(vscode, "agent of its own")
    assert "instructions" in said and "model" not in said.split("differ")[0]
    assert not _shown(neovim, "agent of its own")


async def test_a_shared_agent_keeps_its_agent_wide_settings_when_one_editor_changes_them(
    host: HostProcess,
    data_dir: Path,
    model: FakeModelServer,
    serves: Callable[..., Any],  # noqa: F811
) -> None:
    vscode = await serves({"config": {}})
    neovim = await serves()
    neovim_settings(neovim, {"instructions": ["STYLE.md"]})
    await neovim.call("agent/commands")
    await neovim.editor.wait_for(lambda: _shown(neovim, "were not applied"), timeout=60)
    assert "instructions" in _shown(neovim, "were not applied")
    assert not _shown(vscode, "were not applied")
    assert len(await projects(data_dir)) == 1


def _shown(serve: Serve, text: str) -> str:
    """The `window/showMessage` texts the editor got that say ``text``, joined."""
    return "\n".join(m.message for m in serve.client.messages if text in m.message)


async def test_agentls_run_shares_the_editors_agent_and_its_turn_is_followed_live(
    three_models: None,
    host: HostProcess,
    data_dir: Path,
    project: Path,
    env: dict[str, str],
    model: FakeModelServer,
    serves: Callable[..., Any],  # noqa: F811
) -> None:
    vscode = await serves({"config": {"model": "fake/m2"}})
    neovim = await serves()
    session = (await neovim.call("agent/session/create", {}))["id"]
    await vscode.call("agent/session/show", {"sessionIDs": [session]})
    model.script(Turn.text("from the terminal", chunks=3))
    code, out, err = await agentls("run", "--session", session, "hello", cwd=project, env=env)
    assert code == 0, err
    assert "from the terminal" in out
    await until_seen(vscode, session, "from the terminal")
    assert [r.body["model"] for r in model.requests] == ["m"]  # the project's: VS Code's is its own
    assert len(await projects(data_dir)) == 1


async def test_an_editors_changed_model_holds_on_the_host_that_replaces_a_killed_one(
    three_models: None,
    host: HostProcess,
    data_dir: Path,
    project: Path,
    env: dict[str, str],
    model: FakeModelServer,
    serves: Callable[..., Any],  # noqa: F811
) -> None:
    vscode = await serves({"config": {"model": "fake/m2"}})
    vscode.client.workspace_did_change_configuration(
        lsp.DidChangeConfigurationParams(settings={"agentls": {"config": {"model": "fake/m3"}}})
    )
    await vscode.call("agent/commands")
    os.kill(host.pid, signal.SIGKILL)
    assert await reattached(vscode, data_dir, host.pid) != host.pid
    session = (await vscode.call("agent/session/create", {}))["id"]
    assert await turn(vscode, session, model, "on the new host") == "m3"  # its settings now, not at open
    await agentls("host", "stop", cwd=project, env=env)


async def test_an_editor_alone_on_its_agent_changes_its_agent_wide_settings(
    host: HostProcess,
    data_dir: Path,
    project: Path,
    serves: Callable[..., Any],  # noqa: F811
) -> None:
    (project / "STYLE.md").write_text("Answer in haiku.\n")
    vscode = await serves({"config": {}})
    vscode.client.workspace_did_change_configuration(
        lsp.DidChangeConfigurationParams(settings={"agentls": {"config": {"instructions": ["STYLE.md"]}}})
    )
    await vscode.call("agent/commands")
    await vscode.editor.wait_for(lambda: vscode.events("config.updated"), timeout=60)
    assert "instructions" in vscode.events("config.updated")[-1]["properties"]["changed"]
    assert not _shown(vscode, "were not applied")
    # The agent is filed under its new settings: an editor with none gets another, and is told.
    neovim = await serves()
    assert len(await projects(data_dir)) == 2
    await neovim.editor.wait_for(lambda: _shown(neovim, "agent of its own"), timeout=60)
    assert "instructions" in _shown(neovim, "agent of its own")
