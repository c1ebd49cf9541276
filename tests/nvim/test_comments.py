"""Review comments (:AgentlsComment) and the editable proposal, real Neovim to real server and model."""

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


def test_the_proposal_edited_in_the_diff_preview_is_what_lands(nvim: Nvim) -> None:
    calc = nvim.project / "calc.py"
    calc.write_text(CALC)
    nvim.model.script(
        Turn.tool_call("edit", {"filePath": str(calc), "oldString": "a - b", "newString": "a + b"}),
        Turn.text("Noted your change."),
    )
    run = nvim.run("edit_proposal.lua").check()
    assert nvim.model.pending == 0, run.stderr
    assert "return a + b  # checked" in calc.read_text()
    told = str(nvim.model.requests[-1].messages)
    assert "# checked" in told, "the model is told the user's version differs"
