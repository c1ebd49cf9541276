"""Stock Neovim (the README's setup, no plugin) in a project whose own agentls.json names an MCP
server: the server asks through Neovim's own inputlist before it reads that file, and starts nothing
of the project's before the answer. "Trust this project" starts the MCP server; "Not now" never does,
and the agent still answers with the user's own config. The MCP server leaves a marker when started."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.stock import harness as h
from tests.stock.interactive import INLIST_FOOTER, stock_nvim


@pytest.fixture
def models() -> Iterator[tuple[FakeModelServer, FakeModelServer]]:
    yield from h.models()


@pytest.mark.parametrize("choice", ["1", "2"], ids=["trust", "not-now"])
def test_stock_neovim_is_asked_before_the_project_s_mcp_server_starts(
    tmp_path: Path, models: tuple[FakeModelServer, FakeModelServer], choice: str
) -> None:
    main, titles = models
    project = h.make_project(tmp_path, trusted=False)
    # In the project: the MCP server runs sandboxed (workspace-write), where only the project is writable.
    marker = project.root / "mcp-started"
    script = f"open({str(marker)!r}, 'w').write('ran')"
    own = {"mcp": {"repo-tool": {"type": "local", "command": [sys.executable, "-c", script]}}}
    # The model comes from the user's own config: it applies whether the project is trusted or not.
    user = tmp_path / "data" / "config"
    user.mkdir(parents=True)
    (user / "agentls.json").write_text(json.dumps(h.agent_config(main, titles)))
    main.script(Turn.text("Answered either way."))
    with stock_nvim(tmp_path, project, own, project.hello) as nvim:
        dialog = nvim.term.wait_text(rf"Trust the project[\s\S]*{INLIST_FOOTER}")
        assert "It has its own agentls.json." in dialog, dialog
        assert "1: Trust this project" in dialog and "2: Not now" in dialog, dialog
        assert not marker.exists(), "the project's MCP server started before the answer"
        nvim.choose(choice)
        nvim.wait_attached()
        nvim.term.type(":Agent hi")
        nvim.term.send("Enter")
        nvim.term.wait_text(r"Answered either way\.")
        if choice == "1":
            nvim.term.wait(lambda _: marker.exists(), 30, "the trusted project's MCP server to start")
        else:
            assert "agentls trust add" in nvim.messages()
    assert marker.exists() is (choice == "1")
    store = tmp_path / "data" / "trust.json"
    trusted = list(json.loads(store.read_text())["trusted"]) if store.exists() else []
    assert trusted == ([str(project.root)] if choice == "1" else [])
