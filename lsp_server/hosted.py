"""An LSP session in the host, for an attached `agentls serve` that relays its editor's bytes
(lsp_server/relay.py; the host side is host/relays.py, which names this module by string).

The session is the full server (``build_server``) bound to the relay's connection: its own
documents, capabilities and chats, its agent attached to this host over the host's own socket as
an external attached serve's is (``AgentServer.hosted``), so it lends its buffers and editor
queries the same way. ``initialize`` is answered from ``handshake`` before the server is built
(the first relay's server imports pygls), with the relay's pid as the server's ``processId``.
The relay watches the editor; the session ends at the relay's end of stream, at ``exit``, or at
broken framing (that relay is closed, nothing else).
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import TYPE_CHECKING, Protocol

from lsp_server.frame_reader import read_frame
from lsp_server.framing import FramingError
from lsp_server.handshake import Early, answerable, frame, read_params, result
from lsp_server.relay import CLOSED, UNTRUSTED

if TYPE_CHECKING:
    from lsp_server.server import AgentServer


class Relay(Protocol):
    """What a session needs of host/relays.py's ``Relay`` (the host names this module, never the
    reverse)."""

    @property
    def pid(self) -> int: ...


log = logging.getLogger(__name__)


async def serve_relay(relay: Relay, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Serve the relay's editor until its stream ends, it says ``exit`` or its framing breaks."""
    try:
        body = await read_frame(reader)
    except FramingError as exc:
        log.warning("relay pid %s: broken framing from the editor: %s", relay.pid, exc)
        _closing(writer, f"broken framing from the editor: {exc}")
        return
    if body is None:
        return
    if _held_back(body):
        # Trust is decided per process (core/trust.py): an editor that has not said it trusts the
        # project (a plugin's ``untrusted: true``; a stock client, whose server asks) would hold the
        # folder back for every front end of this host. Its server runs in the relay's process.
        log.info("relay pid %s: the editor has not trusted the project: its server runs there", relay.pid)
        not_here = {"reason": UNTRUSTED, "here": False}
        writer.write(frame({"jsonrpc": "2.0", "method": CLOSED, "params": not_here}))
        return
    early = _answer(body, relay.pid, writer)
    server = await asyncio.to_thread(_build_server)
    server.watch_parent = False  # the relay watches its editor, and ends the stream when it goes
    server.hosted = True
    server.relay_pid = relay.pid
    from lsp_server.handshake import AnsweredWriter
    from lsp_server.lifecycle import close_server
    from lsp_server.rpc import dispatch

    protocol = server.protocol
    protocol.set_writer(AnsweredWriter(writer, early) if early.body is not None else writer)
    stopped = asyncio.ensure_future(server.lifetime.stopped.wait())
    try:
        while body is not None:
            try:
                dispatch(protocol, body)
            except Exception:  # a bug: this editor's other messages still get answers
                log.exception("relay pid %s: a message from the editor could not be handled", relay.pid)
            reading = asyncio.ensure_future(read_frame(reader))
            await asyncio.wait([reading, stopped], return_when=asyncio.FIRST_COMPLETED)
            if not reading.done():
                reading.cancel()
                break
            try:
                body = reading.result()
            except FramingError as exc:
                log.warning("relay pid %s: closing its session: broken framing: %s", relay.pid, exc)
                _closing(writer, f"broken framing from the editor: {exc}")
                break
    except ConnectionError as exc:
        log.info("relay pid %s: the connection failed: %s", relay.pid, exc)
    finally:
        stopped.cancel()
        server.connection.connected = False  # nothing more goes to an editor that left
        await close_server(server)  # detaches its agent: the host's turns go on


def _held_back(body: bytes) -> bool:
    """Whether the first frame is an ``initialize`` of an editor that has not said it trusts the
    project (``initializationOptions.untrusted`` is not ``false``)."""
    try:
        message = json.loads(body)
    except ValueError:
        return False
    if not isinstance(message, dict) or message.get("method") != "initialize":
        return False
    params = message.get("params")
    options = params.get("initializationOptions") if isinstance(params, dict) else None
    return not (isinstance(options, dict) and options.get("untrusted") is False)


def _closing(writer: asyncio.StreamWriter, reason: str) -> None:
    """Tell the relay its session ends here, and why (lsp_server/relay.py: CLOSED): the host lives."""
    writer.write(frame({"jsonrpc": "2.0", "method": CLOSED, "params": {"reason": reason}}))


def _answer(body: bytes, pid: int, writer: asyncio.StreamWriter) -> Early:
    """``initialize`` answered at once when the first frame is one the full server accepts."""
    try:
        message = json.loads(body)
    except ValueError:
        return Early(pending=b"")
    if not answerable(message):
        return Early(pending=b"")
    answer = result(read_params(message["params"])[0], pid)
    writer.write(frame({"id": message["id"], "jsonrpc": "2.0", "result": answer}))
    return Early(pending=b"", body=body, msg_id=message["id"], answer=answer)


def _build_server() -> AgentServer:
    from lsp_server.features import build_server

    return build_server()
