"""An MCP server (the official SDK, stdio) in the real Neovim, driven as a user in tmux: its
resources in the ``@`` menu as ``server:uri``, attached as chips with their token counts (a
template's URI filled in), a binary one shown with its reason and not sent; its prompt in the ``/``
menu, run with arguments. The requests the fake model received hold what was attached."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import httpx

from demo.fake_script import Turn
from tests.e2e.mcp_oauth_helpers import protected_server
from tests.nvim.harness import Nvim
from tests.nvim.test_context_items import user_text
from tests.nvim.test_interactive import PROMPT_LINES, open_chat
from tests.nvim.tmux import interactive

SERVER = Path(__file__).parents[1] / "fixtures" / "mcp" / "docs_server.py"
CHIPS = "require'agentls.context.chips'.chips"
# The server's state as Neovim last heard it, asked every 200 ms (no event announces a restart).
WATCH = (
    ":lua vim.uv.new_timer():start(0, 200, vim.schedule_wrap(function() "
    "require'agentls.server.client'.request('agent/mcp/list', {}, "
    "function(_, r) if r then vim.g.vault = r.servers[1].status end end) end))"
)
BROWSER = (
    ":lua vim.ui.open = function(url) vim.g.opened = url;"
    " return { wait = function() return { code = 0 } end } end"
)


def test_resources_attach_from_the_at_menu_and_prompts_run_from_the_slash_menu(nvim: Nvim) -> None:
    nvim.extra_config["mcp"] = {"docs": {"type": "local", "command": [sys.executable, str(SERVER)]}}
    nvim.model.script(Turn.text("Read both."), Turn.text("Explained."))
    with interactive(nvim, width=160, height=40) as screen:
        open_chat(screen)
        screen.keys("read @doc", literal=True)
        shown = screen.wait(
            lambda s: "docs:docs://readme" in s and "[mcp]" in s, "the resources in the @ menu"
        )
        assert "docs:notes://{name}" in shown and "[mcp template]" in shown, shown
        screen.keys("C-n")  # the first: the readme
        screen.wait_lua(f"{PROMPT_LINES}[1] == 'read @docs:docs://readme'", "the resource chosen")
        screen.keys(" and @docs:notes://plan and @docs:docs://logo", literal=True)
        screen.keys("Escape")
        assert (
            screen.lua(f"{PROMPT_LINES}[1]")
            == "read @docs:docs://readme and @docs:notes://plan and @docs:docs://logo"
        )
        screen.wait_lua(f"#{CHIPS} == 3 and {CHIPS}[3].error ~= nil", "the three chips resolved")
        shown = screen.wait(
            lambda s: "[@ docs:docs://readme · " in s and "[@ docs:notes://plan · " in s and "is binary" in s,
            "the chips on screen",
        )
        assert "docs:docs://logo is binary (image/png)" in shown, shown
        # Sent with the binary one in it: not sent, and the user is told why.
        screen.keys("Enter")
        screen.wait(lambda s: "not sent:" in s and "docs:docs://logo is binary" in s, "why it was not sent")
        assert nvim.model.requests == []
        # Without it, the two resources go.
        screen.keys("A")
        for _ in range(len(" and @docs:docs://logo")):
            screen.keys("BSpace")
        screen.keys("Escape")
        screen.wait_lua(f"#{CHIPS} == 2 and type({CHIPS}[2].tokens) == 'number'", "two chips counted")
        screen.keys("Enter")
        screen.wait(lambda s: "Read both." in s, "the answer")
        first = user_text(nvim, 0)
        assert "use explain for symbols" in first and "The note called plan." in first, first
        # The server's prompt, from the / menu.
        screen.keys("i")
        screen.keys("/mcp", literal=True)
        screen.wait(
            lambda s: "/mcp__docs__explain" in s and "/mcp__docs__dialogue" in s, "the prompts in the / menu"
        )
        screen.keys("__docs__e", literal=True)  # narrows the menu to /mcp__docs__explain
        screen.wait(
            lambda s: "/mcp__docs__dialogue" not in s and "/mcp__docs__explain" in s, "the menu narrowed"
        )
        screen.keys("C-n", "C-y")  # pick it
        screen.wait_lua(f"{PROMPT_LINES}[1] == '/mcp__docs__explain '", "the picked prompt")
        screen.keys("add style=long", literal=True)
        screen.keys("C-s")
        screen.wait(lambda s: "Explained." in s, "the prompt's answer")
    assert user_text(nvim, 1).endswith("Explain the symbol add in a long answer."), user_text(nvim, 1)


def test_the_servers_picker_shows_each_state_and_disables_a_server(nvim: Nvim) -> None:
    nvim.extra_config["mcp"] = {
        "docs": {"type": "local", "command": [sys.executable, str(SERVER)]},
        "broken": {"type": "local", "command": [str(nvim.home / "no-such-server")]},
    }
    with interactive(nvim, width=160, height=40) as screen:
        open_chat(screen)
        screen.keys("Escape")
        screen.keys(":AgentlsMcp", "Enter")
        shown = screen.wait(lambda s: "MCP servers" in s and "broken  failed:" in s, "the servers' picker")
        assert "docs  running · 2 tools, 4 resources, 3 prompts" in shown, shown
        assert "broken  failed: MCP server 'broken' skipped" in shown, shown
        # The user picks docs by the number Neovim's inputlist shows beside it.
        number = re.search(r"(\d+)[:.] docs  running", shown)
        assert number is not None, shown
        screen.keys(number.group(1), "Enter")
        screen.wait(lambda s: "restart" in s and "disable" in s, "its actions")
        screen.keys("2", "Enter")  # disable
        screen.wait(lambda s: "MCP server docs  disabled" in s, "the notice")
    user = json.loads((nvim.home / "agentls-config" / "agentls.json").read_text())
    assert user == {"mcp": {"docs": {"enabled": False}}}


def test_an_mcp_servers_form_is_asked_in_neovims_own_dialogs(nvim: Nvim) -> None:
    elicited = nvim.project / "elicited.json"  # in the project: the server's sandbox may write there
    env = {"DOCS_ELICITED": str(elicited)}
    nvim.extra_config["mcp"] = {
        "docs": {"type": "local", "command": [sys.executable, str(SERVER)], "environment": env}
    }
    nvim.extra_config["permission"] = {**nvim.extra_config["permission"], "docs_*": "allow"}
    nvim.model.script(Turn.tool_call("docs_deploy", {}), Turn.text("Deployed."))
    with interactive(nvim, width=160, height=40) as screen:
        open_chat(screen)
        screen.keys("deploy it", literal=True)
        screen.keys("C-s")
        first = screen.wait(lambda s: "Where to deploy" in s and "production" in s, "the first field")
        # A field of fixed values is answered by them alone: no "Type an answer…" among its items.
        assert "Type an answer" not in first, first
        screen.keys("2", "Enter")  # production
        screen.wait(lambda s: "How many replicas" in s, "the second field")
        screen.keys("1", "Enter")  # the only choice: type it
        screen.wait(
            lambda s: "How many replicas" in s and "Type number" not in s.splitlines()[-1], "the input"
        )
        screen.keys("3", "Enter")
        third = screen.wait(lambda s: "Really deploy?" in s, "the third field")
        assert "Type an answer" not in third.split("Really deploy?")[-1], third
        screen.keys("1", "Enter")  # yes
        screen.wait(lambda s: "A note for the log" in s, "the optional field")
        screen.keys("1", "Enter")  # Leave empty
        screen.wait(lambda s: "The MCP server docs asks: Deploy settings" in s, "send or decline")
        screen.keys("1", "Enter")  # Send
        screen.wait(lambda s: "Deployed." in s, "the answer")
    assert json.loads(elicited.read_text()) == {
        "action": "accept",
        "data": {"environment": "production", "replicas": 3, "confirm": True, "note": ""},
    }


def test_a_server_that_needs_a_login_is_logged_in_to_from_the_picker(nvim: Nvim) -> None:
    with protected_server() as url:
        nvim.extra_config["mcp"] = {"vault": {"type": "remote", "url": url}}
        with interactive(nvim, width=160, height=40) as screen:
            open_chat(screen)
            screen.keys("Escape")
            # The user's browser: what Neovim opens (window/showDocument external → vim.ui.open).
            screen.keys(BROWSER, "Enter")
            screen.keys(":AgentlsMcp", "Enter")
            shown = screen.wait(lambda s: "vault  needs login:" in s, "the server needing a login")
            assert "vault  needs login: pick it and log in (or run agentls mcp login vault)" in shown, shown
            number = re.search(r"(\d+)[:.] vault  needs login", shown)
            assert number is not None, shown
            screen.keys(number.group(1), "Enter")
            screen.wait(lambda s: "log in" in s and "disable" in s, "its actions")
            screen.keys("1", "Enter")  # log in
            screen.wait(lambda s: "agentls: log in to vault in your browser" in s, "the notice")
            screen.wait_lua("vim.g.opened ~= nil", "the browser opened")
            opened = screen.lua("vim.g.opened")
            with httpx.Client(timeout=30) as browser:
                answer = browser.get(opened)
                assert browser.get(answer.headers["location"]).status_code == 200
            # Once back, the server restarts logged in (no event says so: asked until it has).
            screen.keys(WATCH, "Enter")
            screen.wait_lua("vim.g.vault == 'running'", "the server restarted, logged in", timeout=60)
            screen.keys(":AgentlsMcp", "Enter")
            shown = screen.wait(lambda s: "vault  running" in s, "the picker again")
            assert "vault  running · 1 tools, 0 resources, 0 prompts · logged in" in shown, shown
