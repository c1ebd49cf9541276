"""``agentls serve --tcp``: one client at a time, and only one that knows the server's token.

An agent that can run commands must not be drivable by whoever reaches a port: every connection
first sends ``initialize`` with ``initializationOptions.token``; anything else is answered
"not authenticated", a wrong or missing token closes the connection, and a connection that opens
with an HTTP request (a browser page, a proxy probe) is closed unanswered. Until it is
authenticated a connection never reaches the server, so it cannot hold the one-client lock.
The token is generated into an owner-only file (its path printed on stderr), or read from a file
(``--token-file``, which must be owner-only) or an environment variable (``--token-env``); those
pieces are core/remote/tcp.py's, which the host's TCP door shares.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
from typing import TYPE_CHECKING, Any

from core.config.paths import data_dir
from core.remote import tcp
from core.remote.tcp import HTTP_REQUEST, Token
from lsp_server.framing import FramingError
from lsp_server.handshake import frame, valid_id
from lsp_server.lifecycle import close_server, install_signals, read_frame
from lsp_server.rpc import dispatch

if TYPE_CHECKING:
    from lsp_server.server import AgentServer

log = logging.getLogger(__name__)

UNAUTHORIZED = -32015  # agentls' own range (lsp_server/errors.py): a missing or wrong token
NOT_AUTHENTICATED = -32002  # LSP ServerNotInitialized: anything sent before an accepted initialize
# A connection gets this long to send its initialize, so idle sockets do not pile up.
FIRST_MESSAGE_S = 30.0


def load_token(token_file: str | None, token_env: str | None) -> Token:
    """The server's token (core/remote/tcp.py); a generated one goes to a file of its own in the
    data folder, removed when the server exits."""
    return tcp.load_token(token_file, token_env, data_dir() / "tcp" / f"{os.getpid()}.token")


class Refusal(Exception):
    """A first message that does not authenticate: what to answer (if anything), and whether to close."""

    def __init__(self, reason: str, answer: dict[str, Any] | None, close: bool) -> None:
        super().__init__(reason)
        self.answer = answer
        self.close = close


def _error(msg_id: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}}


def authenticate(body: bytes, token: Token) -> bytes:
    """The body of an ``initialize`` that carries the token, with the token taken out (it goes no
    further: not into logs, not into the config); Refusal for anything else."""
    try:
        message = json.loads(body)
    except (ValueError, RecursionError) as exc:
        raise Refusal("not JSON", _error(None, -32700, "parse error"), close=True) from exc
    if not isinstance(message, dict):
        raise Refusal("not a JSON-RPC message", _error(None, -32600, "invalid request"), close=True)
    msg_id = message.get("id") if valid_id(message.get("id")) else None
    if message.get("method") != "initialize":
        reason = "not authenticated: the first request must be initialize with initializationOptions.token"
        answer = _error(msg_id, NOT_AUTHENTICATED, reason) if "id" in message else None
        raise Refusal(reason, answer, close=False)
    params = message.get("params")
    options = params.get("initializationOptions") if isinstance(params, dict) else None
    sent = options.get("token") if isinstance(options, dict) else None
    if not token.matches(sent):
        what = "is missing" if sent is None else "is wrong"
        reason = (
            f"agentls serve --tcp: initializationOptions.token {what}; the server's token is in "
            f"{token.source}"
        )
        raise Refusal(reason, _error(msg_id, UNAUTHORIZED, reason), close=True)
    assert isinstance(options, dict) and isinstance(params, dict)
    rest = {key: value for key, value in options.items() if key != "token"}
    return json.dumps({**message, "params": {**params, "initializationOptions": rest}}).encode()


async def first_body(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, token: Token
) -> bytes | None:
    """Read until an authenticated ``initialize`` (its body) or a reason to close (None)."""
    try:
        first_line = await reader.readline()
    except (ValueError, asyncio.LimitOverrunError):  # a first line past the stream's limit
        log.warning("closing an unauthenticated connection: its first line is too long")
        return None
    if HTTP_REQUEST.match(first_line):
        log.warning("an HTTP request on the agentls port (%r): closed", first_line[:60])
        return None
    pending: bytes | None = first_line
    while True:
        try:
            body = await read_frame(reader, pending)
        except FramingError as exc:
            log.warning("closing an unauthenticated connection: broken framing: %s", exc)
            return None
        pending = None
        if body is None:
            return None
        try:
            return authenticate(body, token)
        except Refusal as refusal:
            log.warning("refused a connection's message: %s", refusal)
            if refusal.answer is not None:
                writer.write(frame(refusal.answer))
                await writer.drain()
            if refusal.close:
                return None


async def serve_tcp(server: AgentServer, host: str, port: int, token: Token) -> int:
    """Serve one authenticated client at a time; the agent outlives a client so a reconnect finds
    its dialogs."""
    lock = asyncio.Lock()

    async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            body = await asyncio.wait_for(first_body(reader, writer, token), FIRST_MESSAGE_S)
        except (TimeoutError, ConnectionError):
            body = None
        if body is None:
            writer.close()
            return
        async with lock:
            log.info("client connected")
            await _serve_client(server, reader, writer, body)
            log.info("client disconnected")

    listener = await asyncio.start_server(connection, host, port)
    address = listener.sockets[0].getsockname()
    # The lines a launcher needs (the port, when 0 was asked for); stderr, never stdout.
    print(f"agentls listening on {address[0]}:{address[1]}", file=sys.stderr)
    print(
        f"agentls token in {token.source} (send it as initializationOptions.token)",
        file=sys.stderr,
        flush=True,
    )
    undo_signals = install_signals(server.lifetime)
    try:
        async with listener:
            serving = asyncio.create_task(listener.serve_forever())
            await server.lifetime.stopped.wait()
            serving.cancel()
    finally:
        undo_signals()
        await close_server(server)
        if token.created is not None:
            token.created.unlink(missing_ok=True)
    return server.lifetime.code


async def _serve_client(
    server: AgentServer, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, first: bytes
) -> None:
    protocol = server.protocol
    # A new client starts a new LSP session: pygls' own flag too, or it drops every message.
    protocol._shutdown = False
    protocol.shut_down = False
    protocol.set_writer(writer)
    body: bytes | None = first
    try:
        while body is not None:
            try:
                dispatch(protocol, body)
            except Exception:  # a bug: this client's other messages still get answers
                log.exception("a message from the client could not be handled")
            try:
                body = await read_frame(reader)
            except FramingError as exc:
                log.warning("closing the connection: broken framing from the client: %s", exc)
                break
    except ConnectionError as exc:
        log.info("the client's connection failed: %s", exc)
    finally:
        server.connection.connected = False
        writer.close()
