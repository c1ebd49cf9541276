"""Background sub-agents and shells in a real VS Code (code-server + Chromium) with the extension,
the real ``agentls serve`` and the scripted fake model: the pill and its rows follow a sub-agent's
live steps; a message sent from the row reaches its next step; stopping the shell and the sub-agent
from their rows kills their processes (by /proc, as the orphan tests check), a notification says
so and the parent's turn answers the news; "Open" shows the sub-agent's transcript. Screenshots go to
``tests/vscode/screenshots/background``.
"""

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
from tests.vscode.scenario import Driven, drive


def sleeper(marker: str) -> str:
    return f'{sys.executable} -c "import time; time.sleep(300)" {marker}'


def wait_for(path: Path) -> str:
    return (
        f'{sys.executable} -c "import os, time\n'
        "for _ in range(1200):\n"
        f"    if os.path.exists('{path}'): break\n"
        '    time.sleep(0.05)"'
    )


@dataclass
class Run(Driven):
    model: FakeModelServer


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    tmp = tmp_path_factory.mktemp("vscode-background")
    folder = tmp / "project"
    folder.mkdir()
    (folder / "README.md").write_text("# A project\n")
    gate = tmp / "gate"
    shell_marker, agent_marker = f"vsshell{id(tmp) % 10**6}", f"vsagent{id(tmp) % 10**6}"
    job = {
        "description": "the long job",
        "prompt": "JOB-V: run it",
        "subagent_type": "general",
        "background": True,
    }
    with FakeModelServer.threaded() as model, FakeModelServer.threaded() as titles:
        model.script(
            Turn.tool_call(
                "bash", {"command": sleeper(shell_marker), "background": True, "description": "serve"}
            ).tool_call("task", job),
            Turn.text("The job runs in the background."),
            Turn.text("Noted: the job was stopped."),
        )
        model.script_for(
            "JOB-V",
            Turn.tool_call("bash", {"command": "echo first", "description": "look"}),
            Turn.tool_call("bash", {"command": wait_for(gate), "description": "wait"}),
            Turn.tool_call("bash", {"command": sleeper(agent_marker), "description": "block"}),
        )
        titles.script(*[Turn.text("Background") for _ in range(4)])
        config = fake_model_config(model, titles, permission="allow")
        args = {"gate": str(gate), "agentMarker": agent_marker, "shellMarker": shell_marker}
        driven = drive("e2e_background.mjs", "background", tmp, folder, config, args=args)
        yield Run(driven.result, driven.output, model)


def test_the_pill_says_what_runs_and_the_rows_follow_the_sub_agents_steps(run: Run) -> None:
    r = run.phase("roster")
    assert r["pill"]["pill"] == "1 background agent · 1 shell running", r
    agent, shell = r["rows"]
    assert (agent["name"], agent["title"]) == ("@general", "the long job"), r
    assert agent["buttons"] == ["Open", "Message", "Stop"] and shell["buttons"] == ["Stop"], r
    assert shell["name"] == "shell_1" and "time.sleep(300)" in shell["title"], r


def test_a_message_from_the_row_reaches_the_sub_agents_next_step(run: Run) -> None:
    r = run.phase("message")
    assert "the long job" in r["title"], r
    asked = [req for req in run.model.requests if "JOB-V" in req.first_user_text]
    assert "MSG-VS: check the docs too" in json.dumps(asked[-1].messages), [len(asked)]


def test_stopping_the_shell_from_its_row_kills_it(run: Run) -> None:
    r = run.phase("shell")
    assert r["before"] >= 1 and r["after"] == [], r
    assert r["pill"] == "1 background agent running", r


def test_stopping_the_sub_agent_kills_its_command_and_says_so(run: Run) -> None:
    r = run.phase("stop")
    assert r["before"] >= 1 and r["after"] == [], r
    assert "was stopped" in r["notification"], r
    assert r["row"]["buttons"] == ["Open"] and r["row"]["state"].startswith("stopped · 2 steps"), r
    # Its news in the parent's transcript: the sub-agent's, not an empty "You".
    assert r["report"]["summary"] == "Report of the background sub-agent @general: the long job", r
    assert r["report"]["who"] == "Sub-agent" and "was stopped by the user" in r["report"]["text"], r


def test_open_shows_the_sub_agents_transcript(run: Run) -> None:
    r = run.phase("open")
    assert r["tools"].count("bash") >= 3, r
