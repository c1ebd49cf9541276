"""A pending permission survives the client: a new client lists it and answers it late (TCP server)."""

from __future__ import annotations

import asyncio
import re
import secrets
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.lsp.conftest import CALL_TIMEOUT, EVENTS, agent_config
from tests.lsp.editor import PLUGIN, REPO, SERVER, Editor, initialize, make_client, server_env
from tests.lsp.test_editor_queries import EDITOR_TOOLS


@pytest.fixture
async def tcp_server(tmp_path: Path) -> AsyncIterator[tuple[int, str]]:
    """``agentls serve --tcp 127.0.0.1:0``; yields the port it printed on stderr and its token."""
    token = secrets.token_urlsafe(24)
    process = await asyncio.create_subprocess_exec(
        *SERVER,
        "--tcp",
        "127.0.0.1:0",
        "--token-env",
        "AGENTLS_TEST_TOKEN",
        env={**server_env(tmp_path / "data"), "AGENTLS_TEST_TOKEN": token},
        cwd=str(REPO),
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stderr is not None
    try:
        # A bound for a hang (CALL_TIMEOUT), not a measure of speed: a cold start took over 20 s
        # (the old bound) on a 2-core machine at load 17, and the server was then left running.
        async with asyncio.timeout(CALL_TIMEOUT):
            said = b""
            while True:
                line = await process.stderr.readline()
                if found := re.search(rb"listening on [\d.]+:(\d+)", line):
                    port = int(found.group(1))
                    break
                if not line:  # (an ended server's stderr reads b"" at once: no busy wait)
                    raise AssertionError(
                        f"the server ended before it listened: {said.decode(errors='replace')}"
                    )
                said += line
        yield port, token
    finally:
        if process.returncode is None:
            process.terminate()
        await process.wait()


async def connect(server: tuple[int, str], root: Path, options: dict[str, Any]) -> tuple[Any, Editor]:
    client, editor = make_client(EVENTS)
    port, token = server
    await client.start_tcp("127.0.0.1", port)
    await initialize(client, root, PLUGIN, {**options, "token": token})
    return client, editor


def events(editor: Editor, type_: str) -> list[dict[str, Any]]:
    return [e for e in editor.notifications.get("agent/event", []) if e["type"] == type_]


async def test_permission_answered_after_the_client_restarts(
    tcp_server: tuple[int, str], project: Path, model: FakeModelServer, title_model: FakeModelServer
) -> None:
    options = {"config": agent_config(model, title_model, permission={"edit": "ask"})}
    path = project / "hello.py"
    model.script(
        Turn.tool_call("edit", {"filePath": str(path), "oldString": "hello", "newString": "late"}),
        Turn.text("Edited after your answer."),
    )
    first, first_editor = await connect(tcp_server, project, options)
    session = await first.protocol.send_request_async("agent/session/create", {})
    params = {"sessionID": session["id"], "parts": [{"type": "text", "text": "edit it"}]}
    prompt = asyncio.ensure_future(first.protocol.send_request_async("agent/session/prompt", params))
    (asked,) = await first_editor.wait_for(lambda: events(first_editor, "permission.asked"))
    # The editor reloads: the connection drops without an answer.
    prompt.cancel()
    first.protocol.writer.close()
    await first.stop()
    assert path.read_text() == "print('hello')\n"

    second, second_editor = await connect(tcp_server, project, options)
    pending = await second.protocol.send_request_async("agent/permission/list", {})
    assert [r["id"] for r in pending["requests"]] == [asked["properties"]["request"]["id"]]
    assert any("hello.py" in pattern for pattern in pending["requests"][0]["patterns"])
    reply = {"requestID": pending["requests"][0]["id"], "reply": "once"}
    assert await second.protocol.send_request_async("agent/permission/reply", reply) is None
    await second_editor.wait_for(lambda: events(second_editor, "session.idle"))
    assert path.read_text() == "print('late')\n"
    assert second_editor.edits == []  # no buffer shows it in the new client: straight to disk
    messages = await second.protocol.send_request_async(
        "agent/session/messages", {"sessionID": session["id"]}
    )
    assert "Edited after your answer." in str(messages["messages"][-1]["parts"])
    await second.shutdown_session()
    await second.stop()


async def test_a_client_that_reconnects_without_editor_queries_is_not_offered_the_tools(
    tcp_server: tuple[int, str], project: Path, model: FakeModelServer, title_model: FakeModelServer
) -> None:
    options = {"config": agent_config(model, title_model)}
    model.script(Turn.text("first"), Turn.text("second"))
    offered_each: list[set[str]] = []
    for profile in (f"{PLUGIN}+editor:definition", PLUGIN):
        client, _ = make_client(EVENTS)
        port, token = tcp_server
        await client.start_tcp("127.0.0.1", port)
        await initialize(client, project, profile, {**options, "token": token})
        session = await client.protocol.send_request_async("agent/session/create", {})
        params = {"sessionID": session["id"], "parts": [{"type": "text", "text": "hi"}]}
        await asyncio.wait_for(client.protocol.send_request_async("agent/session/prompt", params), 30)
        offered_each.append({t["function"]["name"] for t in model.requests[-1].tools} & EDITOR_TOOLS)
        client.protocol.writer.close()
        await client.stop()
    assert offered_each == [{"editor_definition"}, set()]
