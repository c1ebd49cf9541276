"""Stock Neovim 0.11 (no agentls plugin) reviews a plan with the real server: read-only mode, the
plan opens as its file, a note written into it and saved goes back with "Revise", "Approve" hands
the plan to the build agent, which edits."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.stock import harness as h
from tests.tools import tool, tools_env

SCENARIO = Path(__file__).with_name("nvim_plan_scenario.lua")
PLAN = ".agentls/plans/goodbye.md"
PLAN_TEXT = "# Goodbye\n\n1. Make greet return 'bye now'.\n"
NOTE = "NOTE: keep the function's name"


@pytest.fixture
def models() -> Iterator[tuple[FakeModelServer, FakeModelServer]]:
    yield from h.models()


def test_stock_neovim_revises_then_approves_a_plan(
    tmp_path: Path, models: tuple[FakeModelServer, FakeModelServer]
) -> None:
    nvim = tool("nvim")
    main, titles = models
    project = h.make_project(tmp_path)
    main.script(
        Turn.tool_call("write", {"filePath": PLAN, "content": PLAN_TEXT}),
        Turn.tool_call("plan_exit", {"path": PLAN}),
        Turn.tool_call("write", {"filePath": PLAN, "content": PLAN_TEXT + "2. Keep greet's name.\n"}),
        Turn.tool_call("plan_exit", {"path": PLAN}),
        Turn.tool_call("edit", h.edit(project.hello, "'hello'", "'bye now'")),
        Turn.text("Done: it says bye now."),
    )
    result_path = tmp_path / "result.json"
    spec = {
        "cmd": h.server_command(project),
        "env": h.editor_env(project),
        "config": h.agent_config(main, titles),
        "hello": str(project.hello),
        "plan": str(project.root / PLAN),
        "note": NOTE,
        "result": str(result_path),
        "picks": ["Revise", "Approve", "Allow once"],  # then the build agent's edit asks
    }
    spec_path = tmp_path / "scenario.json"
    spec_path.write_text(json.dumps(spec))
    env = h.env_with(tools_env(), {"AGENTLS_SCENARIO": str(spec_path)})
    done = h.run_editor([nvim, "--headless", "--clean", "-c", f"luafile {SCENARIO}"], env, 150, project.root)
    out = h.read_result(result_path, project.log, lambda: done.stdout + done.stderr)

    assert out["mode"]["mode"] == "plan"
    first, second, permission = out["dialogs"]
    assert first["titles"] == ["Approve", "Revise", "Reject"] and PLAN in first["prompt"]
    assert first["plan_open"] and "It is open in the editor" in first["prompt"]
    assert second["picked"] == "Approve" and "Allow once" in permission["titles"]
    revision = [m["content"] for m in main.requests[2].messages if m["role"] == "tool"][-1]
    assert f"+{NOTE}" in str(revision)
    assert out["prompt"]["text"] == "Done: it says bye now."
    assert out["hello"] == h.EDITED
    assert out["mode_after"]["mode"] == "ask"
    build_user = [m for m in main.requests[4].messages if m["role"] == "user"][-1]
    assert "approved the plan" in json.dumps(build_user) and "Keep greet's name" in json.dumps(build_user)
