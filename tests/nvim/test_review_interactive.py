"""Review and mode in an interactive Neovim (tmux): the signs on screen, Neovim's own vim.ui.select
(inputlist) for :AgentlsReview and :AgentlsMode, nothing replaced."""

from __future__ import annotations

import re

from demo.fake_script import Turn
from tests.nvim.harness import Nvim
from tests.nvim.tmux import interactive

CALC = "def add(a, b):\n    return a - b\n"


def test_signs_on_screen_and_the_review_menu_and_mode_picker_in_neovims_own_select(nvim: Nvim) -> None:
    calc = nvim.project / "calc.py"
    calc.write_text(CALC)
    nvim.extra_config.update(permission={"edit": "allow", "read": "allow"})
    nvim.model.script(
        Turn.tool_call("edit", {"filePath": str(calc), "oldString": "a - b", "newString": "a + b"}),
        Turn.text("Fixed."),
    )
    with interactive(nvim, width=160, height=40, files=("calc.py",)) as screen:
        screen.keys(":Agentls", "Enter")
        screen.wait_lua("require'agentls.chat'.session_id ~= nil", "the chat's session")
        screen.keys("fix add", literal=True)
        screen.keys("C-s")
        # The sign, in the sign column of calc.py's window, next to the agent's line.
        screen.wait(lambda s: re.search(r"~ +return a \+ b", s) is not None, "the sign of the change")
        screen.wait(lambda s: "mode ask" in s, "the mode in the winbar")
        # :AgentlsReview in Neovim's own select: undo all.
        screen.keys(":AgentlsReview", "Enter")
        menu = screen.wait(lambda s: "Type number" in s, "the review menu")
        assert "agentls review: 1 change in 1 file" in menu and "3: Undo all 1 change" in menu, menu
        screen.keys("3", "Enter")
        screen.wait(lambda s: "return a - b" in s and "return a + b" not in s, "the undo on screen")
        # The text comes back with the edit; the sign goes when the server says the hunk is undone.
        screen.wait(lambda s: re.search(r"~ +return a - b", s) is None, "the sign gone with the change")
        assert calc.read_text() == CALC
        # :AgentlsMode in Neovim's own select: auto, shown in the winbar.
        screen.keys(":AgentlsMode", "Enter")
        picker = screen.wait(lambda s: "Type number" in s, "the mode picker")
        assert "agentls mode" in picker and "2:   Auto" in picker, picker
        screen.keys("2", "Enter")
        screen.wait(lambda s: "mode auto" in s, "auto in the winbar")


def test_a_pending_change_shows_the_lines_it_replaced_and_the_toggle_hides_them(nvim: Nvim) -> None:
    calc = nvim.project / "calc.py"
    calc.write_text("# calc\n" + CALC)
    nvim.model.script(
        Turn.tool_call("edit", {"filePath": str(calc), "oldString": "a - b", "newString": "a + b"}),
        Turn.text("Fixed."),
    )
    # (calc.py's window is on the left: its lines start the screen's lines)
    old_above_new = re.compile(r"^ *- +return a - b .*\n *~ +return a \+ b", re.M)
    old_line = re.compile(r"^ *- +return a - b", re.M)
    with interactive(nvim, width=160, height=40, files=("calc.py",)) as screen:
        screen.keys(":Agentls", "Enter")
        screen.wait_lua("require'agentls.chat'.session_id ~= nil", "the chat's session")
        screen.keys("Escape")
        screen.keys(":AgentlsMode auto", "Enter")  # edits land at once and wait for review
        screen.wait(lambda s: "mode auto" in s, "auto in the winbar")
        screen.keys("i")
        screen.keys("fix add", literal=True)
        screen.keys("C-s")
        # In calc.py's window: the line the agent replaced, above its own (which carries the sign).
        screen.wait(lambda s: old_above_new.search(s) is not None, "the old line above the new one")
        assert "return a + b" in calc.read_text()
        screen.keys(":AgentlsInlineDiff", "Enter")
        screen.wait(lambda s: "inline diff of pending changes is off" in s, "the toggle said")
        screen.wait(lambda s: old_line.search(s) is None and "return a + b" in s, "the old line gone")
        screen.keys(":AgentlsInlineDiff on", "Enter")
        screen.wait(lambda s: old_above_new.search(s) is not None, "the old line back")
        assert not screen.terminal.ever(r"Press ENTER"), "no hit-enter prompt"


def test_agentls_edit_changes_the_selection_in_place_for_review_without_the_chat(nvim: Nvim) -> None:
    calc = nvim.project / "calc.py"
    calc.write_text("def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n")
    nvim.model.script(
        Turn.tool_call("edit", {"filePath": str(calc), "oldString": "a - b\n\n", "newString": "a + b\n\n"}),
        Turn.text("Now it adds."),
    )
    with interactive(nvim, width=120, height=30, files=("calc.py",)) as screen:
        screen.keys("1GVj")  # the first function, selected
        screen.keys(":AgentlsEdit make it add", "Enter")  # (':<,'> comes with the selection)
        shown = screen.wait(lambda s: "calc.py:1-2 changed: review it" in s, "the edit, ready")
        assert re.search(r"^ *- +return a - b.*\n *~ +return a \+ b", shown, re.M), shown
        assert screen.lua("#vim.api.nvim_list_wins()") == "1", "no chat opened"
        assert calc.read_text().startswith("def add(a, b):\n    return a + b\n")
        # The model got the lines and the words; the session is in auto mode, so nothing asked.
        body = str(nvim.model.requests[0].messages)
        assert "Change only the lines @calc.py#L1-2, in place, as follows: make it add" in body, body
        screen.keys("2G")
        screen.keys("\\", "u")  # <localleader>u (the default localleader is the backslash)
        screen.wait(lambda s: re.search(r"^ *- +return a - b", s, re.M) is None, "the change undone")
        line = "vim.api.nvim_buf_get_lines(0, 1, 2, false)[1]"
        screen.wait_lua(f"{line} == '    return a - b'", "the old line back")
        assert not screen.terminal.ever(r"Press ENTER"), "no hit-enter prompt"


def test_agentls_edit_says_why_nothing_changed(nvim: Nvim) -> None:
    calc = nvim.project / "calc.py"
    calc.write_text(CALC)
    nvim.model.script(Turn.text("It already adds.\nNothing to do."))
    with interactive(nvim, width=120, height=30, files=("calc.py",)) as screen:
        screen.keys(":AgentlsEdit", "Enter")  # no words: nothing is asked of the agent
        screen.wait(lambda s: "agentls: say what to change" in s, "the hint")
        screen.keys(":2AgentlsEdit make it add", "Enter")
        shown = screen.wait(lambda s: "calc.py:2-2 unchanged: It already adds." in s, "what the agent said")
        assert "Nothing to do" not in shown, "one line"
        assert len(nvim.model.requests) == 1
        assert calc.read_text() == CALC
        screen.keys(":enew", "Enter")  # a buffer that is no file of the project
        screen.keys(":AgentlsEdit make it add", "Enter")
        screen.wait(lambda s: "works on a file of the project" in s, "the refusal")
        assert len(nvim.model.requests) == 1
        assert not screen.terminal.ever(r"Press ENTER"), "no hit-enter prompt"
