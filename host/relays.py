"""Relayed sessions: an attached `agentls serve` or `agentls acp` is a byte relay (standard
library only), and its LSP or ACP session runs here, in the host, so pygls, the ACP library, the
core and the store are paid once for every editor.

A relay's first line is a ``hello`` like any front end's (the same protocol, version and
environment checks) with ``relay: {kind, editorPid, cwd}``; once it is answered the connection
carries the editor's own byte stream both ways. The session is the front end's module named for
its kind in ``agentls.boot.HOSTED_SESSIONS`` (``serve_relay(relay, reader, writer)``), imported
when the first relay of that kind attaches. Its agent attaches to this host over the host's own
socket, exactly as an external front end does, so what it lends, who watches, dialogs and
``by`` work unchanged. A session that fails closes its relay only.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentls.boot import HOSTED_SESSIONS
from core.remote.connection import RemoteError
from core.remote.wire import encode
from host.front_end import FrontEnd
from host.hub import Hub

log = logging.getLogger(__name__)

BAD_RELAY = -32018  # a relay hello of an unknown kind or with unusable fields


@dataclass(frozen=True)
class Relay:
    """One relayed session: what its relay said in its hello."""

    kind: str  # "lsp" (agentls.boot.HOSTED_SESSIONS)
    pid: int  # the relay's process (the one its editor started)
    editor_pid: int | None  # the editor's, when the relay knows it
    cwd: Path  # the relay's working folder
    client: str
    data_dir: Path  # this host's: the session's agent attaches here


Session = Callable[[Relay, asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


def wanted(first: dict[str, Any] | None) -> bool:
    """Whether a connection's first message is a relay's hello."""
    params = first.get("params") if first else None
    return bool(first and first.get("method") == "hello" and isinstance(params, dict) and "relay" in params)


def read_relay(params: dict[str, Any], data_dir: Path, kinds: Mapping[str, str]) -> Relay:
    """The hello's ``relay``; RemoteError names what is wrong in it."""
    relay = params.get("relay")
    if not isinstance(relay, dict) or relay.get("kind") not in kinds:
        raise RemoteError(BAD_RELAY, f"relay.kind must be one of {', '.join(sorted(kinds))}")
    editor, pid, cwd = relay.get("editorPid"), params.get("pid"), relay.get("cwd")
    if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0:
        raise RemoteError(BAD_RELAY, "a relay's hello needs its pid")
    if not isinstance(cwd, str) or not cwd.startswith("/"):
        raise RemoteError(BAD_RELAY, "relay.cwd must be an absolute path")
    return Relay(
        kind=str(relay["kind"]),
        pid=pid,
        editor_pid=editor if isinstance(editor, int) and not isinstance(editor, bool) else None,
        cwd=Path(cwd),
        client=str(params.get("client") or f"agentls {relay['kind']}"),
        data_dir=data_dir,
    )


async def serve(
    hub: Hub,
    first: dict[str, Any],
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    remote: bool = False,
    kinds: Mapping[str, str] = HOSTED_SESSIONS,
) -> None:
    """Answer a relay's hello, then run its session on the connection until either ends."""
    params = first.get("params") or {}
    msg_id = first.get("id")
    greeter = FrontEnd(hub, reader, writer, remote)  # the hello's checks: the same as any front end's
    try:
        relay = read_relay(params, hub.data_dir, kinds)
        answer = greeter.greet(params)
    except RemoteError as exc:
        log.warning("host: refused a relay: %s", exc)
        writer.write(
            encode({"jsonrpc": "2.0", "id": msg_id, "error": {"code": exc.code, "message": str(exc)}})
        )
        with contextlib.suppress(OSError):
            await writer.drain()
        writer.close()
        return
    hub.front_ends.discard(greeter)  # counted as a relay: its session's own attach is the front end
    hub.relays.add(relay)
    hub.changed.set()
    log.info("host: a %s relay (pid %s, editor %s) attached", relay.kind, relay.pid, relay.editor_pid)
    try:
        writer.write(encode({"jsonrpc": "2.0", "id": msg_id, "result": {**answer, "relay": relay.kind}}))
        # (On a thread: the first LSP relay's module imports pygls, most of a second of CPU.)
        module = await asyncio.to_thread(importlib.import_module, kinds[relay.kind])
        session: Session = module.serve_relay
        await session(relay, reader, writer)
    except Exception:  # one session's bug closes its relay, never the host
        log.exception("host: the %s session of relay pid %s failed", relay.kind, relay.pid)
    finally:
        hub.relays.discard(relay)
        hub.changed.set()
        with contextlib.suppress(OSError, RuntimeError):
            writer.close()
        log.info("host: the %s relay (pid %s) closed", relay.kind, relay.pid)
