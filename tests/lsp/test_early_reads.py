"""The reads a chat opens with (the session list, a session, a page of its transcript, its todos) are
answered from the store while the rest of the agent still loads (issue #44: a cold chat waited for
the whole agent before showing its transcript); everything else still waits for the agent.

The agent is held open by an MCP server that does not answer until the test lets it go (it waits
for a file), so "still loading" is a state the test controls, not a race it hopes to win.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from core import ids
from core.message.models import (
    ModelRef,
    PartTime,
    Session,
    SessionTime,
    TextPart,
    UserMessage,
    UserTime,
    now_ms,
)
from core.storage import DB_NAME, Store
from tests.lsp.editor import PLUGIN, serve_command, start

GATE = "import os, sys, time\nwhile not os.path.exists(sys.argv[1]): time.sleep(0.02)\n"


def slow_agent(gate: Path) -> dict[str, Any]:
    """initializationOptions whose MCP server holds the agent's opening until ``gate`` exists (then
    exits: the server is skipped and reported)."""
    command = [sys.executable, "-c", GATE, str(gate)]
    return {"config": {"mcp": {"slow": {"type": "local", "command": command}}}}


async def seed(data_dir: Path, project: Path, messages: int) -> str:
    """A session of ``messages`` user messages for ``project`` (resolved) in the store; its id."""
    store = await Store.open(data_dir / DB_NAME)
    try:
        proj = await store.ensure_project(project)
        now = now_ms()
        session = Session(
            id=ids.ascending("ses"),
            projectID=proj.id,
            title="stored before the server started",
            directory=str(project),
            time=SessionTime(created=now, updated=now),
        )
        await store.insert_session(session)
        for i in range(messages):
            mid = ids.ascending("msg")
            model = ModelRef(providerID="fake", modelID="m")
            user = UserMessage(
                id=mid, sessionID=session.id, time=UserTime(created=now), agent="build", model=model
            )
            await store.upsert_message(user)
            part = TextPart(
                id=ids.ascending("prt"), sessionID=session.id, messageID=mid, text=f"question {i}",
                time=PartTime(start=now, end=now),
            )  # fmt: skip
            await store.upsert_parts([part])
        return session.id
    finally:
        await store.close()


async def test_the_chats_first_reads_are_answered_while_the_agent_loads(tmp_path: Path) -> None:
    project, data = tmp_path / "project", tmp_path / "data"
    project.mkdir()
    data.mkdir()
    session = await seed(data, await asyncio.to_thread(project.resolve), 120)
    gate = tmp_path / "let-the-agent-open"
    # The agent waits for its MCP server, which waits for the gate (then exits: skipped, reported).
    options = {
        "config": {"mcp": {"slow": {"type": "local", "command": [sys.executable, "-c", GATE, str(gate)]}}}
    }
    client, _, _ = await start(serve_command(), project, data, PLUGIN, options)
    try:

        async def call(method: str, params: Any) -> Any:
            return await asyncio.wait_for(client.protocol.send_request_async(method, params), 30)

        needs_agent = asyncio.ensure_future(call("agent/config", {}))
        listed = await call("agent/session/list", {"limit": 1})
        assert [s["id"] for s in listed["sessions"]] == [session]
        page = await call("agent/session/messages", {"sessionID": session, "limit": 100})
        texts = [m["parts"][0]["text"] for m in page["messages"]]
        assert texts == [f"question {i}" for i in range(20, 120)], "the last 100, oldest first"
        got = await call("agent/session/get", {"sessionID": session})
        assert got["title"] == "stored before the server started"
        assert await call("agent/session/todo", {"sessionID": session}) == {"todos": []}
        assert not needs_agent.done(), "agent/config waits for the agent, which is still loading"
        gate.touch()
        config = await needs_agent
        assert config["models"] is not None
        # Once the agent is open it answers the reads itself: the same answer.
        assert (await call("agent/session/list", {"limit": 1}))["sessions"][0]["id"] == session
    finally:
        gate.touch()
        await client.shutdown_session()
        await client.stop()


async def test_an_unknown_session_is_an_error_before_the_agent_has_loaded(tmp_path: Path) -> None:
    project, data = tmp_path / "project", tmp_path / "data"
    project.mkdir()
    data.mkdir()
    gate = tmp_path / "let-the-agent-open"
    options = {
        "config": {"mcp": {"slow": {"type": "local", "command": [sys.executable, "-c", GATE, str(gate)]}}}
    }
    client, _, _ = await start(serve_command(), project, data, PLUGIN, options)
    try:
        for method in ("agent/session/messages", "agent/session/get", "agent/session/todo"):
            request = client.protocol.send_request_async(method, {"sessionID": "ses_nope"})
            try:
                await asyncio.wait_for(request, 30)
            except Exception as exc:  # the JSON-RPC error the agent would give, not a hang
                assert "ses_nope" in str(exc), (method, exc)
            else:
                raise AssertionError(f"{method} answered for an unknown session")
    finally:
        gate.touch()
        await client.shutdown_session()
        await client.stop()
