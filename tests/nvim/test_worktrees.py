"""Worktree sessions from Neovim (specs/worktrees.lua), through the real server, real git and the fake
model: two sessions, each in its own worktree, change the same file at once while the checkout
stays untouched; :AgentlsWorktrees diffs, merges (the second's conflict reported), opens and
discards them with vim.ui.select."""

from __future__ import annotations

import subprocess
from pathlib import Path

from demo.fake_script import Turn
from tests.nvim.harness import Nvim

ORIGINAL = "def add(a, b):\n    return a - b\n"


def sh(cwd: Path, *args: str) -> str:
    return subprocess.run(args, cwd=cwd, check=True, capture_output=True, text=True).stdout


def git_project(project: Path) -> None:
    (project / "calc.py").write_text(ORIGINAL)
    sh(project, "git", "init", "-q", "-b", "main")
    sh(project, "git", "config", "user.email", "u@example.com")
    sh(project, "git", "config", "user.name", "U")
    sh(project, "git", "add", "-A")
    sh(project, "git", "commit", "-qm", "start")
    (project / "notes.txt").write_text("the user's own, uncommitted\n")


def fix(new: str) -> Turn:
    return Turn.tool_call("edit", {"filePath": "calc.py", "oldString": "return a - b", "newString": new})


def test_two_worktree_sessions_from_neovim_edit_merge_open_and_discard(nvim: Nvim) -> None:
    git_project(nvim.project)
    nvim.extra_config["permission"] = {**nvim.extra_config["permission"], "edit": "allow"}
    # One's answer comes a second late, so that two's turn runs while one's does.
    nvim.model.script_for("task one", fix("return a + b").slow_first_byte(1.0), Turn.text("Fixed."))
    nvim.model.script_for("task two", fix("return b + a"), Turn.text("Fixed."))
    run = nvim.run("worktrees.lua", timeout=120).check()
    assert nvim.model.pending == 0, run.stderr
    # The checkout: the squash of one, the aborted conflict of two gone, the user's file untouched.
    assert (nvim.project / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    assert (nvim.project / "notes.txt").read_text() == "the user's own, uncommitted\n"
    branches = sh(nvim.project, "git", "branch", "--format=%(refname:short)").split()
    assert sorted(branches) == ["agentls/one", "main"]
