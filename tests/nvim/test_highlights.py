"""The plugin's highlight groups: default links a colour scheme can override, linked again after
:colorscheme, and the ones the transcript's tool states use."""

from __future__ import annotations

from tests.nvim.harness import Nvim


def test_the_highlight_groups_are_default_links(nvim: Nvim) -> None:
    nvim.run("highlights.lua").check()
