"""Plan review in the real Neovim against the real server: the plan buffer, comments, revise, approve."""

from __future__ import annotations

from demo.fake_script import Turn
from tests.nvim.harness import Nvim
from tests.nvim.test_interactive import open_chat
from tests.nvim.tmux import interactive

CALC = "def add(a, b):\n    return a - b\n"
PLAN = ".agentls/plans/fix-add.md"
PLAN_TEXT = "# Fix add\n\n1. In calc.py, make add return a + b.\n2. Run the tests.\n"


def test_plan_buffer_comment_revise_then_approve(nvim: Nvim) -> None:
    calc = nvim.project / "calc.py"
    calc.write_text(CALC)
    nvim.extra_config.update(permission={"edit": "allow"})
    nvim.model.script(
        Turn.tool_call("write", {"filePath": PLAN, "content": PLAN_TEXT}),
        Turn.tool_call("plan_exit", {"path": PLAN}),
        Turn.tool_call("write", {"filePath": PLAN, "content": PLAN_TEXT + "3. Test negative numbers.\n"}),
        Turn.tool_call("plan_exit", {"path": PLAN}),
        Turn.tool_call("edit", {"filePath": str(calc), "oldString": "a - b", "newString": "a + b"}),
        Turn.text("add is fixed."),
    )
    run = nvim.run("plan.lua").check()
    assert nvim.model.pending == 0, run.stderr
    told = str([m for m in nvim.model.requests[2].body["messages"] if m["role"] == "tool"][-1])
    assert "line 3: 1. In calc.py, make add return a + b." in told, told
    assert "which tests?" in told and "Also cover negatives." in told
    build = str(nvim.model.requests[4].body["messages"])
    assert "approved the plan" in build and "Test negative numbers" in build
    assert "a + b" in calc.read_text()


def test_plan_view_select_asks_with_neovims_own_select_in_tmux(nvim: Nvim) -> None:
    calc = nvim.project / "calc.py"
    calc.write_text(CALC)
    nvim.extra_config.update(permission={"edit": "allow"})
    nvim.model.script(
        Turn.tool_call("write", {"filePath": PLAN, "content": PLAN_TEXT}),
        Turn.tool_call("plan_exit", {"path": PLAN}),
        Turn.tool_call("write", {"filePath": PLAN, "content": PLAN_TEXT + "3. Test negative numbers.\n"}),
        Turn.tool_call("plan_exit", {"path": PLAN}),
        Turn.tool_call("edit", {"filePath": str(calc), "oldString": "a - b", "newString": "a + b"}),
        Turn.text("add is fixed."),
    )
    with interactive(nvim, height=50, options={**nvim.options(), "plan_view": "select"}) as screen:
        open_chat(screen)
        screen.lua("(function() require'agentls.chat'.agent = 'plan' return '' end)()")
        screen.keys("plan the fix of add", literal=True)
        screen.keys("C-s")  # sends and leaves insert mode: the select opens once the user pauses
        shown = screen.wait(lambda s: "Revise…" in s and "Type number" in s, "the plan's select")
        assert "make add return a + b" in shown and PLAN in shown
        screen.keys("2", "Enter")  # Revise…
        screen.wait(lambda s: "What to change:" in s, "the revision's input")
        screen.keys("Also cover negatives.", literal=True)
        screen.keys("Enter")
        shown = screen.wait(lambda s: "Test negative numbers" in s and "Type number" in s, "the revised plan")
        screen.keys("1", "Enter")  # Approve
        screen.wait_lua(
            "vim.fn.filereadable('calc.py') == 1 and vim.fn.readfile('calc.py')[2]:find('a %+ b') ~= nil",
            "the edit",
        )
    told = str([m for m in nvim.model.requests[2].body["messages"] if m["role"] == "tool"][-1])
    assert "Also cover negatives." in told, told
    assert "a + b" in calc.read_text()
