"""The pickers of sessions and queued prompts: which picker draws them (the `picker` option, by what
is installed), and their kind, lines and previews through vim.ui.select. Neovim's own vim.ui.select
(inputlist) draws them in tests/nvim/test_interactive.py; the native pickers (telescope, fzf-lua,
snacks, mini.pick) are not installable here."""

from __future__ import annotations

from demo.fake_script import Turn
from tests.nvim.harness import Nvim


def test_the_session_picker_and_its_preview(nvim: Nvim) -> None:
    nvim.model.script(Turn.text("Zebras have stripes."), Turn.text("Okapis have stripes too."))
    nvim.run("picker.lua").check()
