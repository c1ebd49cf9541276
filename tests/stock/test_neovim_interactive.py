"""Stock Neovim 0.11 as a user meets it: a real terminal (tmux), the README's setup, Neovim's own dialogs.

The headless scenario (test_neovim.py) replaces ``vim.ui.select`` and cannot see prompts; here the
permission dialogs are Neovim's built-in ``inputlist``, answered by typing once they are on screen,
and every screen is read for hit-enter prompts and W12.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.stock import harness as h
from tests.stock.interactive import HIT_ENTER, INLIST_FOOTER, stock_nvim


@pytest.fixture
def models() -> Iterator[tuple[FakeModelServer, FakeModelServer]]:
    yield from h.models()


def test_an_edit_turn_asks_with_the_change_and_answers_once_without_hit_enter(
    tmp_path: Path, models: tuple[FakeModelServer, FakeModelServer]
) -> None:
    main, titles = models
    project = h.make_project(tmp_path)
    ran = project.root / "ran.txt"
    main.script(
        Turn.tool_call("read", {"filePath": str(project.hello)}),
        Turn.tool_call("edit", h.edit(project.hello, "return 'hello'", "return 'bye now'")),
        Turn.tool_call("bash", {"command": f"echo ran > {ran.name}", "description": "mark"}),
        Turn.text("Edited and checked."),
    )
    config = h.agent_config(main, titles)  # edits and commands ask (set here, whatever the defaults)
    with stock_nvim(tmp_path, project, config, project.hello) as nvim:
        nvim.wait_attached()
        nvim.term.type(":Agent change hello and run it")
        nvim.term.send("Enter")

        # The edit's dialog, Neovim's own inputlist: it names the file and shows the change.
        dialog = nvim.term.wait_text(INLIST_FOOTER)
        assert "edit hello.py (+1 -1)" in dialog, dialog
        assert "-    return 'hello'" in dialog and "+    return 'bye now'" in dialog, dialog
        nvim.term.type("1")
        nvim.term.send("Enter")

        # The command writes a file: that edit's dialog names the command.
        dialog = nvim.term.wait_text(rf"edit: ran\.txt[\s\S]*{INLIST_FOOTER}")
        assert "for the command: echo ran > ran.txt" in dialog, dialog
        nvim.term.type("1")
        nvim.term.send("Enter")
        # The command's own dialog shows the command line.
        dialog = nvim.term.wait_text(rf"run: echo ran[\s\S]*{INLIST_FOOTER}")
        assert "agentls wants to run: echo ran > ran.txt" in dialog, dialog
        nvim.term.type("1")
        nvim.term.send("Enter")

        screen = nvim.term.wait_text("Edited and checked\\.")
        # No hit-enter prompt at any point (one would also block the reads below).
        assert nvim.term.ever(HIT_ENTER) == [], nvim.term.ever(HIT_ENTER)[0]
        nvim.term.wait(lambda _: "bye now" in nvim.buffer(project.hello), 10, "the edit in the buffer")
        screen = nvim.term.screen()

        # The answer once, the tool steps not as messages.
        assert screen.count("Edited and checked.") == 1, screen
        messages = nvim.messages()
        assert messages.count("Edited and checked.") == 1, messages
        assert "▶" not in messages and "✓" not in messages, messages
        # The edit reached the buffer (reloaded by the README's checktime) and the disk; the command ran.
        assert nvim.buffer(project.hello) == h.EDITED
        assert not nvim.modified(project.hello)
        assert project.hello.read_text() == h.EDITED
        assert ran.read_text() == "ran\n"


def test_an_agent_edit_of_a_buffer_with_unsaved_text_gives_no_prompt_and_keeps_both(
    tmp_path: Path, models: tuple[FakeModelServer, FakeModelServer]
) -> None:
    main, titles = models
    project = h.make_project(tmp_path)
    main.script(
        Turn.tool_call("edit", h.edit(project.hello, "return 'hello'", "return 'bye now'")),
        Turn.text("Changed it."),
    )
    mine = "# the user was here, unsaved\n"
    with stock_nvim(tmp_path, project, h.agent_config(main, titles), project.hello) as nvim:
        nvim.wait_attached()
        # The user types a line and does not save it.
        nvim.term.send("G", "o")
        nvim.term.type(mine.rstrip("\n"))
        nvim.term.send("Escape")
        # Back in Normal mode (an Escape read on its own, not as Alt with the next key), modified.
        nvim.term.wait(
            lambda _: nvim.expr("mode()") == "n" and nvim.modified(project.hello), 10, "Normal mode, modified"
        )
        nvim.term.type(":Agent change hello")
        nvim.term.send("Enter")
        nvim.term.wait_text(INLIST_FOOTER)
        nvim.term.type("1")
        nvim.term.send("Enter")
        nvim.term.wait_text("Changed it\\.")
        both = h.EDITED + mine
        nvim.term.wait(lambda _: nvim.buffer(project.hello) == both, 10, "the agent's edit in the buffer")

        # The README's checktime ran at each step; once more by hand: no W12, no prompt of any kind.
        nvim.term.type(":checktime | echo 'checked'")
        nvim.term.send("Enter")
        nvim.term.wait(lambda s: s.rstrip().endswith("checked"), 10, "checktime to run")
        assert nvim.term.ever("W12|W11|Press ENTER|\\[O\\]K") == [], nvim.term.ever("W12|W11|Press ENTER")[0]
        # Both texts in the buffer, still modified; the disk keeps what the user last saved.
        assert nvim.buffer(project.hello) == both
        assert nvim.modified(project.hello)
        assert project.hello.read_text() == h.HELLO
        # The user saves: no "changed since reading it" question; the disk has both.
        nvim.term.type(":w")
        nvim.term.send("Enter")
        nvim.term.wait(lambda _: not nvim.modified(project.hello), 10, "the write")
        assert nvim.term.ever("WARNING|W12|Press ENTER") == [], nvim.term.ever("WARNING|W12|Press ENTER")[0]
        assert project.hello.read_text() == both
