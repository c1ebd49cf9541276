"""Review in the real Neovim against the real server: signs, keymaps, quickfix, :AgentlsReview."""

from __future__ import annotations

from demo.fake_script import Turn
from tests.nvim.harness import Nvim

CALC = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n"


def test_undo_under_the_cursor_keeps_what_the_user_typed_between_edits(nvim: Nvim) -> None:
    calc = nvim.project / "calc.py"
    calc.write_text(CALC)
    nvim.extra_config.update(permission={"edit": "allow", "read": "allow"})
    nvim.model.script(
        Turn.tool_call("edit", {"filePath": str(calc), "oldString": "a - b", "newString": "a + b"}),
        Turn.text("Fixed add."),
        Turn.tool_call("edit", {"filePath": str(calc), "oldString": "a * b", "newString": "a ** b"}),
        Turn.text("Fixed mul."),
    )
    run = nvim.run("review_signs.lua").check()
    assert nvim.model.pending == 0, run.stderr


def test_an_undo_over_the_users_own_changes_shows_both_sides_and_overwrites_nothing(nvim: Nvim) -> None:
    calc = nvim.project / "calc.py"
    calc.write_text(CALC)
    nvim.extra_config.update(permission={"edit": "allow", "read": "allow"})
    nvim.model.script(
        Turn.tool_call("edit", {"filePath": str(calc), "oldString": "a - b", "newString": "a + b"}).tool_call(
            "edit", {"filePath": str(calc), "oldString": "a * b", "newString": "a ** b"}
        ),
        Turn.text("Fixed both."),
    )
    run = nvim.run("review_conflict.lua").check()
    assert nvim.model.pending == 0, run.stderr
    # Nothing reached the disk but what the agent wrote: the user's typing was never saved over.
    assert "# mine" not in calc.read_text()


def test_an_undo_with_keys_typed_right_behind_it_succeeds(nvim: Nvim) -> None:
    # Typed before the server's edit arrived, away from the hunk: not a conflict (nothing to merge).
    calc = nvim.project / "calc.py"
    calc.write_text(CALC)
    nvim.extra_config.update(permission={"edit": "allow", "read": "allow"})
    nvim.model.script(
        Turn.tool_call("edit", {"filePath": str(calc), "oldString": "a - b", "newString": "a + b"}),
        Turn.text("Fixed add."),
    )
    run = nvim.run("review_typing.lua").check()
    assert nvim.model.pending == 0, run.stderr


def test_a_background_sub_agents_change_is_labelled_and_undone_from_the_parent(nvim: Nvim) -> None:
    calc = nvim.project / "calc.py"
    calc.write_text(CALC)
    nvim.extra_config.update(permission={"edit": "allow", "read": "allow", "task": "allow"})
    job = {"description": "fix the sign", "prompt": "JOB-SIGN: fix add", "subagent_type": "general"}
    nvim.model.script(
        Turn.tool_call("task", {**job, "background": True}),
        Turn.text("It runs in the background."),
        Turn.text("Noted."),
    )
    nvim.model.script_for(
        "JOB-SIGN",
        Turn.tool_call("edit", {"filePath": str(calc), "oldString": "a - b", "newString": "a + b"}),
        Turn.text("Fixed add."),
    )
    run = nvim.run("review_subagent.lua").check()
    assert nvim.model.pending == 0, run.stderr
    assert calc.read_text() == CALC
