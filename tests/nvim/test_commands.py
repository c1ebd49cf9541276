"""Slash commands in the chat prompt of an interactive Neovim (tmux): the `/` menu with the
server's built-in and user commands, a user command run with its arguments, /undo."""

from __future__ import annotations

from demo.fake_script import Turn
from tests.nvim.harness import Nvim
from tests.nvim.tmux import Screen, interactive

PROMPT = "table.concat(vim.api.nvim_buf_get_lines(require'agentls.chat'.prompt_buf, 0, -1, false), '|')"


def open_chat(screen: Screen) -> None:
    """:Agentls, until its session shows (the prompt in insert mode)."""
    screen.keys(":Agentls", "Enter")
    screen.wait_lua("require'agentls.chat'.session_id ~= nil", "the chat's session")


def test_the_slash_menu_lists_commands_and_a_user_command_runs_with_its_arguments(nvim: Nvim) -> None:
    folder = nvim.project / ".agentls" / "command"
    folder.mkdir(parents=True)
    (folder / "greet.md").write_text("---\ndescription: Greet someone\n---\nSay hello to $ARGUMENTS\n")
    nvim.trust_project()
    nvim.model.script(Turn.text("Hello, Ada!"), Turn.text("Second answer."))
    with interactive(nvim) as screen:
        open_chat(screen)
        screen.keys("/", literal=True)
        shown = screen.wait(lambda s: "/greet" in s and "/undo" in s, "the command menu")
        assert "Greet someone" in shown and "/compact" in shown, shown
        screen.keys("gr", literal=True)  # narrows the menu to /greet
        screen.wait(lambda s: "/undo" not in s and "/greet" in s, "the menu narrowed")
        screen.keys("C-n", "C-y")  # pick it
        screen.wait_lua(f"{PROMPT} == '/greet '", "the picked command in the prompt")
        screen.keys("Ada", literal=True)
        screen.keys("C-s")
        screen.wait(lambda s: "Hello, Ada!" in s, "the command's answer")
        assert "Say hello to Ada" in str(nvim.model.requests[0].messages)

        # A `/word` that is no command goes as an ordinary prompt.
        screen.keys("i")
        screen.keys("/tmp is full", literal=True)
        screen.keys("Escape")  # closes the menu, if any
        screen.keys("i", "C-s")
        screen.wait(lambda s: "Second answer." in s, "the ordinary prompt's answer")
        assert "/tmp is full" in str(nvim.model.requests[1].messages)

        # /undo reverts the last turn on the server and says so.
        screen.keys("i")
        screen.keys("/undo", literal=True)
        screen.keys("Escape")
        screen.keys("i", "C-s")
        screen.wait(lambda s: "undid the last turn" in s, "the /undo notice")
        screen.wait(lambda s: "reverted from here" in s, "the transcript's revert marker")
        assert screen.lua(f"{PROMPT}") == "", "the prompt was sent"
