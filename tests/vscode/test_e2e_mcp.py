"""An MCP server (the official SDK, stdio) in a real VS Code (code-server + Chromium) with the
extension, the real ``agentls serve`` and the scripted fake model: its resources in the ``@`` pick
as ``@server:uri`` (a template asks for its variable), attached with their token count, a binary one
refused with the reason; its prompt in the ``/`` menu, run with arguments. Screenshots go to
``tests/vscode/screenshots/mcp``."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from demo.config import fake_model_config
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.e2e.mcp_oauth_helpers import protected_server
from tests.vscode.scenario import Driven, drive

SERVER = Path(__file__).parents[1] / "fixtures" / "mcp" / "docs_server.py"


@dataclass
class Run(Driven):
    model: FakeModelServer
    tmp: Path
    folder: Path

    def user_text(self, request: int) -> str:
        users = [m for m in self.model.requests[request].messages if m.get("role") == "user"]
        return json.dumps(users[-1].get("content")) if users else ""


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    tmp = tmp_path_factory.mktemp("vscode-mcp")
    folder = tmp / "project"
    folder.mkdir()
    (folder / "README.md").write_text("# A project\n")
    with (
        FakeModelServer.threaded() as model,
        FakeModelServer.threaded() as titles,
        protected_server() as vault,
    ):
        model.script(
            Turn.text("Read."),
            Turn.text("Explained."),
            Turn.tool_call("docs_deploy", {}),
            Turn.text("Deployed."),
        )
        titles.script(*[Turn.text("MCP") for _ in range(3)])
        config = fake_model_config(model, titles)
        elicited = {"DOCS_ELICITED": str(folder / "elicited.json")}  # the server's sandbox may write there
        config["permission"] = {"docs_*": "allow"}
        config["mcp"] = {
            "docs": {"type": "local", "command": [sys.executable, str(SERVER)], "environment": elicited},
            "broken": {"type": "local", "command": [str(tmp / "no-such-server")]},
            "vault": {"type": "remote", "url": vault},
        }
        driven = drive("e2e_mcp.mjs", "mcp", tmp, folder, config)
        yield Run(driven.result, driven.output, model, tmp, folder)


def test_resources_attach_from_the_at_pick_and_reach_the_model(run: Run) -> None:
    r = run.phase("resources")
    assert any(c.startswith("@docs:docs://readme") and c.endswith(" tok") for c in r["readme"]), r
    assert [c for c in r["chipsAfter"] if c.startswith("@docs:")] == [
        c for c in r["chips"] if c.startswith("@docs:")
    ], r  # the binary resource made no chip
    assert "docs:docs://logo is binary (image/png): only text resources" in r["warning"], r
    sent = run.user_text(0)
    assert "use explain for symbols" in sent and "The note called plan." in sent, sent


def test_the_servers_prompt_is_in_the_slash_menu_and_runs(run: Run) -> None:
    r = run.phase("prompt")
    assert "/mcp__docs__explain" in r["row"] and "<symbol> [style]" in r["row"] and "MCP docs" in r["row"], r
    assert "Explain the symbol add in a long answer." in run.user_text(1), run.user_text(1)


def test_the_servers_pick_shows_each_state_and_disables_a_server(run: Run) -> None:
    r = run.phase("servers-list")
    docs = next(row for row in r["rows"] if "docs" in row)
    assert "running · 2 tools, 4 resources, 3 prompts" in docs, r["rows"]
    broken = next(row for row in r["rows"] if "broken" in row)
    assert "failed: MCP server 'broken' skipped" in broken, r["rows"]
    vault = next(row for row in r["rows"] if "vault" in row)
    assert "needs login: choose Log In (or run agentls mcp login vault)" in vault, r["rows"]
    assert "MCP server docs disabled" in run.phase("servers")["notice"]
    user = json.loads((run.tmp / "agentls-config" / "agentls.json").read_text())
    assert user == {"mcp": {"docs": {"enabled": False}}}


def test_the_servers_form_is_the_chats_question_dialog_and_its_answers_reach_it(run: Run) -> None:
    r = run.phase("form")
    assert any("Where to deploy" in legend for legend in r["legends"]), r
    assert "The MCP server docs asks: Deploy settings" in r["legends"][-1], r
    assert r["typed"] == [False, True, False, True, False], r
    assert json.loads((run.folder / "elicited.json").read_text()) == {
        "action": "accept",
        "data": {"environment": "production", "replicas": 3, "confirm": True, "note": ""},
    }


def test_a_remote_server_is_logged_in_to_through_the_browser(run: Run) -> None:
    r = run.phase("login")
    assert "asked" not in r or "external website" in r["asked"].lower(), r
    assert "You are logged in" in r["page"], r
    vault = next(row for row in r["after"] if "vault" in row)
    assert "running · 1 tools, 0 resources, 0 prompts · logged in" in vault, r["after"]
    tokens = json.loads((run.tmp / "agentls-data" / "mcp-oauth.json").read_text())
    assert [entry["tokens"]["refresh_token"] != "" for entry in tokens.values()] == [True]
