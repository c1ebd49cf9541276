"""The loopback redirect of an MCP server's OAuth login (RFC 8252 §7.3): a one-request HTTP listener
on 127.0.0.1 at a free port that takes the browser's redirect back from the authorization server
and hands its ``code`` on — once its ``state`` matched the one this login sent, so a stale or
forged redirect is refused. The browser gets a short page saying what happened.
"""

from __future__ import annotations

import asyncio
import html
import logging
from types import TracebackType
from urllib.parse import parse_qs, urlsplit

from mcp.client.auth import AuthorizationCodeResult

from core.errors import InvalidInputError

log = logging.getLogger(__name__)

PATH = "/callback"


class LoginError(InvalidInputError):
    """An MCP server's login did not complete (refused, timed out, a mismatched redirect)."""


class LoopbackRedirect:
    """Listens on 127.0.0.1 for one redirect; ``async with`` opens and closes the port."""

    def __init__(self, timeout: float, port: int = 0) -> None:
        self.timeout = timeout
        self._server: asyncio.Server | None = None
        self._port = port  # 0: a free one
        self._state: str | None = None
        self._result: asyncio.Future[AuthorizationCodeResult] | None = None

    async def __aenter__(self) -> LoopbackRedirect:
        self._result = asyncio.get_running_loop().create_future()
        try:
            self._server = await asyncio.start_server(self._serve, "127.0.0.1", self._port)
        except OSError as exc:
            raise LoginError(f"cannot listen for the redirect on 127.0.0.1:{self._port} ({exc})") from None
        self._port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    @property
    def uri(self) -> str:
        """The redirect URI to register and send."""
        return f"http://127.0.0.1:{self._port}{PATH}"

    def expect(self, authorization_url: str) -> None:
        """Remember the ``state`` of the authorization URL the user is sent to."""
        states = parse_qs(urlsplit(authorization_url).query).get("state")
        self._state = states[0] if states else None

    async def wait(self) -> AuthorizationCodeResult:
        """The code the redirect carried; LoginError when refused, mismatched or too late."""
        assert self._result is not None, "enter the listener first"
        try:
            return await asyncio.wait_for(asyncio.shield(self._result), self.timeout)
        except TimeoutError:
            raise LoginError(
                f"no answer from the browser within {self.timeout:g} s: the login was not completed"
            ) from None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
        except (TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            writer.close()
            return
        parts = request.split(b"\r\n", 1)[0].decode("latin-1").split()
        target = urlsplit(parts[1]) if len(parts) == 3 and parts[0] == "GET" else None
        if target is None or target.path != PATH or self._result is None or self._result.done():
            await _answer(writer, 404, "Not the redirect agentls waits for.")
            return
        query = {k: v[0] for k, v in parse_qs(target.query).items()}
        outcome = self._judge(query)
        if isinstance(outcome, LoginError):
            self._result.set_exception(outcome)
            await _answer(writer, 400, f"The login failed: {outcome}")
        else:
            self._result.set_result(outcome)
            await _answer(writer, 200, "You are logged in. You can close this tab and go back to agentls.")

    def _judge(self, query: dict[str, str]) -> AuthorizationCodeResult | LoginError:
        if self._state is None or query.get("state") != self._state:
            log.warning("MCP login: a redirect whose state is not this login's was refused")
            return LoginError(
                "the redirect's state does not match this login's (a stale or forged redirect): "
                "nothing was stored; run the login again"
            )
        if "error" in query:
            said = query.get("error_description")
            return LoginError(
                f"the authorization server refused: {query['error']}" + (f" ({said})" if said else "")
            )
        if not query.get("code"):
            return LoginError("the redirect carried no authorization code")
        return AuthorizationCodeResult(code=query["code"], state=query["state"], iss=query.get("iss"))


async def _answer(writer: asyncio.StreamWriter, status: int, text: str) -> None:
    body = f"<!doctype html><title>agentls</title><p>{html.escape(text)}</p>".encode()
    reason = {200: "OK", 400: "Bad Request", 404: "Not Found"}[status]
    head = f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/html; charset=utf-8\r\n"
    writer.write(f"{head}Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode() + body)
    try:
        await writer.drain()
    finally:
        writer.close()
