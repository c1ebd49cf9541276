"""Two editors with nothing set in their agentls settings share one agent in the host, however each
sends that nothing: VS Code an empty `initializationOptions.config`, the Neovim plugin empty
settings, a stock client neither. A turn started in one is then followed live in the other; an
editor that sets something of its own gets an agent of its own (docs/host.md)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp

from demo.fake_model import FakeModelServer
from demo.fake_script import Turn

from .conftest import HostProcess
from .test_serve_attached import host_status, serves  # noqa: F401  (fixtures)


async def projects(data_dir: Path) -> list[str]:
    return [p["handle"] for p in (await host_status(data_dir))["projects"]]


async def test_editors_with_nothing_set_share_one_agent_and_follow_each_others_turns(
    host: HostProcess,
    data_dir: Path,
    model: FakeModelServer,
    serves: Callable[..., Any],  # noqa: F811
) -> None:
    vscode = await serves({"config": {}})  # as the VS Code extension sends its settings
    neovim = await serves()
    # as the Neovim plugin sends its config: as settings, right after `initialized`
    neovim.client.workspace_did_change_configuration(
        lsp.DidChangeConfigurationParams(settings={"agentls": {}})
    )
    await neovim.call("agent/commands")  # (answered once the settings applied)
    assert len(await projects(data_dir)) == 1

    model.script(Turn.text("seen in both", chunks=3))
    session = await neovim.call("agent/session/create", {})
    parts = [{"type": "text", "text": "hello"}]
    await neovim.call("agent/session/prompt", {"sessionID": session["id"], "parts": parts})
    await vscode.editor.wait_for(lambda: vscode.events("session.idle", session["id"]), timeout=60)
    streamed = "".join(e["properties"]["delta"] for e in vscode.events("message.part.delta", session["id"]))
    assert streamed == "seen in both"


async def test_an_editor_with_settings_of_its_own_gets_an_agent_of_its_own(
    host: HostProcess,
    data_dir: Path,
    serves: Callable[..., Any],  # noqa: F811
) -> None:
    await serves({"config": {}})
    await serves({"config": {"default_agent": "plan"}})
    assert len(await projects(data_dir)) == 2
