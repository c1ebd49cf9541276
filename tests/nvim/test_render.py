"""The chat's rendering code on event streams recorded from a real server run (``record_fixtures.py``)."""

from __future__ import annotations

from tests.nvim.harness import Nvim
from tests.nvim.record_fixtures import FIXTURES


def test_rendering_recorded_streams(nvim: Nvim) -> None:
    nvim.run("render.lua", AGENTLS_FIXTURES=str(FIXTURES)).check()
