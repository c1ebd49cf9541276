"""Mode and effort in the real Neovim against the real server (lane control's requests)."""

from __future__ import annotations

from demo.config import fake_model_config
from demo.fake_script import Turn
from tests.nvim.harness import Nvim

CALC = "def add(a, b):\n    return a - b\n"


def test_mode_and_effort_commands_pickers_and_winbar(nvim: Nvim) -> None:
    calc = nvim.project / "calc.py"
    calc.write_text(CALC)
    provider = fake_model_config(nvim.model, nvim.titles)["provider"]
    provider["fake"]["models"]["m"]["options"] = {"agentls_thinking": "openai"}
    nvim.extra_config.update(provider=provider)
    nvim.model.script(
        Turn.tool_call("edit", {"filePath": str(calc), "oldString": "a - b", "newString": "a + b"}),
        Turn.text("Fixed."),
        Turn.text("Thought hard."),
    )
    run = nvim.run("mode.lua").check()
    assert nvim.model.pending == 0, run.stderr
    bodies = [r.body for r in nvim.model.requests]
    assert "reasoning_effort" not in bodies[0], "no level chosen: nothing sent"
    assert bodies[2]["reasoning_effort"] == "high", run.stderr


def test_the_effort_follows_the_model_picked_for_the_next_prompt(nvim: Nvim) -> None:
    provider = fake_model_config(nvim.model, nvim.titles)["provider"]
    models = provider["fake"]["models"]
    # The session's first model has no effort levels; the one the user picks next has them.
    models["thinking"] = {**models["m"], "options": {"agentls_thinking": "openai"}}
    nvim.extra_config.update(provider=provider)
    nvim.model.script(Turn.text("Hello."), Turn.text("Thought hard."))
    run = nvim.run("effort_model.lua").check()
    assert nvim.model.pending == 0, run.stderr
    bodies = [r.body for r in nvim.model.requests]
    assert [b["model"] for b in bodies] == ["m", "thinking"], bodies
    assert "reasoning_effort" not in bodies[0] and bodies[1]["reasoning_effort"] == "high", run.stderr
