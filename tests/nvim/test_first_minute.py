"""A new user's first minute in a real Neovim in tmux (issue #44): what they type right after
`:Agentls` is text, trusting the project does not break the first chat, one `@url:` is fetched and
asked about once with no hit-enter prompt, and an 80-column Neovim keeps the chips and the chat's
status in sight. Keys go in with send-keys; Neovim's own vim.ui.select (inputlist) asks."""

from __future__ import annotations

import json
import os
import re
import signal

import pytest

from demo.fake_script import Turn
from tests.nvim.harness import Nvim
from tests.nvim.notes_site import Site
from tests.nvim.test_interactive import PROMPT_LINES
from tests.nvim.tmux import Screen, interactive

PROMPT = f"table.concat({PROMPT_LINES}, '|')"
HIT_ENTER = r"Press ENTER|-- More --"

CLIENT = "require'agentls.server.client'"


def no_hit_enter(screen: Screen) -> None:
    """No screen read during the run showed a hit-enter or more prompt."""
    shown = screen.terminal.ever(HIT_ENTER)
    assert not shown, f"a hit-enter prompt appeared:\n{shown[0]}"


def test_words_typed_right_after_agentls_land_in_the_prompt(nvim: Nvim) -> None:
    nvim.model.script(Turn.text("Hello to you."))
    with interactive(nvim, width=80, height=24) as screen:
        # One send-keys: the words arrive before the chat has drawn (and before the server answered).
        screen.keys(":Agentls", "Enter", "hello world")
        screen.wait_lua(f"{PROMPT} == 'hello world'", "the words in the prompt")
        assert screen.lua("vim.api.nvim_get_mode().mode") == "i", "still typing"
        screen.keys("C-s")
        screen.wait(lambda s: "Hello to you." in s, "the answer")
        no_hit_enter(screen)
    assert "hello world" in json.dumps(nvim.model.requests[0].body)


def test_start_in_insert_false_keeps_normal_mode(nvim: Nvim) -> None:
    options = {**nvim.options(), "start_in_insert": False}
    with interactive(nvim, width=80, height=24, options=options) as screen:
        screen.keys(":Agentls", "Enter")
        screen.wait_lua("require'agentls.chat'.session_id ~= nil", "the chat's session")
        assert screen.lua("vim.api.nvim_get_mode().mode") == "n"
        assert screen.lua("vim.api.nvim_get_current_win() == require'agentls.chat'.prompt_win") == "true"


def test_trusting_the_project_then_chatting_works_the_first_time(nvim: Nvim) -> None:
    # The project brings its own config: the server starts without it and the plugin asks (Neovim's
    # own select) once the user pauses; "Trust" restarts the server while the chat is opening.
    (nvim.project / "agentls.json").write_text("{}")
    nvim.model.script(Turn.text("Trusted and answering."))
    with interactive(nvim, width=100, height=30) as screen:
        screen.keys(":Agentls", "Enter")
        screen.wait_lua("vim.api.nvim_get_mode().mode == 'i'", "the prompt, in insert mode")
        screen.keys("Escape")  # a pause in normal mode: the trust dialog may open
        screen.wait(lambda s: "1: Trust this project" in s, "the trust dialog")
        first = screen.lua("require'agentls.server.client'.id")
        screen.keys("1", "Enter")
        screen.wait_lua(f"{CLIENT}.id ~= {first} and {CLIENT}.ready",
                        "the server started again, trusted")  # fmt: skip
        screen.wait_lua("require'agentls.chat'.session_id ~= nil", "the chat's session")
        screen.keys("i")
        screen.keys("hello", literal=True)
        screen.keys("C-s")
        shown = screen.wait(lambda s: "Trusted and answering." in s, "the answer, on the first try")
        assert not screen.terminal.ever("after shutdown"), shown
        assert screen.lua("require'agentls.server.trust'.state(vim.fn.getcwd())") == "trusted"
        no_hit_enter(screen)


@pytest.fixture
def notes(notes: Site, nvim: Nvim) -> Site:
    """The page, its loopback address allowed: these tests count the ``webfetch`` question of one
    mention; the ``local_network`` question a loopback site adds is tested in test_context_items."""
    nvim.extra_config["permission"]["local_network"] = "allow"
    return notes


