"""MCP servers end to end: the tiny echo server over stdio, streamable HTTP and SSE, and failing servers."""

from __future__ import annotations

import asyncio
import os
import re
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from core.config.schema import Config
from core.errors import AbortedError, ToolError
from core.tools.context import ToolContext
from core.tools.mcp import McpManager, tool_id
from core.tools.runner import run_tool
from tests.unit.tools.conftest import Recorder

SERVER = Path(__file__).parents[2] / "fixtures" / "mcp" / "echo_server.py"


def mcp_config(servers: dict[str, object]) -> Config:
    return Config.model_validate({"mcp": servers})


@pytest.fixture
async def manager() -> AsyncIterator[McpManager]:
    config = mcp_config({"echo": {"type": "local", "command": [sys.executable, str(SERVER)]}})
    started = McpManager(config.mcp)
    await started.start()
    yield started
    await started.close()


async def test_tools_appear_with_ids_and_schemas(manager: McpManager) -> None:
    assert manager.warnings == []
    assert manager.connected == ["echo"]
    tools = {t.id: t for t in manager.tools()}
    assert sorted(tools) == ["echo_add", "echo_block", "echo_echo", "echo_fail"]
    spec = tools["echo_echo"].spec()
    assert spec["name"] == "echo_echo"
    assert spec["description"] == "Repeat the text."
    assert spec["parameters"]["required"] == ["text"]
    assert spec["parameters"]["properties"]["times"]["type"] == "integer"


async def test_instructions_given_at_initialize_are_kept(manager: McpManager) -> None:
    assert manager.instructions == {}  # the echo server gives none unless asked to
    told = " Look things up with echo_echo first.\n"
    config = mcp_config(
        {
            "docs": {
                "type": "local",
                "command": [sys.executable, str(SERVER)],
                "environment": {"ECHO_INSTRUCTIONS": told},
            }
        }
    )
    docs = McpManager(config.mcp)
    try:
        await docs.start()
        assert docs.instructions == {"docs": "Look things up with echo_echo first."}
    finally:
        await docs.close()


async def test_call_end_to_end(manager: McpManager, ctx: ToolContext, recorder: Recorder) -> None:
    tools = {t.id: t for t in manager.tools()}
    result = await run_tool(tools["echo_echo"], {"text": "hi", "times": 3}, ctx)
    assert result.output == "hi hi hi"
    assert result.metadata == {"server": "echo", "tool": "echo"}
    assert (await run_tool(tools["echo_add"], {"a": 2, "b": 40}, ctx)).output == "42"
    assert [(a.permission, a.patterns) for a in recorder.asks] == [("echo_echo", ["*"]), ("echo_add", ["*"])]


async def test_server_errors_are_tool_errors(manager: McpManager, ctx: ToolContext) -> None:
    tools = {t.id: t for t in manager.tools()}
    with pytest.raises(ToolError, match="disk on fire"):
        await run_tool(tools["echo_fail"], {"reason": "disk on fire"}, ctx)
    with pytest.raises(ToolError, match="echo"):
        await run_tool(tools["echo_add"], {"a": "not a number", "b": 1}, ctx)


async def test_abort_stops_a_call_in_flight(manager: McpManager, ctx: ToolContext) -> None:
    tools = {t.id: t for t in manager.tools()}
    call = asyncio.create_task(run_tool(tools["echo_block"], {}, ctx))
    ctx.abort.set()
    with pytest.raises(AbortedError):
        await asyncio.wait_for(call, 10)


async def test_failing_servers_are_skipped_with_a_warning(tmp_path: Path) -> None:
    crash = tmp_path / "crash.py"
    crash.write_text("import sys\nsys.exit(3)\n")
    config = mcp_config(
        {
            "missing": {"type": "local", "command": [str(tmp_path / "no-such-binary")]},
            "crashes": {"type": "local", "command": [sys.executable, str(crash)]},
            "off": {"type": "local", "command": ["whatever"], "enabled": False},
            "echo": {"type": "local", "command": [sys.executable, str(SERVER)]},
            "remote": {"type": "remote", "url": "http://127.0.0.1:9/mcp"},
        }
    )
    manager = McpManager(config.mcp, connect_timeout=20)
    try:
        await manager.start()
        assert manager.connected == ["echo"]
        assert {t.id for t in manager.tools()} == {"echo_add", "echo_block", "echo_echo", "echo_fail"}
        assert len(manager.warnings) == 3
        for name in ("missing", "crashes", "remote"):
            assert any(f"MCP server {name!r} skipped" in w for w in manager.warnings)
    finally:
        await manager.close()


