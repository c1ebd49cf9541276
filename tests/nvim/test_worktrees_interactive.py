"""A worktree session in an interactive Neovim (tmux): :AgentlsNew worktree=fix starts it (the
winbar names it), its edit lands in the worktree only, and :AgentlsWorktrees goes through Neovim's
own vim.ui.select (inputlist), typed as numbers: Merge… → Squash brings the change into the
checkout, Discard… → Discard removes the worktree and its branch."""

from __future__ import annotations

from pathlib import Path

from demo.fake_script import Turn
from tests.nvim.harness import Nvim
from tests.nvim.test_worktrees import ORIGINAL, fix, git_project, sh
from tests.nvim.tmux import interactive


def test_a_worktree_session_is_merged_and_discarded_with_neovims_select(nvim: Nvim) -> None:
    git_project(nvim.project)
    nvim.extra_config["permission"] = {**nvim.extra_config["permission"], "edit": "allow"}
    nvim.model.script_for("task fix", fix("return a + b"), Turn.text("Fixed it."))
    with interactive(nvim, height=40) as screen:
        screen.keys(":AgentlsNew worktree=fix", "Enter")
        screen.wait(lambda s: "⎇ fix" in s, "the winbar naming the worktree")
        screen.lua("require'agentls.chat'.send('task fix') or true")
        screen.wait(lambda s: "Fixed it." in s, "the answer")
        folder = Path(
            screen.lua("require'agentls'.state.sessions[require'agentls.chat'.session_id].worktree.path")
        )
        assert (folder / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
        assert (nvim.project / "calc.py").read_text() == ORIGINAL
        screen.keys("Escape", "Escape")
        screen.keys(":AgentlsWorktrees", "Enter")
        shown = screen.wait(
            lambda s: "Type number" in s and "agentls/fix" in s, "Neovim's select of the worktrees"
        )
        assert (
            "Worktrees" in shown
            and "1: fix  agentls/fix — 1 file changed, 1 uncommitted · 1 session" in shown
        )
        screen.keys("1", "Enter")
        shown = screen.wait(lambda s: "Discard…" in s and "Type number" in s, "its actions")
        assert "1: Diff" in shown and "2: Merge…" in shown and "3: Open in a new tab" in shown, shown
        screen.keys("2", "Enter")
        shown = screen.wait(lambda s: "Squash into one commit" in s and "Type number" in s, "how to merge")
        screen.keys("2", "Enter")
        screen.wait_lua(
            "vim.fn.execute('messages'):find('agentls/fix merged into main', 1, true) ~= nil",
            "the merge, said",
        )
        assert (nvim.project / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
        screen.keys(":AgentlsWorktrees", "Enter")
        screen.wait(
            lambda s: "Type number" in s and "nothing left to merge" in s, "the merged worktree listed"
        )
        screen.keys("1", "Enter")
        screen.wait(lambda s: "Discard…" in s and "Type number" in s, "its actions again")
        screen.keys("4", "Enter")
        shown = screen.wait(
            lambda s: "Discard the worktree fix" in s and "Type number" in s, "the confirmation"
        )
        assert "1: Discard" in shown and "2: Cancel" in shown, shown
        screen.keys("1", "Enter")
        screen.wait_lua(
            "vim.fn.execute('messages'):find('discarded the worktree fix', 1, true) ~= nil",
            "the discard, said",
        )
    assert not folder.exists()
    assert sh(nvim.project, "git", "branch", "--format=%(refname:short)").split() == ["main"]
    assert (nvim.project / "notes.txt").read_text() == "the user's own, uncommitted\n"
