"""Background sub-agents and shells from Neovim (specs/background.lua): the winbar counts them,
:AgentlsAgents lists them through vim.ui.select, a message reaches the sub-agent's next step,
stopping the shell and the sub-agent kills their processes, a notification says so, and the
sub-agent's transcript opens in the chat."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from demo.fake_script import Turn
from tests.nvim.harness import Nvim


def sleeper(marker: str) -> str:
    return f'{sys.executable} -c "import time; time.sleep(300)" {marker}'


def wait_for(path: Path) -> str:
    return (
        f'{sys.executable} -c "import os, time\n'
        "for _ in range(1200):\n"
        f"    if os.path.exists('{path}'): break\n"
        '    time.sleep(0.05)"'
    )


def test_background_work_is_listed_messaged_and_stopped_from_neovim(nvim: Nvim, tmp_path: Path) -> None:
    nvim.extra_config.update(permission={"bash": "allow", "task": "allow"})
    gate = tmp_path / "gate"
    agent_marker, shell_marker = f"nvagent{id(tmp_path) % 10**6}", f"nvshell{id(tmp_path) % 10**6}"
    job = {
        "description": "the long job",
        "prompt": "JOB-N: run it",
        "subagent_type": "general",
        "background": True,
    }
    serve = {"command": sleeper(shell_marker), "background": True, "description": "serve"}
    nvim.model.script(
        Turn.tool_call("bash", serve).tool_call("task", job),
        Turn.text("The job runs in the background."),
        Turn.text("Noted: it was stopped."),
    )
    nvim.model.script_for(
        "JOB-N",
        Turn.tool_call("bash", {"command": "echo first", "description": "look"}),
        Turn.tool_call("bash", {"command": wait_for(gate), "description": "wait"}),
        Turn.tool_call("bash", {"command": sleeper(agent_marker), "description": "block"}),
    )
    run = nvim.run(
        "background.lua", GATE=str(gate), AGENT_MARKER=agent_marker, SHELL_MARKER=shell_marker
    ).check()
    asked = [r for r in nvim.model.requests if "JOB-N" in r.first_user_text]
    assert "MSG-NV: look at the docs too" in json.dumps(asked[-1].messages), run.stderr
    assert nvim.model.pending == 0, run.stderr
