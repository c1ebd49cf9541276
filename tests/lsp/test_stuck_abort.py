"""An abort whose turn does not stop in time becomes ``agent.warning`` kind "abort" — an
``agent/event`` for a plugin client, ``window/showMessage`` (Warning) for a stock one.

The real server, the real bash tool running a real ``sleep``: the wait is made 0 s with
``AGENTLS_ABORT_TIMEOUT``, so an abort that lands while the tool runs cannot have stopped the turn
yet and must warn — no test waits five seconds."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.lsp.conftest import agent_config
from tests.lsp.raw import RawServer, processes_with
from tests.lsp.test_lifecycle import wait_until

MARKER = 5100 + os.getpid() % 500 * 2


@pytest.fixture
def models() -> Iterator[tuple[FakeModelServer, FakeModelServer]]:
    with FakeModelServer.threaded() as main, FakeModelServer.threaded() as titles:
        titles.script(*[Turn.text("A title") for _ in range(10)])
        command = f"sleep {MARKER}"
        main.script(Turn.tool_call("bash", {"command": command, "description": "sleep"}), Turn.text("done"))
        yield main, titles


def start(
    tmp_path: Path, project: Path, models: tuple[FakeModelServer, FakeModelServer], **caps: Any
) -> RawServer:
    server = RawServer(project, tmp_path / "data", {"AGENTLS_ABORT_TIMEOUT": "0"})
    server.initialize({"config": agent_config(*models, permission={"bash": "allow"})}, **caps)
    return server


def is_event(kind: str) -> Any:
    return lambda m: m.get("method") == "agent/event" and m["params"]["type"] == kind


@pytest.mark.parametrize("client", ["plugin", "stock"])
def test_an_abort_that_does_not_stop_the_turn_in_time_warns(
    tmp_path: Path, project: Path, models: tuple[FakeModelServer, FakeModelServer], client: str
) -> None:
    caps: dict[str, Any] = {"experimental": {"agent": {"version": 1}}} if client == "plugin" else {}
    server = start(tmp_path, project, models, **caps)
    try:
        session = server.request("agent/session/create", {})
        parts = [{"type": "text", "text": "sleep"}]
        server.send("agent/session/prompt", {"sessionID": session["id"], "parts": parts})
        wait_until(lambda: processes_with(f"sleep {MARKER}"))  # the tool runs: the turn cannot stop at once
        abort = server.send("agent/session/abort", {"sessionID": session["id"]})
        if client == "plugin":
            event = server.next(is_event("agent.warning"))["params"]["properties"]
            assert event["kind"] == "abort" and event["sessionID"] == session["id"]
            assert "did not stop within 0 s of the abort" in event["message"]
        else:
            shown = server.next(
                lambda m: m.get("method") == "window/showMessage" and m["params"]["type"] == 2
            )
            assert "did not stop within 0 s of the abort" in shown["params"]["message"]
        assert "error" not in server.answer(abort)  # the warning comes first: the abort then answers
    finally:
        server.close()
