"""Stock Neovim 0.11 (no agentls plugin) with ``nextEdits`` on: after the user renames the keyword
argument at one call, the real server offers the small model's edit at the other call as the code
action "Apply the agent's pattern here"; Neovim applies it in one undo step."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.stock import harness as h
from tests.tools import tool, tools_env

SCENARIO = Path(__file__).with_name("nvim_next_edits_scenario.lua")
MAIN = "from util import scale\n\nprint(scale(value=2, factor=3))\ntotal = scale(value=4, factor=5)\n"
TITLE = "Apply the agent's pattern here (`value` was renamed to `amount`)"


@pytest.fixture
def models() -> Iterator[tuple[FakeModelServer, FakeModelServer]]:
    with FakeModelServer.threaded() as main, FakeModelServer.threaded() as small:
        small.script(Turn.text("total = scale(amount=4, factor=5)"))
        yield main, small


def test_stock_neovim_applies_the_next_edit_as_a_code_action(
    tmp_path: Path, models: tuple[FakeModelServer, FakeModelServer]
) -> None:
    nvim = tool("nvim")
    main, small = models
    project = h.make_project(tmp_path)
    path = project.root / "main.py"
    path.write_text(MAIN)
    result_path = tmp_path / "result.json"
    spec = {
        "cmd": h.server_command(project),
        "env": h.editor_env(project),
        "config": h.agent_config(main, small),
        "file": str(path),
        "result": str(result_path),
        "picks": [TITLE],
    }
    spec_path = tmp_path / "scenario.json"
    spec_path.write_text(json.dumps(spec))
    env = h.env_with(tools_env(), {"AGENTLS_SCENARIO": str(spec_path)})
    done = h.run_editor([nvim, "--headless", "--clean", "-c", f"luafile {SCENARIO}"], env, 120, project.root)
    out = h.read_result(result_path, project.log, lambda: done.stdout + done.stderr)

    assert out["inline_capability"] is True
    assert out["offered"] == [TITLE] and out["elsewhere"] == []
    (menu,) = out["menus"]
    assert TITLE in menu["titles"] and menu["picked"] == TITLE
    assert out["applied"][2:4] == ["print(scale(amount=2, factor=3))", "total = scale(amount=4, factor=5)"]
    assert out["undone"][2:4] == ["print(scale(amount=2, factor=3))", "total = scale(value=4, factor=5)"]
    (asked,) = small.requests  # one site, one request: the model saw the user's own edit
    content = asked.messages[-1]["content"]
    text = content if isinstance(content, str) else content[0]["text"]
    assert "-print(scale(value=2, factor=3))\n+print(scale(amount=2, factor=3))" in text
    assert main.requests == []
