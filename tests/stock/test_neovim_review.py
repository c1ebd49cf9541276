"""Stock Neovim 0.11 (no agentls plugin) reviews the agent's changes with the real server: auto mode
edits without a dialog, ``agentls.review`` opens the hunks as a diff document, and Neovim's own code
action menu undoes one hunk and keeps the other."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.stock import harness as h
from tests.tools import tool, tools_env

SCENARIO = Path(__file__).with_name("nvim_review_scenario.lua")


@pytest.fixture
def models() -> Iterator[tuple[FakeModelServer, FakeModelServer]]:
    yield from h.models()


def test_stock_neovim_reviews_in_auto_mode(
    tmp_path: Path, models: tuple[FakeModelServer, FakeModelServer]
) -> None:
    nvim = tool("nvim")
    main, titles = models
    project = h.make_project(tmp_path)
    main.script(
        Turn.tool_call("edit", h.edit(project.hello, "'hello'", "'bye'")).tool_call(
            "edit", h.edit(project.hello, "print(greet())", "print(greet(), flush=True)")
        ),
        Turn.text("Changed twice."),
    )
    result_path = tmp_path / "result.json"
    spec = {
        "cmd": h.server_command(project),
        "env": h.editor_env(project),
        "config": h.agent_config(main, titles),
        "hello": str(project.hello),
        "result": str(result_path),
        "picks": ["Undo agent change (line 2)", "Keep agent change (line 5)"],
    }
    spec_path = tmp_path / "scenario.json"
    spec_path.write_text(json.dumps(spec))
    env = h.env_with(tools_env(), {"AGENTLS_SCENARIO": str(spec_path)})
    done = h.run_editor([nvim, "--headless", "--clean", "-c", f"luafile {SCENARIO}"], env, 120, project.root)
    out = h.read_result(result_path, project.log, lambda: done.stdout + done.stderr)

    assert out["mode"]["mode"] == "auto"
    assert out["prompt"]["text"] == "Changed twice."
    edited = h.HELLO.replace("'hello'", "'bye'").replace("print(greet())", "print(greet(), flush=True)")
    assert out["after_prompt"]["disk"] == edited
    assert [(hunk["file"], hunk["state"]) for hunk in out["review"]] == [("hello.py", "pending")] * 2
    # The code action menu offered both actions on the hunk's line; the picks undid and kept.
    undo_menu, keep_menu = out["menus"]
    assert undo_menu["titles"] == ["Keep agent change (line 2)", "Undo agent change (line 2)"]
    assert keep_menu["titles"] == ["Keep agent change (line 5)", "Undo agent change (line 5)"]
    kept_only = h.HELLO.replace("print(greet())", "print(greet(), flush=True)")
    assert out["final"]["buffer"] == kept_only and out["final"]["disk"] == kept_only
    assert out["final"]["modified"] is False
    assert out["review_after"] == []
    assert "ask, auto, plan" in out["bad_mode"]
    assert out["review_doc"].startswith(str(project.data / "review")) and out["review_doc"].endswith(".diff")
    assert "agentls: undid 1 agent change(s)" in out["messages"]
    assert "agentls: mode auto (modes: ask, auto, plan)" in out["messages"]
    assert main.requests and len(main.requests) == 2  # one turn: the edits, then the answer
