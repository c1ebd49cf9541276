"""The Neovim plugin in a real headless Neovim against the real server and the scripted fake model."""

from __future__ import annotations

from core.demo.fake_script import Turn
from tests.nvim.harness import Nvim


def test_a_full_turn(nvim: Nvim) -> None:
    hello = str(nvim.project / "hello.py")
    nvim.model.script(
        Turn.reasoning("Let me look at hello.py")
        .text("I will fix ")
        .text("the greeting.", chunks=5)
        .tool_call("edit", {"filePath": hello, "oldString": "hello", "newString": "bye"}),
        Turn.text("Done: it says bye now.", chunks=4),
    )
    run = nvim.run("turn.lua").check()
    assert nvim.model.pending == 0, run.stderr
