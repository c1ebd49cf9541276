"""A local MCP server starts confined like a command (unless its config says ``"sandbox": false``):
a real stdio server whose tool writes a file, under a real bubblewrap."""

from __future__ import annotations

import shutil
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from core.config.schema import Config
from core.sandbox.sandbox import Sandbox
from core.tools.context import ToolContext
from core.tools.mcp import McpManager
from core.tools.runner import run_tool

SERVER = Path(__file__).parents[2] / "fixtures" / "mcp" / "write_server.py"

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed here")

Write = Callable[[Path], Awaitable[str]]


@asynccontextmanager
async def writer(project: Path, ctx: ToolContext, **server: object) -> AsyncIterator[Write]:
    config = Config.model_validate(
        {"mcp": {"w": {"type": "local", "command": [sys.executable, str(SERVER)], **server}}}
    )
    sandbox = Sandbox(config.sandbox, [project], lambda message, session: None)
    manager = McpManager(config.mcp, cwd=project, sandbox=sandbox)
    await manager.start()
    assert manager.connected == ["w"], manager.warnings
    (tool,) = manager.tools()

    async def write(path: Path) -> str:
        return (await run_tool(tool, {"path": str(path), "text": "x"}, ctx)).output

    try:
        yield write
    finally:
        await manager.close()


async def test_a_sandboxed_server_writes_only_inside_the_project(
    project: Path, tmp_path: Path, ctx: ToolContext
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    async with writer(project, ctx) as write:
        assert await write(project / "inside.txt") == "written"
        assert "Read-only file system" in await write(outside / "no.txt")
    assert (project / "inside.txt").exists() and not (outside / "no.txt").exists()


async def test_a_server_configured_unsandboxed_writes_anywhere(
    project: Path, tmp_path: Path, ctx: ToolContext
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    async with writer(project, ctx, sandbox=False) as write:
        assert await write(outside / "yes.txt") == "written"
    assert (outside / "yes.txt").exists()