async def test_a_hanging_server_times_out(tmp_path: Path) -> None:
    hang = tmp_path / "hang.py"
    hang.write_text("import sys\nsys.stdin.read()\n")
    config = mcp_config({"hang": {"type": "local", "command": [sys.executable, str(hang)]}})
    manager = McpManager(config.mcp, connect_timeout=0.5)
    try:
        await manager.start()
        assert manager.tools() == []
        assert "no answer within 0.5 s" in manager.warnings[0]
    finally:
        await manager.close()


@asynccontextmanager
async def serving(
    transport: str, path: str, server: Path = SERVER, env: dict[str, str] | None = None
) -> AsyncIterator[str]:
    """A test server (the echo one) over ``--http`` or ``--sse`` on a free port, ready once uvicorn
    says where; ``env``: more variables for it."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        str(server),
        transport,
        "0",
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, **(env or {})},
    )
    assert proc.stderr is not None
    try:
        async with asyncio.timeout(30):
            while True:
                line = (await proc.stderr.readline()).decode()
                if not line:
                    raise RuntimeError("the MCP HTTP server exited before listening")
                found = re.search(r"running on (http://127\.0\.0\.1:\d+)", line)
                if found:
                    break
        drain = asyncio.create_task(proc.stderr.read())  # keep the pipe from filling up
        yield f"{found.group(1)}{path}"
    finally:
        proc.terminate()
        await proc.wait()
    await drain


@pytest.fixture
async def http_server() -> AsyncIterator[str]:
    async with serving("--http", "/mcp") as url:
        yield url


@pytest.fixture
async def sse_server() -> AsyncIterator[str]:
    async with serving("--sse", "/sse") as url:
        yield url


async def test_remote_server_over_streamable_http(http_server: str, ctx: ToolContext) -> None:
    config = mcp_config({"web": {"type": "remote", "url": http_server, "headers": {"X-Test": "1"}}})
    manager = McpManager(config.mcp)
    try:
        await manager.start()
        assert manager.warnings == []
        tools = {t.id: t for t in manager.tools()}
        result = await run_tool(tools["web_echo"], {"text": "over http"}, ctx)
        assert result.output == "over http"
    finally:
        await manager.close()


async def test_remote_server_over_sse(sse_server: str, ctx: ToolContext) -> None:
    server = {"type": "remote", "url": sse_server, "transport": "sse", "headers": {"X-Test": "1"}}
    manager = McpManager(mcp_config({"old": server}).mcp)
    try:
        await manager.start()
        assert manager.warnings == [] and manager.connected == ["old"]
        tools = {t.id: t for t in manager.tools()}
        result = await run_tool(tools["old_add"], {"a": 2, "b": 40}, ctx)
        assert result.output == "42"
    finally:
        await manager.close()


async def test_an_sse_server_spoken_to_as_streamable_http_is_skipped_with_a_warning(sse_server: str) -> None:
    manager = McpManager(mcp_config({"old": {"type": "remote", "url": sse_server}}).mcp, connect_timeout=10)
    try:
        await manager.start()
        assert manager.tools() == []
        assert manager.warnings and "'old' skipped" in manager.warnings[0], manager.warnings
    finally:
        await manager.close()


def test_tool_ids_are_provider_safe() -> None:
    assert tool_id("my server", "do.thing") == "my_server_do_thing"
    assert len(tool_id("s" * 40, "t" * 40)) == 64


async def test_close_without_start_and_twice() -> None:
    manager = McpManager({})
    await manager.start()
    await manager.close()
    await manager.close()
