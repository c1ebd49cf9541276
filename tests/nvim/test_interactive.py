"""The plugin in an interactive Neovim (tmux), where keys typed ahead and what is on screen are real:
Neovim's own vim.ui.select (inputlist) and vim.notify, nothing replaced."""

from __future__ import annotations

import json
from pathlib import Path

from demo.fake_script import Turn
from tests.nvim.harness import Nvim
from tests.nvim.tmux import Screen, interactive
from tests.tools import tool

ASK = {"permission": {"edit": "ask", "bash": "ask"}}
PROMPT_LINES = "vim.api.nvim_buf_get_lines(require'agentls.chat'.prompt_buf, 0, -1, false)"


def open_chat(screen: Screen) -> None:
    """:Agentls, until its session shows: the user is then typing in the prompt (insert mode)."""
    screen.keys(":Agentls", "Enter")
    screen.wait_lua("require'agentls.chat'.session_id ~= nil", "the chat's session")
    assert screen.lua("vim.api.nvim_get_mode().mode") == "i", screen.text()


RUN = "python3 -c \"open('ran.txt', 'w').close()\""


def test_keys_typed_while_a_permission_arrives_answer_nothing(nvim: Nvim) -> None:
    nvim.extra_config.update(ASK)
    nvim.model.script(
        # One dialog, for the command: `touch` would ask for the file (edit) first under the defaults.
        Turn.tool_call("bash", {"command": RUN, "description": "Make a file"}),
    )
    with interactive(nvim) as screen:
        open_chat(screen)
        screen.keys("run it", literal=True)
        screen.keys("C-s")  # sends, and leaves insert mode
        screen.wait(lambda s: "## You" in s, "the prompt in the transcript")
        # Back to the prompt, typing a line after another while the request arrives.
        screen.keys("i")
        typed = 0
        answered = ("permission: bash", "Type number", "✗ failed", "✓ done")
        while not any(word in screen.text() for word in answered):
            assert typed < 200, screen.text()
            screen.keys("n = 1", literal=True)
            screen.keys("Enter")
            typed += 1
        for _ in range(3):  # and on, after it was announced
            screen.keys("n = 1", literal=True)
            screen.keys("Enter")
            typed += 1
        assert "permission: bash" in screen.text(), "announced, not answered"
        expected = "|".join(["n = 1"] * typed + [""])
        prompt = f"table.concat({PROMPT_LINES}, '|')"
        assert screen.lua(prompt) == expected, screen.text()
        assert screen.lua("vim.api.nvim_get_mode().mode") == "i", "still typing in insert mode"
        assert not (nvim.project / "ran.txt").exists(), "a typed-ahead key allowed the command"
        assert len(nvim.model.requests) == 1, "the permission is still waiting"
        # The user stops typing and leaves insert mode: the dialog opens, and waits for a choice.
        screen.keys("Escape")
        shown = screen.wait(lambda s: "Allow once" in s, "the dialog")
        assert RUN in shown
        screen.keys("3", "Enter")  # Reject
        screen.wait(lambda s: "The user rejected this call" in s, "the rejection in the transcript")
        assert not (nvim.project / "ran.txt").exists()
        assert screen.lua(prompt) == expected, "the user's text is intact"


def test_the_diff_is_on_screen_while_the_edit_permission_is_asked(nvim: Nvim) -> None:
    hello = str(nvim.project / "hello.py")
    nvim.model.script(
        Turn.tool_call("edit", {"filePath": hello, "oldString": "hello", "newString": "bye"}),
        Turn.text("Changed it."),
    )
    with interactive(nvim, height=50) as screen:
        open_chat(screen)
        screen.keys("say bye", literal=True)
        screen.keys("C-s")
        # Neovim's own select asks at the bottom; above it, both sides of the diff, labelled.
        shown = screen.wait(lambda s: "Allow once" in s, "the permission dialog")
        assert "now: hello.py" in shown and "proposed (yours to edit): hello.py" in shown, shown
        assert "print('hello')" in shown and "print('bye')" in shown, shown
        screen.keys("1", "Enter")
        screen.wait(lambda s: "Changed it." in s, "the end of the turn")
        assert (nvim.project / "hello.py").read_text() == "print('bye')\n"


