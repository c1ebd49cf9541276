"""Review comments from the real Neovim (:AgentlsComment) to the real server and the model."""

from __future__ import annotations

from demo.fake_script import Turn
from tests.nvim.harness import Nvim

CALC = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n"


def test_comments_on_a_change_and_a_range_reach_the_model_as_one_prompt(nvim: Nvim) -> None:
    calc = nvim.project / "calc.py"
    calc.write_text(CALC)
    nvim.extra_config.update(permission={"edit": "allow", "read": "allow"})
    nvim.model.script(
        Turn.tool_call("edit", {"filePath": str(calc), "oldString": "a - b", "newString": "a + b"}),
        Turn.text("Fixed."),
        Turn.text("Thanks for the review."),
    )
    run = nvim.run("comments.lua").check()
    assert nvim.model.pending == 0, run.stderr
    review = str(nvim.model.requests[-1].messages)
    assert "Also handle floats." in review and "Rename this" in review, review
    assert "return a + b" in review and "def mul(a, b):" in review, "the lines are quoted"
    assert "not in the project" not in review
