"""``agentls mcp login|logout``: the front ends' door to a remote MCP server's OAuth login, without an
agent — the server is found in the project's resolved config (an untrusted project's own servers
are not there), logged in to through the browser (``core.tools.mcp_auth``), or its tokens deleted.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path

from core.config.loader import load_config
from core.config.schema import McpRemote
from core.errors import InvalidInputError, NotFoundError
from core.tools.mcp_redirect import LoginError
from core.tools.mcp_tokens import forget, token_file

__all__ = ["LoginError", "login", "logout", "token_file"]

LOGIN_TIMEOUT = 300.0


async def _remote(directory: Path, name: str) -> McpRemote:
    resolved = await asyncio.to_thread(load_config, directory)
    servers = resolved.config.mcp
    if name not in servers:
        known = ", ".join(sorted(servers)) or "none"
        raise NotFoundError(f"no MCP server {name!r} is configured here (configured: {known})")
    cfg = servers[name]
    if not isinstance(cfg, McpRemote):
        raise InvalidInputError(f"{name} is a local MCP server: only remote (HTTP) servers log in")
    return cfg


async def login(
    directory: Path, name: str, open_url: Callable[[str], Awaitable[None]], timeout: float = LOGIN_TIMEOUT
) -> str:
    """Log in to the remote server ``name`` of the project at ``directory``: "logged-in", or
    "not-needed" when it answered without a login. LoginError when the login failed."""
    cfg = await _remote(directory, name)
    from core.tools.mcp_auth import login as run_login  # the MCP SDK: imported when used

    return await run_login(name, cfg, open_url, timeout)


async def logout(directory: Path, name: str) -> bool:
    """Delete the stored tokens of the remote server ``name``; False when there were none."""
    cfg = await _remote(directory, name)
    return await asyncio.to_thread(forget, cfg.url)
