"""Stock Neovim 0.11 (no agentls plugin) gets the agent's code review as ``vim.diagnostic`` entries
from the real server: ``agentls.codeReview`` reviews the uncommitted change, the user's own edit
clears the finding on its line, and Neovim's code action menu dismisses the other."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.stock import harness as h
from tests.tools import tool, tools_env

SCENARIO = Path(__file__).with_name("nvim_code_review_scenario.lua")
CALC = "def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n"
REVIEW = "1. [high] calc.py:2 - add() subtracts.\n2. [low] calc.py:5 - sub() has no docstring.\n"


@pytest.fixture
def models() -> Iterator[tuple[FakeModelServer, FakeModelServer]]:
    yield from h.models()


def git(root: Path, *args: str) -> None:
    env = {"PATH": "/usr/bin:/bin", "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t"}
    env |= {"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    subprocess.run(["git", *args], cwd=root, check=True, env=env, capture_output=True)


def test_stock_neovim_shows_review_findings_as_diagnostics(
    tmp_path: Path, models: tuple[FakeModelServer, FakeModelServer]
) -> None:
    nvim = tool("nvim")
    main, titles = models
    project = h.make_project(tmp_path)
    git(project.root, "init", "-q", "-b", "main")
    git(project.root, "add", "-A")
    git(project.root, "commit", "-q", "-m", "start")
    calc = project.root / "calc.py"
    calc.write_text(CALC)
    git(project.root, "add", "calc.py")
    main.script(Turn.text(REVIEW))
    result_path = tmp_path / "result.json"
    spec = {
        "cmd": h.server_command(project),
        "env": h.editor_env(project),
        "config": h.agent_config(main, titles),
        "file": str(calc),
        "result": str(result_path),
        "picks": ["Dismiss review finding"],
    }
    spec_path = tmp_path / "scenario.json"
    spec_path.write_text(json.dumps(spec))
    env = h.env_with(tools_env(), {"AGENTLS_SCENARIO": str(spec_path)})
    done = h.run_editor([nvim, "--headless", "--clean", "-c", f"luafile {SCENARIO}"], env, 120, project.root)
    out = h.read_result(result_path, project.log, lambda: done.stdout + done.stderr)

    assert [f["line"] for f in out["review"]["findings"]] == [2, 5]
    assert "+    return a - b" in str(main.requests[0].messages)
    # vim.diagnostic: 0-based lines, severity 1 (Error) for high and 3 (Info) for low.
    assert out["published"] == [
        {"lnum": 1, "severity": 1, "message": "add() subtracts."},
        {"lnum": 4, "severity": 3, "message": "sub() has no docstring."},
    ]
    assert out["after_typing"] == [{"lnum": 4, "severity": 3, "message": "sub() has no docstring."}]
    (menu,) = out["menus"]
    assert menu["titles"] == ["Fix with agent: sub() has no docstring.", "Dismiss review finding"]
    assert out["after_dismiss"] == []
