"""The chat's last N messages, older ones on request, and the Markdown export, in the real Neovim."""

from __future__ import annotations

from demo.fake_script import Turn
from tests.nvim.harness import Nvim


def test_the_last_messages_render_and_older_ones_load_on_request_and_export(nvim: Nvim) -> None:
    nvim.model.script(Turn.text("answer one"), Turn.text("answer two"), Turn.text("answer three"))
    run = nvim.run("history.lua").check()
    assert nvim.model.pending == 0, run.stderr
