"""Fixtures that start the real agentls server over stdio for each client profile."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from demo.config import fake_model_config
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.lsp.editor import PLUGIN, Editor, serve_command, start

EVENTS = ("agent/event",)
# How long a request may go unanswered before the test fails: a bound for a hang, not a measure of
# speed. The first request waits for the agent's background load, which took over 30 s (the old
# bound) on a 2-core machine shared by seven sessions (load 19: 3 of 92 tests failed so, and
# passed alone); pytest-timeout's 300 s still ends a test that hangs.
CALL_TIMEOUT = 120.0


@dataclass
class Connected:
    client: LanguageClient
    editor: Editor
    result: lsp.InitializeResult
    root: Path
    profile: str

    async def call(self, method: str, params: Any = None, timeout: float = CALL_TIMEOUT) -> Any:
        import asyncio

        return await asyncio.wait_for(self.client.protocol.send_request_async(method, params), timeout)

    def events(self, type_: str | None = None) -> list[dict[str, Any]]:
        seen = self.editor.notifications.get("agent/event", [])
        return [e for e in seen if type_ is None or e["type"] == type_]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "hello.py").write_text("print('hello')\n")
    return root


@pytest.fixture
def title_model(title_model: FakeModelServer) -> FakeModelServer:
    """The shared small model (tests/conftest.py), answering ten titles."""
    title_model.script(*[Turn.text("A title") for _ in range(10)])
    return title_model


# These tests are about the protocol and were written when every tool ran unasked: they keep that
# for edits, commands and fetches (of test sites on 127.0.0.1, hence ``local_network``), and a
# test's own ``permission`` rules go on top. What the built-in defaults ask is tested on its own
# (tests/lsp/test_safe_defaults.py, tests/unit/permission).
PROTOCOL_TEST_PERMISSION = {"edit": "allow", "bash": "allow", "webfetch": "allow", "local_network": "allow"}


def agent_config(model: FakeModelServer, title_model: FakeModelServer, **extra: Any) -> dict[str, Any]:
    """Config sending `fake/m` to the fake server and titles to a second one."""
    retry = {"initial_delay": 0.01, "max_delay": 0.05, "max_attempts": 2}
    own = extra.pop("permission", {})
    permission = {**PROTOCOL_TEST_PERMISSION, **own} if isinstance(own, dict) else own
    return fake_model_config(model, title_model, **{"retry": retry, "permission": permission, **extra})


@pytest.fixture
def options() -> dict[str, Any] | None:
    """initializationOptions; tests that need a model override this."""
    return None


async def connect(
    tmp_path: Path, project: Path, profile: str, options: Any, prepare: Callable[[Editor], None] | None = None
) -> AsyncIterator[Connected]:
    data = tmp_path / "data"
    client, editor, result = await start(serve_command(), project, data, profile, options, EVENTS, prepare)
    editor.saves = profile == PLUGIN  # a plugin saves what an agent edit touched (savesEdits)
    yield Connected(client, editor, result, project, profile)
    await client.shutdown_session()
    await client.stop()


@pytest.fixture(params=[PLUGIN, "neovim@v0.10.0"])
async def server(
    request: pytest.FixtureRequest, tmp_path: Path, project: Path, options: Any
) -> AsyncIterator[Connected]:
    async for connected in connect(tmp_path, project, request.param, options):
        yield connected


@pytest.fixture
async def plugin(tmp_path: Path, project: Path, options: Any) -> AsyncIterator[Connected]:
    async for connected in connect(tmp_path, project, PLUGIN, options):
        yield connected


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def shared_plugin(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Connected]:
    """One plugin server (no model, no options) for the tests of a module that change nothing it
    holds — a refused request, a read — each marked ``@pytest.mark.asyncio(loop_scope="module")``:
    a request each instead of a server's start each (most of an lsp test's CPU). A test that
    creates, prompts or configures keeps its own server (``plugin``, ``server``)."""
    base = tmp_path_factory.mktemp("shared")
    root = base / "project"
    root.mkdir()
    (root / "hello.py").write_text("print('hello')\n")
    async for connected in connect(base, root, PLUGIN, None):
        yield connected


@pytest.fixture
async def vscode(tmp_path: Path, project: Path, options: Any) -> AsyncIterator[Connected]:
    async for connected in connect(tmp_path, project, "visual-studio-code", options):
        yield connected