def test_one_url_is_fetched_and_asked_about_once_with_no_hit_enter_prompt(nvim: Nvim, notes: Site) -> None:
    nvim.model.script(Turn.text("Tabs, then."))
    url = f"{notes.url}/notes"
    with interactive(nvim, width=80, height=24) as screen:
        screen.keys(":Agentls", "Enter")
        screen.wait_lua("require'agentls.chat'.session_id ~= nil", "the chat's session")
        screen.lua("vim.api.nvim_create_autocmd('User', {pattern = 'AgentlsDialog', callback = function()"
                   " vim.g.asked = (vim.g.asked or 0) + 1 end}) and 1")  # fmt: skip
        # Typed with more after it (finished), edited on, and sent while its fetch waits to be allowed.
        screen.keys(f"what is new in @url:{url} today", literal=True)
        screen.wait(lambda s: "[@ " in s, "the URL's chip")
        for word in (" please", " and", " thanks"):
            screen.keys(word, literal=True)
            screen.wait_lua(f"{PROMPT}:find('{word}', 1, true) ~= nil", "the word typed")
        screen.keys("C-s")  # the fetch waits for its permission: the prompt waits for the fetch
        screen.wait(lambda s: "Allow once" in s and "webfetch" in s, "the fetch's permission")
        screen.keys("1", "Enter")
        screen.wait(lambda s: "Tabs, then." in s, "the answer")
        no_hit_enter(screen)
        assert screen.lua("vim.g.asked") == "1", "one question"
    assert notes.hits == ["/notes"], "one fetch"
    assert len(nvim.model.requests) == 1
    body = json.dumps(nvim.model.requests[0].body)
    assert "Release notes" in body and "tabs" in body, body


def test_chips_wrap_and_the_winbar_keeps_the_status_and_mode_at_80_columns(nvim: Nvim) -> None:
    for name in ("alpha", "beta", "gamma", "delta", "epsilon"):
        (nvim.project / name).mkdir()
    (nvim.project / "hello.py").write_text("print('hello')\n")
    nvim.model.script(Turn.text("Working on it", chunks=4).stall(after=2))
    with interactive(nvim, width=80, height=30, files=("hello.py",)) as screen:
        screen.keys(":Agentls", "Enter")
        screen.wait_lua("require'agentls.chat'.session_id ~= nil", "the chat's session")
        # Five folders and the editor note: six chips, in a 32-column prompt window.
        folders = " ".join(f"@folder:{name}" for name in ("alpha", "beta", "gamma", "delta", "epsilon"))
        screen.keys(f"see {folders}", literal=True)
        screen.keys("Escape")
        chips = "require'agentls.context.chips'.chips"
        screen.wait_lua(f"#{chips} == 6 and type({chips}[5].tokens) == 'number'", "six chips counted")
        shown = screen.text()
        for name in ("alpha", "beta", "gamma", "delta", "epsilon"):
            assert re.search(rf"\[@ {name}/ · \d+ tok\]", shown), f"{name}'s chip is not on screen:\n{shown}"
        assert re.search(r"\[✎ hello\.py:1 · \d+ tok\]", shown), shown
        screen.keys("Enter")
        shown = screen.wait(lambda s: "│ busy" in s, "the turn, running")
        bar = next(line for line in shown.splitlines() if "│ busy" in line)
        assert re.search(r"│ \S.* │ busy │ mode \w+", bar), bar
        screen.keys("C-c")
        screen.wait(lambda s: "│ idle │ mode " in s, "idle again, the mode still in sight")
        no_hit_enter(screen)


def test_a_rejected_url_is_asked_about_once_and_its_prompt_is_not_sent(nvim: Nvim, notes: Site) -> None:
    url = f"{notes.url}/notes"
    with interactive(nvim, width=80, height=24) as screen:
        screen.keys(":Agentls", "Enter")
        screen.wait_lua("require'agentls.chat'.session_id ~= nil", "the chat's session")
        screen.keys(f"read @url:{url} now", literal=True)
        screen.keys("Escape")  # a pause in normal mode: the fetch's question opens
        screen.wait(lambda s: "Allow once" in s and "webfetch" in s, "the fetch's permission")
        screen.keys("3", "Enter")  # Reject
        chips = "require'agentls.context.chips'.chips"
        screen.wait_lua(f"{chips}[1] and {chips}[1].error ~= nil", "the chip's error")
        for word in (" please", " thanks"):  # typing on asks nothing again
            screen.keys("A")
            screen.keys(word, literal=True)
            screen.keys("Escape")
            screen.wait_lua(f"{PROMPT}:find('{word}', 1, true) ~= nil", "the word typed")
        screen.keys("Enter")  # send: refused, the text stays
        screen.wait(lambda s: "not sent: @url" in s, "why it was not sent")
        assert screen.lua(PROMPT) == f"read @url:{url} now please thanks"
        assert not nvim.model.requests, "nothing reached the model"
        assert notes.hits == [], "the page was not fetched"
        assert len(screen.terminal.ever("Allow once")) >= 1
        no_hit_enter(screen)
        # Edited, the URL is another item: asked about (and fetched) again.
        screen.keys("0", "f", "/", "f", "/", "a")
        screen.keys("x", literal=True)  # http://x127.0.0.1…: not the same URL any more
        screen.keys("Escape")
        screen.wait_lua(f"{chips}[1] and {chips}[1].error == nil", "the old error gone with its URL")


