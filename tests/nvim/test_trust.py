"""Project trust in the Neovim plugin (editors/nvim/lua/agentls/server/trust.lua) against the real server.

A cloned project can bring its own agentls.json (MCP servers are programs), command files (a
``!`cmd` `` runs a shell), agents, skills and a ``.venv/bin/agentls``: none of it is used until the
user trusts the project, as in VS Code's Restricted Mode.
"""

from __future__ import annotations

import re
from pathlib import Path

from core.agent.files import agent_dirs
from core.commands.files import command_folders
from core.config.loader import FILE_NAMES, PROJECT_SUBDIR
from core.tools.skill import skill_dirs
from demo.fake_script import Turn
from tests.nvim.harness import AGENTLS, PLUGIN, Nvim
from tests.nvim.tmux import interactive
from tests.tools import tool


def test_a_project_is_asked_about_and_its_own_commands_wait_for_trust(nvim: Nvim) -> None:
    commands = nvim.project / ".agentls" / "commands"
    commands.mkdir(parents=True)
    (commands / "hello.md").write_text("---\ndescription: the project's own\n---\nSay hello.\n")
    nvim.model.script(Turn.text("a slow answer", chunks=4).stall(after=2, until=2.0))
    nvim.run("trust.lua").check()
    # A second Neovim on the same state: "Never" was remembered.
    nvim.run("trust.lua", TRUST_STEP="again").check()


def test_the_projects_own_server_runs_only_once_trusted_and_typed_keys_never_answer(nvim: Nvim) -> None:
    # A cloned project with its own .venv/bin/agentls (here: one that leaves a mark, then is the real
    # server), and no other agentls: Neovim's own vim.ui.select (inputlist) asks; the keys the user
    # typed after :Agentls ("1" and Enter: the first choice, Trust) must not answer it.
    marker = nvim.project / "ran-project-agentls"
    own = nvim.project / ".venv" / "bin" / "agentls"
    own.parent.mkdir(parents=True)
    own.write_text(f'#!/bin/sh\necho "$@" >> {marker}\nexec {AGENTLS} "$@"\n')
    own.chmod(0o755)
    options = {key: value for key, value in nvim.options().items() if key != "cmd"}
    path = f"{Path(tool('nvim')).parent}:/usr/bin:/bin"  # no agentls on it
    with interactive(nvim, width=100, height=30, options=options, env={"PATH": path}) as screen:
        screen.keys(":Agentls", "Enter", "1", "Enter")
        shown = screen.wait(lambda s: "1: Trust this project" in s, "the trust dialog")
        # The dialog's text wraps where the screen ends (at a space or inside a word, by the path's length).
        assert "hasitsown.venv/bin/agentls" in re.sub(r"\s", "", shown), shown
        assert "Press ENTER" not in shown, shown
        assert not marker.exists(), "the project's server ran before the user trusted the project"
        assert screen.lua("require('agentls.server.trust').state(vim.fn.getcwd()) or 'none'") == "none", shown
        screen.keys("1", "Enter")
        screen.wait_lua("require('agentls.chat').prompt_win ~= nil", "the chat, on the project's own server")
        assert marker.read_text().split("\n")[0].startswith("serve"), marker.read_text()
        assert screen.lua("require('agentls.server.trust').state(vim.fn.getcwd())") == "trusted"


def test_a_folder_below_the_work_trees_top_is_asked_about_for_the_tops_config(nvim: Nvim) -> None:
    (nvim.project / ".git").mkdir()
    (nvim.project / "agentls.json").write_text("{}")
    sub = nvim.project / "src"
    sub.mkdir()
    nvim.project = sub
    nvim.run("trust_nested.lua").check()


def lua_items() -> list[str]:
    text = (PLUGIN / "lua" / "agentls" / "server" / "trust.lua").read_text()
    table = re.search(r"M\.ITEMS = \{(.*?)\n\}", text, re.S)
    assert table, "M.ITEMS not found in trust.lua"
    return re.findall(r"'([^']+)'", table.group(1))


def test_the_plugins_list_covers_every_project_path_the_server_reads(tmp_path: Path) -> None:
    # What the server ignores in an untrusted project (core/trust.py's callers), relative to it.
    worktree, user = tmp_path / "p", tmp_path / "user"
    server = [*FILE_NAMES, *(f"{PROJECT_SUBDIR}/{name}" for name in FILE_NAMES)]
    folders = command_folders(worktree, user, tmp_path)
    server += [str(f.path.relative_to(worktree)) for f in folders if f.level == "project"]
    server += [str(d.relative_to(worktree)) for d in agent_dirs(worktree, user) if d.is_relative_to(worktree)]
    server += [str(d.relative_to(worktree)) for d in skill_dirs(worktree, user) if d.is_relative_to(worktree)]
    items = lua_items()
    uncovered = [p for p in server if not any(p == i or p.startswith(i + "/") for i in items)]
    assert not uncovered, f"trust.lua's M.ITEMS misses {uncovered}"
    assert ".venv/bin/agentls" in items


def test_checkhealth_reports_the_config_the_server_uses_for_the_projects_trust(nvim: Nvim) -> None:
    # The project's own agentls.json is broken: while the project is not trusted the server never
    # reads it, so :checkhealth must not call the config invalid; once trusted, it must.
    (nvim.project / "agentls.json").write_text('{"instructions": 5}')
    untrusted = nvim.run("trust_health.lua").check()
    text = untrusted.stdout + untrusted.stderr
    assert "OK config is valid" in text, text
    assert "not trusted yet; its own agentls.json are not used" in text, text
    nvim.trust_project()
    trusted = nvim.run("trust_health.lua").check()
    text = trusted.stdout + trusted.stderr
    assert "ERROR the agentls config is not valid" in text, text
    assert "instructions: must be a list" in text, text
