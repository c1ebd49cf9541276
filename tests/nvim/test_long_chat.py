"""A long session in the interactive Neovim (tmux), with the real server and store: it opens with
its last page while the user types in the prompt, its older lines arrive a chunk at a time, and
`gL` loads the page before it with the cursor staying on its line."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.longsession import write_session
from tests.nvim.harness import Nvim
from tests.nvim.tmux import interactive

TURNS = 75  # 150 messages: a page of the chat's 100, and half a page before it


async def seed(data_dir: Path, project: Path) -> str:
    """A session of TURNS questions ("question n"), each answered with a tool call and "answer n"."""
    return await write_session(
        data_dir, project, "a long session", TURNS, lambda n: f"question {n}", lambda n: f"answer {n}"
    )


def test_a_long_session_opens_while_the_user_types_and_loads_older_pages(nvim: Nvim) -> None:
    (nvim.home / "agentls-data").mkdir()
    session = asyncio.run(seed(nvim.home / "agentls-data", nvim.project))
    view = f"require'agentls.chat.render'.views[require'agentls.chat'.buffers['{session}']]"
    lines = f"vim.api.nvim_buf_get_lines(require'agentls.chat'.buffers['{session}'], 0, -1, false)"
    with interactive(nvim, width=140, height=40) as screen:
        screen.keys(":lua require'agentls.server.client'.start()", "Enter")
        screen.wait_lua("require'agentls.server.client'.ready", "the server", timeout=60)
        # The chat opens on the session; the user starts typing in the prompt at once.
        screen.keys(f":lua require'agentls.chat'.open({{session_id = '{session}'}})", "Enter")
        screen.keys("i")
        screen.keys("typed while it opens", literal=True)
        screen.wait_lua(f"{view} ~= nil and {view}.from == nil and #{lines} > 1000", "the whole last page")
        prompt = (
            "table.concat(vim.api.nvim_buf_get_lines(require'agentls.chat'.prompt_buf, 0, -1, false), '|')"
        )
        assert screen.lua(prompt) == "typed while it opens", screen.text()
        assert screen.lua("vim.api.nvim_get_mode().mode") == "i", "still typing"
        text = screen.lua(f"table.concat({lines}, '\\n')")
        assert text.startswith("▲ older messages: gL loads 100 more"), text[:300]
        assert "question 25" in text and "answer 74" in text and "question 24" not in text, text[:300]
        screen.wait(lambda s: "answer 74" in s, "the newest answer on screen")
        # In the transcript, on a question of the page: gL brings the page before it, above.
        screen.keys("Escape")
        screen.keys("C-w", "k")
        screen.keys("/question 60$", "Enter")
        screen.wait_lua("vim.api.nvim_get_current_line() == 'question 60'", "the cursor on question 60")
        row = int(screen.lua("vim.api.nvim_win_get_cursor(0)[1]"))
        screen.keys("g", "L")
        screen.wait_lua(f"{view}.from == nil and vim.tbl_contains({lines}, 'question 0')", "the older page")
        assert screen.lua("vim.api.nvim_get_current_line()") == "question 60", screen.text()
        moved = int(screen.lua("vim.api.nvim_win_get_cursor(0)[1]")) - row
        assert moved > 500, f"moved down by the half page above: {moved}"
        assert "question 60" in screen.text(), "the same line on screen"
        text = screen.lua(f"table.concat({lines}, '\\n')")
        assert not text.startswith("▲"), "no older messages left to offer: " + text[:200]
        assert text.index("question 0\n") < text.index("question 24\n") < text.index("question 74\n")