def test_a_prompt_waiting_for_its_url_goes_once_the_server_that_died_is_back(nvim: Nvim, notes: Site) -> None:
    nvim.model.script(Turn.text("Read it after all."))
    url = f"{notes.url}/notes"
    with interactive(nvim, width=120, height=30) as screen:
        screen.keys(":Agentls", "Enter")
        screen.wait_lua("require'agentls.chat'.session_id ~= nil", "the chat's session")
        caps = "require'agentls.server.client'.get().server_capabilities"
        pid = int(screen.lua(f"{caps}.experimental.agent.processId"))
        first = screen.lua("require'agentls.server.client'.id")
        screen.keys(f"read @url:{url} now", literal=True)
        chip = "require'agentls.context.chips'.chips[1]"
        screen.wait_lua(f"{chip} and {chip}.tokens == '?'", "the URL's fetch, asking (not while typing)")
        screen.keys("C-s")  # sent while the URL's fetch waits for its question: the prompt waits
        screen.wait(lambda s: "Allow once" in s and "webfetch" in s, "the fetch's permission")
        os.kill(pid, signal.SIGKILL)  # the server dies with the fetch unanswered
        screen.keys("q")  # the question of a server that is gone: closed unanswered
        # Neovim's own notice of a client that quit (with the log's path) and the plugin's of the
        # restart: more than the command line holds, Neovim asks for Enter (its own, not ours).
        shown = screen.wait(lambda s: "quit with exit code" in s, "Neovim's notice")
        if "Press ENTER" in shown:
            screen.keys("Enter")
        screen.wait_lua(f"{CLIENT}.id ~= {first} and {CLIENT}.ready",
                        "the server started again")  # fmt: skip
        # The prompt went to the new server, which fetches the URL (asking first) with it.
        screen.wait(lambda s: "Allow once" in s and "webfetch" in s, "the new server's question")
        screen.keys("1", "Enter")
        screen.wait(lambda s: "Read it after all." in s, "the answer")
        assert screen.lua(PROMPT) == "", "the prompt went"
    assert notes.hits == ["/notes"]
    assert "Release notes" in json.dumps(nvim.model.requests[0].body)


def test_a_prompt_the_dying_server_had_not_stored_comes_back_to_the_prompt(nvim: Nvim, notes: Site) -> None:
    nvim.model.script(Turn.text("Read it the second time."))
    url = f"{notes.url}/notes"
    with interactive(nvim, width=120, height=30) as screen:
        screen.keys(":Agentls", "Enter")
        screen.wait_lua("require'agentls.chat'.session_id ~= nil", "the chat's session")
        caps = "require'agentls.server.client'.get().server_capabilities"
        pid = int(screen.lua(f"{caps}.experimental.agent.processId"))
        # Sent at once (before the chip's own fetch starts): the server fetches it with the prompt,
        # asking first, before it stores the prompt.
        screen.keys(f"read @url:{url} now", "C-s")
        screen.wait(lambda s: "Allow once" in s and "webfetch" in s, "the fetch's permission")
        os.kill(pid, signal.SIGKILL)
        screen.keys("q")
        shown = screen.wait(lambda s: "quit with exit code" in s, "Neovim's notice")
        if "Press ENTER" in shown:  # (Neovim's own notice, with the log's path, is two lines)
            screen.keys("Enter")
        screen.wait_lua(f"{PROMPT} == 'read @url:{url} now'", "the prompt's text back")
        assert not screen.terminal.ever("stopped before answering"), "said once, by the restart notice"
        screen.wait_lua("require'agentls.server.client'.ready", "the new server")
        screen.keys("Enter")  # send again
        screen.wait(lambda s: "Allow once" in s and "webfetch" in s, "the new server's question")
        screen.keys("1", "Enter")
        screen.wait(lambda s: "Read it the second time." in s, "the answer")
    assert len(nvim.model.requests) == 1


def test_a_prompt_the_dying_server_had_stored_is_not_given_back(nvim: Nvim) -> None:
    nvim.model.script(Turn.text("Thinking about it", chunks=4).stall(after=2))
    with interactive(nvim, width=120, height=30) as screen:
        screen.keys(":Agentls", "Enter")
        screen.wait_lua("require'agentls.chat'.session_id ~= nil", "the chat's session")
        caps = "require'agentls.server.client'.get().server_capabilities"
        pid = int(screen.lua(f"{caps}.experimental.agent.processId"))
        screen.keys("explain the code", literal=True)
        screen.keys("C-s")
        screen.wait(lambda s: "│ busy" in s, "the turn, running")
        os.kill(pid, signal.SIGKILL)
        shown = screen.wait(lambda s: "quit with exit code" in s, "Neovim's notice")
        if "Press ENTER" in shown:
            screen.keys("Enter")
        screen.wait_lua("require'agentls.server.client'.ready", "the new server")
        shown = screen.wait(lambda s: "explain the code" in s, "the stored prompt in the transcript")
        assert screen.lua(PROMPT) == "", "not given back: the transcript shows it"
