"""Stock Neovim 0.11 (no agentls plugin) reviews the agent's change through code lenses and hint
diagnostics, with the real server: the hunk's line carries "Keep | Undo | Diff" lenses and a hint
(source ``agentls``); "Diff" opens the review document; "Undo" restores the line and keeps the
user's own unsaved edit; the hint and the lenses go."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.stock import harness as h
from tests.tools import tool, tools_env

SCENARIO = Path(__file__).with_name("nvim_lens_scenario.lua")
HINT = 4  # vim.diagnostic.severity.HINT


@pytest.fixture
def models() -> Iterator[tuple[FakeModelServer, FakeModelServer]]:
    yield from h.models()


def test_stock_neovim_reviews_with_code_lenses(
    tmp_path: Path, models: tuple[FakeModelServer, FakeModelServer]
) -> None:
    main, titles = models
    project = h.make_project(tmp_path)
    main.script(Turn.tool_call("edit", h.edit(project.hello, "'hello'", "'bye'")), Turn.text("Changed."))
    result_path = tmp_path / "result.json"
    spec = {
        "cmd": h.server_command(project),
        "env": h.editor_env(project),
        "config": h.agent_config(main, titles),
        "hello": str(project.hello),
        "result": str(result_path),
        "picks": ["Diff", "Undo"],
    }
    spec_path = tmp_path / "scenario.json"
    spec_path.write_text(json.dumps(spec))
    env = h.env_with(tools_env(), {"AGENTLS_SCENARIO": str(spec_path)})
    command = [tool("nvim"), "--headless", "--clean", "-c", f"luafile {SCENARIO}"]
    done = h.run_editor(command, env, 120, project.root)
    out = h.read_result(result_path, project.log, lambda: done.stdout + done.stderr)

    assert out["after_prompt"] == h.HELLO.replace("'hello'", "'bye'")
    # The agent's line is marked: a hint on line 2 (0-based 1), and the three lenses above it.
    assert [(d["lnum"], d["end_lnum"], d["severity"]) for d in out["hints"]] == [(1, 1, HINT)], out["hints"]
    assert "agent change (line 2) waiting for review" in out["hints"][0]["message"]
    assert out["lenses"] == [{"line": 1, "title": t} for t in ("Keep", "Undo", "Diff")], out["lenses"]
    assert [m["line"] for m in out["lens_text"]] == [1], out["lens_text"]
    assert all(word in out["lens_text"][0]["text"] for word in ("Keep", "Undo", "Diff")), out["lens_text"]
    # Diff: the lens menu listed the three; the review opened as a diff of the hunk.
    diff_menu, undo_menu = out["menus"]
    assert diff_menu["titles"] == ["Keep", "Undo", "Diff"] and undo_menu["picked"] == "Undo"
    review = out["review_doc"]
    assert review["name"].startswith(str(project.data / "review")) and review["name"].endswith(".diff")
    assert "--- a/hello.py" in review["text"] and "-    return 'hello'" in review["text"]
    assert "+    return 'bye'" in review["text"], review["text"]
    # Undo: the agent's line is back, the user's own unsaved line stays; the marks are gone.
    mine = h.HELLO.replace("print(greet())", 'print(greet(), "mine")')
    assert out["after_undo"]["buffer"] == mine
    assert out["hints_after"] == [] and out["lenses_after"] == []
    assert out["review_after"] == [] and out["buffer_after_review"] is True
    assert "agentls: no agent changes wait for review" in out["messages"]
