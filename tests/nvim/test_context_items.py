"""Context items in the real Neovim: ``@problems`` from vim.diagnostic (a toy language server attached),
``@terminal`` from a terminal buffer's last output, ``@symbol`` through workspace/symbol, ``@changes``
from the server, and the automatic editor note — the requests the fake model received hold each, and
dropping the chip or switching the setting off keeps the note out."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from demo.fake_script import Turn
from tests.nvim.harness import Nvim
from tests.nvim.test_interactive import PROMPT_LINES, open_chat
from tests.nvim.tmux import interactive

TOY_LS = Path(__file__).resolve().parent / "toy_ls.py"


def commit(root: Path) -> None:
    """A git repository whose first commit holds the project as it is now."""
    for args in (
        ["init", "-q"],
        ["add", "-A"],
        ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "a"],
    ):
        subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def user_text(nvim: Nvim, step: int) -> str:
    user = [m for m in nvim.model.requests[step].messages if m.get("role") == "user"][-1]
    content = user["content"]
    items = content if isinstance(content, list) else [{"type": "text", "text": content}]
    return "\n".join(str(c.get("text", "")) for c in items)


def test_items_and_the_editor_note_reach_the_model(nvim: Nvim) -> None:
    (nvim.project / "lib.py").write_text("def greet(name):\n    return 'hello ' + name\n\nx = 1\n")
    (nvim.project / "main.py").write_text("from lib import greet\nmessage = greet('world')  # TODO: louder\n")
    commit(nvim.project)
    (nvim.project / "lib.py").write_text("def greet(name):\n    return 'hi ' + name\n\nx = 1\n")
    nvim.model.script(Turn.text("One."), Turn.text("Two."), Turn.text("Three."))
    run = nvim.run(
        "context_items.lua", timeout=120, AGENTLS_TEST_TOY_LS=json.dumps([sys.executable, str(TOY_LS)])
    ).check()
    first = user_text(nvim, 0)
    assert "main.py:2:" in first and "warning: a TODO is left [toy]" in first, first + run.stderr
    assert "$ make\nbuild failed: 3 errors" in first, first
    assert "1: def greet(name):\n2:     return 'hi ' + name\n</symbol>" in first, first
    assert "-    return 'hello ' + name" in first and "+    return 'hi ' + name" in first, first
    assert "<editor-context>" in first and "main.py" in first and "line 2" in first, first
    assert "message = greet('world')" in first.split("<editor-selection")[1], first
    assert "<editor-context>" not in user_text(nvim, 1)  # the chip dropped for that prompt
    assert "<editor-context>" not in user_text(nvim, 2)  # the setting off


def test_the_at_menu_offers_the_items_and_the_chips_show_their_tokens_on_screen(nvim: Nvim) -> None:
    commit(nvim.project)
    (nvim.project / "hello.py").write_text("print('bye')\n")
    nvim.model.script(Turn.text("Seen."))
    with interactive(nvim, width=120, height=30) as screen:
        screen.keys(":edit hello.py", "Enter")
        open_chat(screen)
        screen.keys("what changed? @cha", literal=True)
        screen.wait(lambda s: "changes" in s and "[context]" in s, "the context items in the @ menu")
        screen.keys("C-n")
        screen.keys("Escape")
        assert screen.lua(f"{PROMPT_LINES}[1]") == "what changed? @changes"
        shown = screen.wait(
            lambda s: "[@ changes · " in s and "[✎ hello.py:1 · " in s, "the chips with their token counts"
        )
        assert " tok]" in shown, shown
        screen.keys("Enter")
        screen.wait(lambda s: "Seen." in s, "the answer")
    text = user_text(nvim, 0)
    assert "-print('hello')\n+print('bye')" in text and "<editor-context>" in text, text


def test_url_and_session_chips_count_their_tokens_and_reach_the_model(nvim: Nvim, site: str) -> None:
    nvim.model.script(Turn.text("Done before: tabs are planned."), Turn.text("Seen both."))
    with interactive(nvim, width=200, height=30) as screen:
        open_chat(screen)
        screen.keys("hi", literal=True)
        screen.keys("C-s")
        screen.wait(lambda s: "Done before: tabs are planned." in s, "the earlier session's answer")
        earlier = screen.lua("require'agentls.chat'.session_id").strip()
        screen.keys(":AgentlsNew", "Enter")
        screen.wait_lua(f"require'agentls.chat'.session_id ~= '{earlier}'", "a new session")
        screen.keys("i")
        url = f"{site}/notes"
        screen.keys(f"compare @url:{url}", literal=True)
        # Still typing the URL: not fetched (nor any prefix of it) until it is finished.
        shown = screen.wait(lambda s: f"[@ {url} · … tok]" in s, "the URL's chip while it is typed")
        screen.keys(f" with @session:{earlier}", literal=True)
        # Finished: fetched as the webfetch tool would, so its rule asks first (Neovim's own select,
        # once the user stops typing).
        screen.keys("Escape")
        shown = screen.wait(lambda s: "Allow once" in s and "webfetch" in s, "the fetch's permission")
        assert url in shown, shown
        screen.keys("1", "Enter")
        # The test site is on 127.0.0.1, this machine: the fetch asks again, for that address.
        shown = screen.wait(lambda s: "Allow once" in s and "local_network" in s, "the address's permission")
        assert "127.0.0.1 (loopback)" in shown, shown
        screen.keys("1", "Enter")
        chips = "require'agentls.context.chips'.chips"
        screen.wait_lua(f"#{chips} == 2 and type({chips}[1].tokens) == 'number'"
                        f" and type({chips}[2].tokens) == 'number'", "both chips counted")  # fmt: skip
        text = screen.lua("require'agentls.context.chips'.chip_text()")
        # The earlier session by its title (the fake title model's).
        match = re.fullmatch(rf"\[@ {re.escape(url)} · (\d+) tok\] \[@ A title · (\d+) tok\]", text)
        assert match and int(match[1]) > 0 and int(match[2]) > 0, text
        # On screen (the chat's window cuts the line at its width): the URL's count, not "?".
        screen.wait(lambda s: f"[@ {url} · {match[1]} tok]" in s, "the URL's count on screen")
        screen.keys("Enter")
        screen.wait(lambda s: "Seen both." in s, "the answer")
    text = user_text(nvim, 1)
    assert "# Release notes" in text and "**tabs**" in text, text
    assert "Done before: tabs are planned." in text, text