def test_a_wrong_server_command_is_said_once_without_a_prompt(nvim: Nvim) -> None:
    missing = nvim.home / "nowhere" / "bin" / "agentls"
    options = {**nvim.options(), "cmd": [str(missing), "serve"]}
    with interactive(nvim, width=80, height=24, options=options) as screen:
        screen.keys(":Agentls", "Enter")
        shown = screen.wait(lambda s: "checkhealth agentls" in s, "the error")
        errors = [line for line in shown.splitlines() if "agentls" in line and "executable" in line]
        assert len(errors) == 1, shown
        assert 'agentls" is not executable' in errors[0], shown
        assert "Press ENTER" not in shown and "E5108" not in shown and "stack traceback" not in shown, shown
        # Neovim takes keys as usual: no prompt waits for one.
        screen.keys("i")
        screen.wait(lambda s: "-- INSERT --" in s, "insert mode")


def test_no_server_installed_is_said_once_without_a_prompt(nvim: Nvim) -> None:
    options = {key: value for key, value in nvim.options().items() if key != "cmd"}
    path = f"{Path(tool('nvim')).parent}:/usr/bin:/bin"  # no agentls on it, no .venv in the project
    with interactive(nvim, width=80, height=24, options=options, env={"PATH": path}) as screen:
        screen.keys(":Agentls", "Enter")
        shown = screen.wait(lambda s: "checkhealth agentls" in s, "the error")
        errors = [line for line in shown.splitlines() if "checkhealth agentls" in line]
        assert errors == ["agentls: not installed, see :AgentlsInstall; :checkhealth agentls"], shown
        assert "Press ENTER" not in shown, shown


