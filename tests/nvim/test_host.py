"""The plugin's ``host`` option reaches the server (``initializationOptions.host`` and its
``AGENTLS_HOST``): with ``auto`` a real headless Neovim's server starts the agent host, relays to a
session there, and its chat is answered through it."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from demo.fake_script import Turn
from tests.host.conftest import stop_leftover_host
from tests.nvim.harness import AGENTLS, Nvim


@pytest.fixture
def attached_nvim(nvim: Nvim) -> Iterator[Nvim]:
    nvim.trust_project()  # an untrusted project is never attached
    try:
        yield nvim
    finally:
        stop_leftover_host(nvim.home / "agentls-data")  # the host the server started, detached


def test_the_host_option_attaches_the_server_to_the_agent_host(attached_nvim: Nvim) -> None:
    attached_nvim.model.script(Turn.text("hello back"))
    run = attached_nvim.run("host.lua", timeout=120, AGENTLS_BIN=str(AGENTLS)).check()
    (line,) = [text for text in run.stdout.splitlines() if text.startswith("HOST ")]
    status = json.loads(line.removeprefix("HOST "))
    assert status["projects"][0]["directory"] == str(attached_nvim.project.resolve())
    assert status["clients"] == ["Neovim"], status
    # The option reaches the server's environment too: the server is a relay, its session the host's.
    assert [relay.split()[0] for relay in status["relays"]] == ["lsp"], status
