"""The host's TCP door (``agentls host serve --tcp HOST:PORT``): a front end on another machine, or
behind a forwarded port, attaches with the host's token.

Over TCP no peer credentials say who connects, so the token does: the first line must be the
``hello`` request carrying it (``params.token``, compared in constant time). Anything else first —
another request, a notification, a wrong or missing token, a line that is not JSON — is answered
with an error where there is an id to answer, and the connection is closed; an HTTP request (a
browser page, a proxy's probe) is closed unanswered; a connection that sends no line within
``FIRST_MESSAGE_S`` is closed. Until then the connection never reaches the hub, and its first
line is read with a small limit, so unauthenticated peers cannot make the host hold much.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from typing import Any

from core.remote.tcp import HTTP_REQUEST, Token
from core.remote.wire import UNAUTHORIZED, encode
from host import relays
from host.front_end import FrontEnd
from host.hub import Hub

log = logging.getLogger(__name__)

FIRST_MESSAGE_S = 30.0
HELLO_LIMIT = 64 * 1024  # a hello is a few hundred bytes


class Refused(Exception):
    """A first line that does not let the connection in (``answer``: the error to send, if any)."""

    def __init__(self, reason: str, answer: dict[str, Any] | None) -> None:
        super().__init__(reason)
        self.answer = answer


async def accept(hub: Hub, token: Token, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Serve one TCP connection once its hello carries the token; refuse and close it otherwise."""
    try:
        hello = await asyncio.wait_for(_first_line(reader), FIRST_MESSAGE_S)
        message = authenticate(hello, token)
    except Refused as refused:
        log.warning("host: refused a TCP connection from %s: %s", _peer(writer), refused)
        if refused.answer is not None:
            writer.write(encode(refused.answer))
            with contextlib.suppress(OSError):
                await writer.drain()
        writer.close()
        return
    except (TimeoutError, ConnectionError) as exc:
        why = str(exc) or f"no hello in {FIRST_MESSAGE_S:.0f} s"
        log.warning("host: closed a TCP connection from %s before its hello: %s", _peer(writer), why)
        writer.close()
        return
    if relays.wanted(message):  # an attached serve or acp: its session runs here
        await relays.serve(hub, message, reader, writer, remote=True)
        return
    front = FrontEnd(hub, reader, writer, remote=True)
    serving = asyncio.ensure_future(front.serve(first=message))
    hub.connections[front] = serving
    serving.add_done_callback(lambda _done: hub.connections.pop(front, None))
    await serving


async def _first_line(reader: asyncio.StreamReader) -> bytes:
    """The connection's first line (Refused: too long, or more sent before the hello's answer)."""
    data = b""
    while b"\n" not in data:
        if len(data) > HELLO_LIMIT:
            raise Refused(f"a first line longer than {HELLO_LIMIT} bytes", None)
        chunk = await reader.read(4096)
        if not chunk:
            raise Refused("the connection ended before a hello", None)
        data += chunk
    line, _, rest = data.partition(b"\n")
    if rest:  # a front end waits for the hello's answer before it sends anything more
        raise Refused("more than the hello sent before its answer", None)
    return line


def authenticate(line: bytes, token: Token) -> dict[str, Any]:
    """The hello request in ``line``, its token checked and taken out (it goes no further: not
    into logs, not to the hub); Refused for anything else."""
    if HTTP_REQUEST.match(line):
        raise Refused(f"an HTTP request ({line[:60]!r})", None)
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        raise Refused("a first line that is not JSON", _error(None, -32700, "parse error")) from None
    if not isinstance(message, dict):
        raise Refused("a first line that is not a JSON object", _error(None, -32600, "invalid request"))
    msg_id = message.get("id")
    msg_id = msg_id if isinstance(msg_id, (int, str)) and not isinstance(msg_id, bool) else None
    if message.get("method") != "hello" or msg_id is None:
        reason = "not attached: the first message must be the hello request with the host's token"
        raise Refused(reason, _error(msg_id, UNAUTHORIZED, reason) if "id" in message else None)
    params = message.get("params")
    sent = params.get("token") if isinstance(params, dict) else None
    if not token.matches(sent):
        what = "is missing" if sent is None else "is wrong"
        reason = (
            f"refused: the host's token {what} (the host prints where it keeps it; a front end "
            "sends it from AGENTLS_HOST_TOKEN or AGENTLS_HOST_TOKEN_FILE)"
        )
        raise Refused(reason, _error(msg_id, UNAUTHORIZED, reason))
    assert isinstance(params, dict)
    return {**message, "params": {key: value for key, value in params.items() if key != "token"}}


def _error(msg_id: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}}


def _peer(writer: asyncio.StreamWriter) -> str:
    peer = writer.get_extra_info("peername")
    return f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) else "?"