def test_at_completion_replaces_only_the_typed_word_and_attaches_the_file(nvim: Nvim) -> None:
    (nvim.project / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (nvim.project / "util.py").write_text("def helper():\n    return 42\n")
    nvim.model.script(Turn.text("Read it."))
    with interactive(nvim) as screen:
        open_chat(screen)
        screen.keys("look at @util", literal=True)
        screen.wait(lambda s: "util.py" in s and "[file]" in s, "the file list, narrowed")
        assert "calc.py" not in screen.text(), "the list holds the files matching what was typed"
        prompt = f"{PROMPT_LINES}[1]"
        assert screen.lua(prompt) == "look at @util", "nothing inserted before a choice"
        screen.keys("C-n")
        screen.keys(" and mail me@example.com", literal=True)
        screen.wait(lambda s: "me@example.com" in s, "the rest of the line")
        assert screen.lua(prompt) == "look at @util.py and mail me@example.com"
        screen.keys("C-s")
        screen.wait(lambda s: "Read it." in s, "the answer")
    body = json.dumps(nvim.model.requests[0].body)
    assert "look at @util.py and mail me@example.com" in body
    assert "return 42" in body, "util.py is attached"
    assert "return a + b" not in body, "no other file"


def test_the_winbar_keeps_the_title_at_80_columns(nvim: Nvim) -> None:
    nvim.model.script(Turn.text("Hi.").usage(input=1200, output=80))
    with interactive(nvim, width=80, height=24) as screen:
        open_chat(screen)
        screen.keys("hello", literal=True)
        screen.keys("C-s")
        shown = screen.wait(lambda s: "Hi." in s and "A title" in s, "the answer and the session's title")
        bar = next(line for line in shown.splitlines() if "A title" in line)
        # The chat is 32 columns wide: the title first, the rest cut after it.
        assert "│ A title │ " in bar, bar
        winbar = screen.lua("require'agentls.chat.winbar'.text()")
        assert "$0.0000" not in winbar, f"items that read zero are left out: {winbar}"


def test_prompts_typed_while_the_agent_works_queue_and_gq_removes_one_with_neovims_select(
    nvim: Nvim,
) -> None:
    nvim.extra_config.update(ASK)
    nvim.model.script(
        Turn.tool_call("bash", {"command": "echo hi", "description": "Say hi"}),
        Turn.text("First done."),
        Turn.text("Queued answer."),
    )
    queued = "#(require'agentls'.state.queue[require'agentls.chat'.session_id] or {})"
    with interactive(nvim) as screen:
        open_chat(screen)
        screen.keys("run it", literal=True)
        screen.keys("C-s")
        screen.wait(lambda s: "Allow once" in s, "the permission dialog")
        screen.keys("Escape")  # closed without a choice: the turn keeps waiting on it
        screen.wait_lua("require'agentls.dialogs'.waiting() ~= nil", "the dialog to wait")
        for text in ("then this", "drop me"):
            screen.keys("i")
            screen.keys(text, literal=True)
            screen.keys("C-s")
        screen.wait_lua(f"{queued} == 2", "two queued prompts")
        assert screen.lua(f"table.concat({PROMPT_LINES}, '|')") == "", "the prompt buffer was emptied"
        screen.keys("g", "Q")  # Neovim's own select: the queue, then what to do with the pick
        shown = screen.wait(lambda s: "Queued prompts" in s and "drop me" in s, "the queue picker")
        assert "1: then this" in shown and "2: drop me" in shown, shown
        screen.keys("2", "Enter")
        screen.wait(lambda s: "Remove" in s, "the actions")
        screen.keys("2", "Enter")
        screen.wait_lua(f"{queued} == 1", "the removal")
        screen.keys(":AgentlsDialog", "Enter")
        screen.wait(lambda s: "Allow once" in s, "the dialog again")
        screen.keys("1", "Enter")
        screen.wait(lambda s: "Queued answer." in s, "the queued prompt's own answer")
        screen.wait_lua(f"{queued} == 0", "an empty queue")
    requests = [str(r.messages) for r in nvim.model.requests]
    assert len(requests) == 3
    assert "then this" not in requests[1] and "then this" in requests[2]
    assert "drop me" not in str(requests)


def test_searching_sessions_in_neovims_own_select(nvim: Nvim) -> None:
    nvim.model.script(Turn.text("Zebras have stripes."), Turn.text("Okapis have stripes too."))
    with interactive(nvim, height=40) as screen:
        open_chat(screen)
        first = screen.lua("require'agentls.chat'.session_id")
        for question, answer in (
            ("zebras?", "Zebras have stripes."),
            ("okapis?", "Okapis have stripes too."),
        ):
            if question == "okapis?":
                screen.keys(":AgentlsNew", "Enter")
                screen.wait_lua(f"require'agentls.chat'.session_id ~= '{first}'", "a new session")
                screen.keys("i")  # (the chat opened in insert mode; a sent prompt leaves it)
            screen.keys(question, literal=True)
            screen.keys("C-s")
            screen.wait(lambda s, a=answer: a in s, "the answer")
        screen.keys(":AgentlsSessions stripes", "Enter")
        shown = screen.wait(lambda s: "Type number" in s, "Neovim's select of the matches")
        assert 'agentls sessions matching "stripes"' in shown, shown
        lines = [line for line in shown.splitlines() if "have stripes" in line and "#" in line]
        assert len(lines) == 2 and "Okapis" in lines[0] and "Zebras" in lines[1], shown
        screen.keys("2", "Enter")
        screen.wait(lambda s: "Open" in s and "Type number" in s, "the actions")
        screen.keys("1", "Enter")
        screen.wait_lua(f"require'agentls.chat'.session_id == '{first}'", "the first session open")
        screen.keys(':AgentlsSessions fts:"unclosed', "Enter")  # typed text never errs; FTS5 syntax may
        screen.wait(lambda s: "not valid FTS5 query syntax" in s, "the error notice")
