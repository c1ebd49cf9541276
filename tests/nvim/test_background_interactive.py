"""Background sub-agents in an interactive Neovim (tmux): the winbar counts one as it runs,
:AgentlsAgents lists it in Neovim's own vim.ui.select (inputlist), and Stop, typed as a number,
stops it: its command is gone, the winbar no longer counts it, and vim.notify says so on screen."""

from __future__ import annotations

import sys
from pathlib import Path

from demo.fake_script import Turn
from tests.e2e.test_background_shells import running
from tests.nvim.harness import Nvim
from tests.nvim.test_interactive import open_chat
from tests.nvim.tmux import interactive
from tests.ticks import until_sync


def test_a_background_sub_agent_is_counted_listed_and_stopped_with_neovims_select(
    nvim: Nvim, tmp_path: Path
) -> None:
    nvim.extra_config.update(permission={"bash": "allow", "task": "allow"})
    marker = f"tmuxagent{id(tmp_path) % 10**6}"
    job = {"description": "long job", "prompt": "JOB-T: run", "subagent_type": "general", "background": True}
    block = {"command": f'{sys.executable} -c "import time; time.sleep(300)" {marker}', "description": "wait"}
    nvim.model.script(Turn.tool_call("task", job), Turn.text("It runs."), Turn.text("Noted."))
    nvim.model.script_for("JOB-T", Turn.tool_call("bash", block))
    with interactive(nvim, height=40) as screen:
        open_chat(screen)
        screen.keys("start it", literal=True)
        screen.keys("C-s")
        screen.wait(lambda s: "⧗ 1 agent" in s and "It runs." in s, "the winbar counting the sub-agent")
        agents = "require'agentls.sessions.background'.agents"
        screen.wait_lua(f"vim.tbl_values({agents})[1].tool == 'bash'", "its command")
        screen.keys(":AgentlsAgents", "Enter")
        shown = screen.wait(lambda s: "Type number" in s and "@general" in s, "Neovim's select of it")
        assert (
            "Background agents and shells" in shown
            and "1: @general  long job — step 1, running bash" in shown
        )
        screen.keys("1", "Enter")
        shown = screen.wait(lambda s: "Stop" in s and "Type number" in s, "its actions")
        assert "1: Open transcript" in shown and "2: Message" in shown and "3: Stop" in shown, shown
        # The tool's part shows before its process starts.
        until_sync(lambda: running(marker), "its command to start", 15)
        screen.keys("3", "Enter")
        screen.wait(lambda s: "⧗" not in s, "the winbar without it")
        screen.wait_lua(
            "vim.fn.execute('messages'):find('background sub%-agent @general') ~= nil", "the stop, said"
        )
        messages = screen.lua("vim.fn.execute('messages')")
        assert "Aborted" not in messages, messages  # the stop is said once, not again as an error
        assert running(marker) == []
        screen.wait(lambda s: "Noted." in s, "the parent's answer to the news")
