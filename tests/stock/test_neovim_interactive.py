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
from tests.stock.interactive import HIT_ENTER, INLIST_FOOTER, Nvim, stock_nvim


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
        nvim.choose("1")

        # The command writes a file: that edit's dialog names the command.
        dialog = nvim.term.wait_text(rf"edit: ran\.txt[\s\S]*{INLIST_FOOTER}")
        assert "for the command: echo ran > ran.txt" in dialog, dialog
        nvim.choose("1")
        # The command's own dialog shows the command line.
        dialog = nvim.term.wait_text(rf"run: echo ran[\s\S]*{INLIST_FOOTER}")
        assert "agentls wants to run: echo ran > ran.txt" in dialog, dialog
        nvim.choose("1")

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
        nvim.choose("1")
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


RUN = "python3 -c \"open('ran.txt', 'w').close()\""  # one dialog: the command (it names no file)
WAITS = "a dialog waits until you pause typing"
REJECTED = "the agent finished without an answer"


AGAIN = "keys typed ahead answered nothing; asking again"


def answered(nvim: Nvim, project: h.Project) -> bool:
    """Whether the command's dialog got an answer: it ran, or the turn ended (a rejection ends it;
    inputlist takes a lone Enter, or "q", as a dismissal, which rejects)."""
    return (project.root / "ran.txt").exists() or REJECTED in nvim.messages()


def test_lines_typed_while_a_permission_arrives_answer_nothing(
    tmp_path: Path, models: tuple[FakeModelServer, FakeModelServer]
) -> None:
    # Typing "n = 1" and Enter in insert mode: Neovim's inputlist ignores the letters, so a dialog
    # that popped up would read "1", Enter as "1. Allow once". The server waits for a pause.
    main, titles = models
    project = h.make_project(tmp_path)
    main.script(Turn.tool_call("bash", {"command": RUN, "description": "Make a file"}))
    with stock_nvim(tmp_path, project, h.agent_config(main, titles), project.hello) as nvim:
        nvim.wait_attached()
        nvim.term.send("G", "o")
        nvim.term.type("n = 1")
        nvim.term.send("Enter")
        # From insert mode (CTRL-O runs one command), and on typing.
        nvim.term.send("C-o")
        nvim.term.type(":Agent run it")
        nvim.term.send("Enter")
        typed = 1
        # (Insert mode redraws "-- INSERT --" over the notice; :messages keeps it.)
        while WAITS not in nvim.messages():
            assert not answered(nvim, project), "typed-ahead keys answered the dialog"
            assert typed < 300, nvim.term.screen()
            nvim.term.type("n = 1")
            nvim.term.send("Enter")
            typed += 1
        for _ in range(5):  # and on, after it was announced
            nvim.term.type("n = 1")
            nvim.term.send("Enter")
            typed += 1
        nvim.term.wait(lambda _: nvim.buffer(project.hello).count("n = 1\n") == typed, 10, "every line")
        assert not (project.root / "ran.txt").exists(), "a typed-ahead key allowed the command"
        assert INLIST_FOOTER not in nvim.term.screen(), "no dialog while the user types"
        # The user stops typing: the dialog opens and waits for a deliberate choice.
        nvim.term.send("Escape")
        dialog = nvim.term.wait_text(rf"wants to run: python3[\s\S]*{INLIST_FOOTER}")
        assert "3: Reject" in dialog, dialog
        nvim.choose("3")
        nvim.term.wait_text(REJECTED)  # a rejection ends the turn
        assert not (project.root / "ran.txt").exists()
        assert nvim.buffer(project.hello) == h.HELLO + "n = 1\n" * typed + "\n", "the lines are intact"


def test_keys_typed_ahead_into_the_dialog_are_not_an_answer(
    tmp_path: Path, models: tuple[FakeModelServer, FakeModelServer]
) -> None:
    # Typing where the server cannot see it (a buffer it is not attached to): the dialog pops up
    # between two keys and inputlist reads the next "1", Enter at once. Sooner than anyone reads a
    # dialog: not an answer; it is asked again once the user pauses.
    main, titles = models
    project = h.make_project(tmp_path)
    main.script(Turn.tool_call("bash", {"command": RUN, "description": "Make a file"}))
    with stock_nvim(tmp_path, project, h.agent_config(main, titles), project.hello) as nvim:
        nvim.wait_attached()
        nvim.term.type(":enew")
        nvim.term.send("Enter")
        nvim.term.type(":Agent run it")
        nvim.term.send("Enter")
        nvim.term.send("i")
        asked = "agentls wants to run"
        typed = 0
        # Until the dialog pops up: seen on the screen, or already typed into (inputlist can read the
        # next keys before a screen capture shows it; the server then says it asks again).
        while asked not in nvim.term.screen() and AGAIN not in nvim.messages():
            assert not answered(nvim, project), "typed-ahead keys answered the dialog"
            assert typed < 300, nvim.term.screen()
            nvim.term.type("n = 1")
            nvim.term.send("Enter")
            typed += 1
        for _ in range(5):  # into the dialog, without reading it
            nvim.term.type("n = 1")
            nvim.term.send("Enter")
        assert not (project.root / "ran.txt").exists(), "a typed-ahead key allowed the command"

        # The user stops: the dialog is on screen and waits for a deliberate choice.
        # (The screen can still show one that read the keys: inputlist's own state is "c".)
        def asking(_: str) -> bool:
            return nvim.expr("mode(1)") == "c" or answered(nvim, project)

        nvim.term.wait(asking, 10, "the dialog to ask again")
        assert not answered(nvim, project), "typed-ahead keys answered the dialog"
        dialog = nvim.term.wait_text(rf"wants to run: python3[\s\S]*{INLIST_FOOTER}")
        assert "1: Allow once" in dialog, dialog
        assert AGAIN in nvim.messages()
        assert not (project.root / "ran.txt").exists(), dialog
        nvim.choose("3")
        # A rejection ends the turn (insert mode's "-- INSERT --" covers the message; :messages has it).
        nvim.term.wait(lambda _: REJECTED in nvim.messages(), 30, "the end of the turn")
        assert not (project.root / "ran.txt").exists()
        assert nvim.term.ever(HIT_ENTER) == [], nvim.term.ever(HIT_ENTER)[0]
