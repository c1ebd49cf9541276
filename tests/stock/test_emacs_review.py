"""Stock Emacs 28 + eglot 1.9 (no agentls plugin) reviews the agent's change with the real server.
eglot 1.9 has neither code lenses nor ``window/showDocument``: the agent's lines are a Flymake note
(the server's hint diagnostic), ``agentls.review`` is a message naming the diff file, and Undo is
eglot's code action menu — it restores the line, keeps the user's unsaved edit, and the note goes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.stock import harness as h
from tests.stock.test_emacs import emacs
from tests.tools import tools_env

SCENARIO = Path(__file__).with_name("eglot_review_scenario.el")


@pytest.fixture
def models() -> Iterator[tuple[FakeModelServer, FakeModelServer]]:
    yield from h.models()


def test_stock_emacs_reviews_with_notes_and_code_actions(
    tmp_path: Path, models: tuple[FakeModelServer, FakeModelServer]
) -> None:
    main, titles = models
    project = h.make_project(tmp_path)
    (project.root / "agentls.json").write_text(json.dumps(h.agent_config(main, titles)))
    main.script(Turn.tool_call("edit", h.edit(project.hello, "'hello'", "'bye'")), Turn.text("Changed."))
    result_path = tmp_path / "result.json"
    spec = {
        "cmd": h.server_command(project),
        "env": [f"{k}={v}" for k, v in h.editor_env(project).items()],
        "root": str(project.root) + "/",
        "hello": str(project.hello),
        "result": str(result_path),
        "answers": ["Undo agent change (line 2)"],
    }
    spec_path = tmp_path / "scenario.json"
    spec_path.write_text(json.dumps(spec))
    env = h.env_with(tools_env(), {"AGENTLS_SCENARIO": str(spec_path), "HOME": str(tmp_path)})
    done = h.run_editor([emacs(), "--batch", "-q", "-l", str(SCENARIO)], env, 120, project.root)
    out = h.read_result(result_path, project.log, lambda: done.stdout + done.stderr)

    # The agent's line 2 is a Flymake note (a Hint diagnostic is eglot's note).
    assert [(line, kind) for line, kind, _ in out["hints"]] == [(2, "eglot-note")], out["hints"]
    assert "agent change (line 2) waiting for review" in out["hints"][0][2]
    review = next(m for m in out["messages"] if "The diff: " in m)
    assert "1 agent change(s) to review" in review and "- hello.py: line 2 (+1 -1)" in review
    diff = Path(review.split("The diff: ")[1].strip())
    assert diff.parent == project.data / "review" and "+    return 'bye'" in diff.read_text()
    # Undo from eglot's menu (Keep and Undo offered, no "Ask agent to fix" for the note).
    (menu,) = out["menus"]
    assert menu["choices"] == ["Keep agent change (line 2)", "Undo agent change (line 2)"], menu
    assert out["after-undo"] == h.HELLO.replace("print(greet())", 'print(greet(), "mine")')
    assert out["hints-after"] == []
