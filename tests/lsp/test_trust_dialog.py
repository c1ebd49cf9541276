"""A stock LSP client (no ``initializationOptions.untrusted``) in a project with its own agentls.json
naming an MCP server: the server asks with ``window/showMessageRequest`` before it reads the
project's config; "Trust this project" starts the MCP server and is remembered, "Not now" (or a
dismissed dialog) never starts it and the agent answers with the editor's config only."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types as lsp

from demo.fake_model import FakeModelServer
from tests.lsp.conftest import agent_config, connect
from tests.lsp.editor import Editor
from tests.lsp.test_untrusted import _hostile

STOCK = "visual-studio-code"  # a stock client profile: no experimental.agent, no trust option


def _answer(choice: str) -> Callable[[Editor], None]:
    return lambda editor: editor.dialog_answers.append(choice)


def _trusted(tmp_path: Path) -> list[str]:
    store = tmp_path / "data" / "trust.json"
    return list(json.loads(store.read_text())["trusted"]) if store.exists() else []


@pytest.mark.parametrize(
    "choice", ["Trust this project", "Not now", None], ids=["trust", "not-now", "dismissed"]
)
async def test_a_stock_client_is_asked_before_the_project_s_config_is_read(
    tmp_path: Path, project: Path, model: FakeModelServer, title_model: FakeModelServer, choice: str | None
) -> None:
    marker = _hostile(project)
    started_when_asked: list[bool] = []
    options: dict[str, Any] = {"config": agent_config(model, title_model)}

    def prepare(editor: Editor) -> None:
        answer_dialog = editor.ask

        def ask(params: lsp.ShowMessageRequestParams) -> lsp.MessageActionItem | None:
            started_when_asked.append(marker.exists())  # while the dialog is open: before the answer
            return answer_dialog(params)

        editor.ask = ask  # type: ignore[method-assign]
        editor.dialog_answers += [choice] if choice is not None else []

    async for server in connect(tmp_path, project, STOCK, options, prepare):
        dialog = await server.editor.wait_for(server.editor.dialogs.copy)
        assert "Trust the project" in dialog[0].message and "agentls.json" in dialog[0].message
        assert [a.title for a in dialog[0].actions] == ["Trust this project", "Not now"]
        config = await server.call("agent/config", {})
        assert config["defaultModel"] == "fake/m"  # the editor's own config applies either way
        assert ("fake/from-the-repo" in config["models"]) is (choice == "Trust this project")
        sid = str((await server.call("agent/session/create", {}))["id"])
        await server.call("agent/session/get", {"sessionID": sid})
        if choice != "Trust this project":
            shown = [m.message for m in server.client.messages if m.type == lsp.MessageType.Info]
            assert any(f"agentls trust add {project}" in m for m in shown), shown
    assert started_when_asked == [False], "the project's MCP server ran before the answer"
    assert marker.exists() is (choice == "Trust this project")
    assert _trusted(tmp_path) == ([str(project)] if choice == "Trust this project" else [])


async def test_a_remembered_trust_is_not_asked_again(
    tmp_path: Path, project: Path, model: FakeModelServer, title_model: FakeModelServer
) -> None:
    _hostile(project)
    options: dict[str, Any] = {"config": agent_config(model, title_model)}
    for round_ in range(2):
        async for server in connect(tmp_path, project, STOCK, options, _answer("Trust this project")):
            config = await server.call("agent/config", {})
            assert "fake/from-the-repo" in config["models"]
            assert len(server.editor.dialogs) == (1 if round_ == 0 else 0)


async def test_a_client_that_says_untrusted_is_not_asked(
    tmp_path: Path, project: Path, model: FakeModelServer, title_model: FakeModelServer
) -> None:
    marker = _hostile(project)
    options: dict[str, Any] = {"config": agent_config(model, title_model), "untrusted": True}
    async for server in connect(tmp_path, project, STOCK, options):
        config = await server.call("agent/config", {})
        assert "fake/from-the-repo" not in config["models"] and server.editor.dialogs == []
    assert not marker.exists()


async def test_a_trust_that_cannot_be_remembered_holds_for_now_and_says_why(
    tmp_path: Path, project: Path, model: FakeModelServer, title_model: FakeModelServer
) -> None:
    marker = _hostile(project)
    store = tmp_path / "data" / "trust.json"
    store.parent.mkdir(parents=True)
    store.write_text("{not json")
    options: dict[str, Any] = {"config": agent_config(model, title_model)}
    async for server in connect(tmp_path, project, STOCK, options, _answer("Trust this project")):
        config = await server.call("agent/config", {})
        assert "fake/from-the-repo" in config["models"]
        shown = [m.message for m in server.client.messages if m.type == lsp.MessageType.Warning]
        assert any("could not be remembered" in m and "not valid JSON" in m for m in shown), shown
    assert marker.exists()
    assert store.read_text() == "{not json"  # the user's file is left for them to fix
