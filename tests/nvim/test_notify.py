"""Notifications in the real Neovim: the User autocmds and vim.notify while the chat is hidden."""

from __future__ import annotations

from demo.fake_script import Turn
from tests.nvim.harness import Nvim


def test_turn_done_and_dialog_autocmds_and_a_notice_while_the_chat_is_hidden(nvim: Nvim) -> None:
    nvim.extra_config.update(permission={"bash": "ask"})
    echo = {"command": "echo notified", "description": "Say it"}
    nvim.model.script(Turn.text("hello back"), Turn.tool_call("bash", echo), Turn.text("Done."))
    run = nvim.run("notify.lua").check()
    assert nvim.model.pending == 0, run.stderr
    assert "notified" in str(nvim.model.requests[-1].messages), "the command ran once allowed"
