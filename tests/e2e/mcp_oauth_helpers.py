"""The pieces of the OAuth tests: the SDK's protected MCP server with its own authorization server
(tests/fixtures/mcp/oauth_server.py) in a subprocess, and a "browser" that follows an authorization
URL to the loopback redirect, as a user's browser would after they approved."""

from __future__ import annotations

import asyncio
import os
import secrets
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import httpx

from core.record import record

SERVER = Path(__file__).parents[1] / "fixtures" / "mcp" / "oauth_server.py"


@record
class OAuthServer:
    """A running protected server: its MCP endpoint, and the grants its authorization server saw."""

    url: str
    log: Path

    def grants(self) -> list[str]:
        """One line per registration, authorization and token grant, in order."""
        return self.log.read_text().splitlines() if self.log.exists() else []


@asynccontextmanager
async def oauth_server(folder: Path, **env: str) -> AsyncIterator[OAuthServer]:
    """The protected server on a free port (``env``: OAUTH_TTL, OAUTH_DENY, OAUTH_OPEN)."""
    log = folder / f"grants-{secrets.token_hex(4)}.log"
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        str(SERVER),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        env={**os.environ, "OAUTH_LOG": str(log), **env},
    )
    assert proc.stdout is not None
    try:
        base = (await asyncio.wait_for(proc.stdout.readline(), 30)).decode().strip()
        assert base.startswith("http://127.0.0.1:"), base
        yield OAuthServer(f"{base}/mcp", log)
    finally:
        proc.terminate()
        await proc.wait()


@contextmanager
def protected_server() -> Iterator[str]:
    """``oauth_server`` for a test that is not a coroutine (an editor driven from outside): the
    MCP endpoint's URL."""
    proc = subprocess.Popen(
        [sys.executable, str(SERVER)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    try:
        assert proc.stdout is not None
        yield proc.stdout.readline().strip() + "/mcp"
    finally:
        proc.terminate()
        proc.wait()


async def approve(authorization_url: str, state: str | None = None) -> httpx.Response:
    """Follow the authorization URL (the server approves at once) to its redirect, and load that
    on the loopback listener; ``state``: replace the redirect's state (a forged redirect)."""
    async with httpx.AsyncClient(timeout=30) as client:
        answer = await client.get(authorization_url)
        assert answer.status_code == 302, answer.text
        location = answer.headers["location"]
        if state is not None:
            parts = urlsplit(location)
            query = [(k, state if k == "state" else v) for k, v in parse_qsl(parts.query)]
            location = urlunsplit(parts._replace(query=urlencode(query)))
        return await client.get(location)


class Browser:
    """The user's browser: each URL it is sent to is approved in a task of its own (the login is
    waiting for the redirect meanwhile); ``pages`` are the loopback's answers."""

    def __init__(self, state: str | None = None) -> None:
        self.opened: list[str] = []
        self.pages: list[httpx.Response] = []
        self._state = state
        self._tasks: list[asyncio.Task[None]] = []

    async def open(self, url: str) -> None:
        """Called by the login with the authorization URL."""
        self.opened.append(url)
        self._tasks.append(asyncio.create_task(self._approve(url)))

    async def _approve(self, url: str) -> None:
        self.pages.append(await approve(url, self._state))

    async def settled(self) -> None:
        """Until every page it opened has loaded."""
        await asyncio.gather(*self._tasks)


async def ignore(url: str) -> None:
    """A browser the user never looks at."""
