"""The sandbox's way out to the network: an HTTP proxy agentls runs on a Unix socket, reached from
inside a sandbox without network through its zygote's relay (``zygote.py``: 127.0.0.1:PORT in the
sandbox's own network namespace → this socket).

A command's ``HTTP_PROXY`` / ``HTTPS_PROXY`` carry a token of its own as the proxy user name, so each
connection is judged for the command that made it: a host on ``sandbox.network.allow`` passes, any
other is asked for (``network`` permission, pattern the host name: the rules, "always" approvals and
dialogs of the session that runs the command), and a refused one gets ``403`` with a reason that
``blocked.py`` recognises. ``CONNECT host:port`` (HTTPS, anything tunnelled) and absolute-form
``GET http://host/…`` requests are served; the bytes are passed on as they are.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import fnmatch
import logging
import secrets
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from urllib.parse import urlsplit

log = logging.getLogger(__name__)

AskHost = Callable[[str], Awaitable[bool]]
HEAD_LIMIT = 64 * 1024
CONNECT_TIMEOUT_S = 30.0
REFUSED = "Blocked by the agentls sandbox"
_PHRASES = {400: "Bad Request", 403: "Forbidden", 407: "Proxy Authentication Required"}


def host_allowed(host: str, allow: Sequence[str]) -> bool:
    """Whether ``host`` matches an entry of the allow-list (``*.example.com`` matches subdomains)."""
    host = host.lower().rstrip(".")
    return any(fnmatch.fnmatchcase(host, entry.lower()) for entry in allow)


class HostProxy:
    """One proxy per agentls process, on ``path``; commands register while they run."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._server: asyncio.AbstractServer | None = None
        self._commands: dict[str, tuple[Sequence[str], AskHost | None]] = {}

    async def start(self) -> None:
        """Listen (once)."""
        if self._server is None:
            self.path.unlink(missing_ok=True)
            self._server = await asyncio.start_unix_server(self._serve, path=str(self.path))

    def register(self, allow: Sequence[str], ask: AskHost | None) -> str:
        """A token for one command: its connections are judged by ``allow``, then ``ask``."""
        token = secrets.token_hex(16)
        self._commands[token] = (tuple(allow), ask)
        return token

    def forget(self, token: str) -> None:
        """The command ended: its token opens nothing any more."""
        self._commands.pop(token, None)

    async def close(self) -> None:
        """Stop listening."""
        if self._server is not None:
            self._server.close()
            self._server = None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
            writer.close()
            return
        try:
            await self._handle(head, reader, writer)
        except (ConnectionError, OSError) as exc:
            log.debug("sandbox proxy: %s", exc)
        finally:
            writer.close()

    async def _handle(self, head: bytes, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        lines = head.decode("latin-1").split("\r\n")
        method, target, *_ = [*lines[0].split(" "), "", ""]
        headers = [line for line in lines[1:] if line]
        command = self._commands.get(_token(headers) or "")
        if command is None:
            await _answer(writer, 407, 'Proxy-Authenticate: Basic realm="agentls"\r\n')
            return
        if method == "CONNECT":
            host, _, port = target.rpartition(":")
            host = host.strip("[]")
        else:
            url = urlsplit(target)
            host, port = url.hostname or "", str(url.port or 80)
        if not host or not port.isdigit():
            await _answer(writer, 400)
            return
        allow, ask = command
        if not host_allowed(host, allow) and not (ask is not None and await ask(host)):
            await _answer(writer, 403, reason=f"{REFUSED}: {host} is not on sandbox.network.allow")
            return
        try:
            upstream_reader, upstream = await asyncio.wait_for(
                asyncio.open_connection(host, int(port)), CONNECT_TIMEOUT_S
            )
        except (OSError, TimeoutError) as exc:
            await _answer(writer, 502, reason=f"Cannot reach {host}:{port}: {exc}")
            return
        if method == "CONNECT":
            writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        else:
            upstream.write(_origin_form(method, target, lines[0], headers))
        await _pipe(reader, writer, upstream_reader, upstream)


def _token(headers: list[str]) -> str | None:
    for header in headers:
        name, _, value = header.partition(":")
        if name.strip().lower() == "proxy-authorization":
            scheme, _, encoded = value.strip().partition(" ")
            if scheme.lower() == "basic":
                with contextlib.suppress(ValueError):
                    return base64.b64decode(encoded).decode().partition(":")[2] or None
    return None


def _origin_form(method: str, target: str, request_line: str, headers: list[str]) -> bytes:
    url = urlsplit(target)
    path = (url.path or "/") + (f"?{url.query}" if url.query else "")
    version = request_line.rsplit(" ", 1)[-1]
    kept = "".join(f"{h}\r\n" for h in headers if not h.lower().startswith(("proxy-", "connection:")))
    return f"{method} {path} {version}\r\n{kept}Connection: close\r\n\r\n".encode("latin-1")


async def _answer(writer: asyncio.StreamWriter, status: int, extra: str = "", reason: str = "") -> None:
    phrase = reason or _PHRASES.get(status, "")
    body = f"{phrase}\n".encode()
    head = f"HTTP/1.1 {status} {phrase}\r\n{extra}Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    writer.write(head.encode() + body)
    await writer.drain()


async def _pipe(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    upstream_reader: asyncio.StreamReader,
    upstream: asyncio.StreamWriter,
) -> None:
    async def copy(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError, OSError):
            while data := await source.read(65536):
                sink.write(data)
                await sink.drain()
        with contextlib.suppress(OSError, RuntimeError):
            if sink.can_write_eof():
                sink.write_eof()

    try:
        await asyncio.gather(copy(reader, upstream), copy(upstream_reader, writer))
    finally:
        upstream.close()
