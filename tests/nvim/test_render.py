"""The chat's rendering code on event streams recorded from a real server run (``record_fixtures.py``)."""

from __future__ import annotations

from tests.nvim.harness import Nvim
from tests.nvim.record_fixtures import FIXTURES


def test_rendering_recorded_streams(nvim: Nvim) -> None:
    nvim.run("render.lua", AGENTLS_FIXTURES=str(FIXTURES)).check()


def test_a_chat_buffer_becomes_markdown_in_turns_of_its_own(nvim: Nvim) -> None:
    run = nvim.run("markdown_turns.lua")
    # The spec's broken FileType autocommand is told by Neovim itself (its only error).
    told = 'Error detected while processing FileType Autocommands for "markdown"'
    assert run.returncode == 0 and run.stderr.count("Error detected") == 1, run.stderr
    assert told in run.stderr and "spec: a broken FileType autocommand" in run.stderr, run.stderr
