"""A long bash command is checked without holding the server: the real server over stdio, the fake
model proposing the command, another request timed while the check runs."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from typing import Any

import pytest

from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.lsp.conftest import Connected, agent_config


@pytest.fixture
def model() -> Iterator[FakeModelServer]:
    """The model on its own thread: it reads every request the server sends it, each holding the
    1 MB call, and the client timing the server must not wait for that."""
    with FakeModelServer.threaded() as srv:
        yield srv


@pytest.fixture
def options(model: FakeModelServer, title_model: FakeModelServer) -> Any:
    return {"config": agent_config(model, title_model)}


def chain(size: int) -> str:
    """``echo``s joined by ``&&``: many short commands, the costliest shape per character."""
    parts: list[str] = []
    total = 0
    while total < size:
        parts.append(f"echo step{len(parts)}")
        total += len(parts[-1]) + 4
    return " && ".join(parts)


# command → the permission its first dialog asks for
COMMANDS = {
    "60 KB": ("echo '" + "x" * 60_000 + "' > out.txt", "unknown_path"),
    "1 MB": (chain(1_000_000), "unknown_path"),
    "9 KB, analysed": (chain(9_000) + " && cat .env", "read"),  # read fully: .env is found
}


@pytest.mark.parametrize("size", list(COMMANDS))
async def test_other_requests_are_answered_while_a_long_command_is_checked(
    plugin: Connected, model: FakeModelServer, size: str
) -> None:
    command, permission = COMMANDS[size]
    (plugin.root / ".env").write_text("TOKEN=x\n")
    model.script(Turn.tool_call("bash", {"command": command}), Turn.text("Stopped."))
    sid = str((await plugin.call("agent/session/create", {}))["id"])
    parts = [{"type": "text", "text": "run it"}]
    prompt = asyncio.ensure_future(plugin.call("agent/session/prompt", {"sessionID": sid, "parts": parts}))
    latencies: list[float] = []

    async def answered() -> None:
        start = time.perf_counter()
        await plugin.call("agent/session/list", {})
        latencies.append(time.perf_counter() - start)

    asked: list[dict[str, Any]] = []
    async with asyncio.timeout(60):
        while not asked and not prompt.done():
            await answered()
            asked = plugin.events("permission.asked")
    assert asked, "the command asked nothing"
    request = asked[0]["properties"]["request"]
    assert request["permission"] == permission, request
    if permission == "unknown_path":  # over the size limit: asked whole, with a title that says why
        assert "characters long" in request["title"] and len(request["title"]) < 600
        # and carries the line once (the pattern the rules match), not in its always and metadata
        assert len(json.dumps(asked[0])) < len(command) + 2_000
    await plugin.call("agent/permission/reply", {"requestID": request["id"], "reply": "reject"})
    async with asyncio.timeout(30):  # the refusal goes back to the model with the call in its history
        while not prompt.done():
            await answered()
    await prompt
    # Every other request is answered while the call arrives, is checked, and is sent back to the
    # model: from the first token of the call to the end of the turn. The checker on the loop held
    # the server 7-24 s for these lines; the bound catches that, not the 100 ms goal, which is a
    # figure of bench/long_call.py (a timed bound here failed whenever another job shared the cores).
    slowest = max(latencies)
    assert slowest < 1.0, f"slowest answer while checking {size}: {slowest * 1000:.0f} ms"
