"""Several chats side by side in the real Neovim: two sessions at once, each with its dialog."""

from __future__ import annotations

from demo.fake_script import Turn
from tests.nvim.harness import Nvim


def test_two_sessions_at_once_each_with_its_dialog_nothing_crosses_over(nvim: Nvim) -> None:
    nvim.extra_config.update(permission={"bash": "ask"})
    alpha = {"command": "echo alpha", "description": "Say alpha"}
    beta = {"command": "echo beta", "description": "Say beta"}
    nvim.model.script(
        Turn.text("Working on the first task", chunks=5).tool_call("bash", alpha),
        Turn.text("Working on the second task", chunks=5).tool_call("bash", beta),
        Turn.text("answer for beta", chunks=3),
        Turn.text("answer for alpha", chunks=3),
    )
    run = nvim.run("side_by_side.lua").check()
    assert nvim.model.pending == 0, run.stderr
    # Each session's follow-up request carries its own command's output only.
    third, fourth = (str(r.messages) for r in nvim.model.requests[2:])
    assert "beta" in third and "alpha" not in third, third
    assert "alpha" in fourth and "beta" not in fourth, fourth
