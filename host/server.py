"""The host's process: take the data dir's lock, listen on the user's socket, serve front ends,
exit after ``idle_s`` seconds with no front end attached and no agent call running.

The lock (``flock`` on ``host.lock``, released by the kernel when the process dies) is what makes
a host the only one on its data dir; so a socket file found at start is a dead host's and is
replaced. The socket is made mode 0600 (the umask is set before it exists) in a 0700 folder, and
every connection's peer credentials are read (``SO_PEERCRED``): another user's is refused.
With ``--tcp`` it listens on a TCP address as well, where the token stands for the credentials
(host/tcp_door.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import functools
import logging
import os
import signal
import socket
import struct
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from core.errors import AgentError
from core.remote.place import lock_path, socket_path
from core.remote.tcp import TcpHost, Token
from core.remote.wire import MAX_FRAME, WireError, encode, read_message
from host import relays, tcp_door
from host.front_end import FrontEnd
from host.hub import Hub

log = logging.getLogger(__name__)

DEFAULT_IDLE_S = 600.0
FOREIGN_USER = -32014


class HostRunning(AgentError):
    """Another host holds the data dir's lock."""


def take_lock(data_dir: Path, wait: bool = False) -> int:
    """The lock file's descriptor, locked (HostRunning names the host that has it); ``wait``: until
    the host that has it exits (one replaced by a newer agentls, stopping)."""
    data_dir.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock_path(data_dir), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
    except BlockingIOError:
        holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "?"
        os.close(fd)
        raise HostRunning(f"a host already runs on {data_dir} (pid {holder})") from None
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    return fd


def peer_uid(writer: asyncio.StreamWriter) -> int:
    """The user id of the process at the other end of a Unix socket."""
    sock: socket.socket = writer.get_extra_info("socket")
    creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    _pid, uid, _gid = struct.unpack("3i", creds)
    return int(uid)


async def _accept(hub: Hub, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    uid = peer_uid(writer)
    if uid != os.getuid():
        log.warning("host: refused a connection of uid %s", uid)
        message = f"refused: this host serves uid {os.getuid()} only"
        writer.write(
            encode({"jsonrpc": "2.0", "id": None, "error": {"code": FOREIGN_USER, "message": message}})
        )
        with contextlib.suppress(OSError):
            await writer.drain()
        writer.close()
        return
    try:
        first = await read_message(reader)
    except (WireError, ConnectionError) as exc:
        log.warning("host connection: %s", exc)
        writer.close()
        return
    if relays.wanted(first):  # an attached serve or acp: its session runs here
        assert first is not None
        await relays.serve(hub, first, reader, writer)
        return
    front = FrontEnd(hub, reader, writer)
    serving = asyncio.ensure_future(front.serve(first))
    hub.connections[front] = serving
    serving.add_done_callback(lambda _done: hub.connections.pop(front, None))
    await serving


@dataclass(frozen=True)
class TcpListen:
    """Where the host also listens over TCP (``--tcp``), and the token a connection must send."""

    host: str
    port: int
    token: Token


async def serve(
    data_dir: Path,
    idle_s: float = DEFAULT_IDLE_S,
    ready: Callable[[Path, str | None], None] | None = None,
    wait_lock: bool = False,
    tcp: TcpListen | None = None,
) -> None:
    """Run the host of ``data_dir`` until it is stopped or idle; ``ready`` is called with the socket
    (and the TCP address, ``tcp://HOST:PORT``) once it accepts connections; ``wait_lock``: wait for
    a stopping host to let go of the data dir; ``tcp``: listen there too (host/tcp_door.py)."""
    lock = take_lock(data_dir, wait_lock)
    signal.alarm(0)  # the wait for the lock (``--wait-lock``) is over
    try:
        path = socket_path(data_dir)
        path.unlink(missing_ok=True)  # the lock is ours: a socket left here is a dead host's
        hub = Hub(data_dir, idle_s)
        mask = os.umask(0o177)
        try:
            server = await asyncio.start_unix_server(
                functools.partial(_accept, hub), path=path, limit=MAX_FRAME
            )
        finally:
            os.umask(mask)
        servers = [server]
        if tcp is not None:
            door = await asyncio.start_server(
                functools.partial(tcp_door.accept, hub, tcp.token), tcp.host, tcp.port, limit=MAX_FRAME
            )
            servers.append(door)
            bound = door.sockets[0].getsockname()
            hub.tcp = {"address": str(TcpHost(bound[0], bound[1])), "token": tcp.token.source}
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, hub.stopping.set)
        log.info("host: pid %s listening on %s", os.getpid(), path)
        if hub.tcp is not None:
            log.info("host: listening on %s; its token in %s", hub.tcp["address"], hub.tcp["token"])
        if ready is not None:
            ready(path, hub.tcp["address"] if hub.tcp else None)
        try:
            await _until_idle(hub)
        finally:
            for listening in servers:
                listening.close()
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
            await hub.projects.close()
            for front in list(hub.connections):  # last: `agentls host stop` waits for its connection to end
                front.conn.close()
            if hub.connections:  # each reads its end of stream before the loop closes
                await asyncio.wait(hub.connections.values(), timeout=5.0)
            for sig in (signal.SIGTERM, signal.SIGINT):
                loop.remove_signal_handler(sig)
    finally:
        os.close(lock)


async def _until_idle(hub: Hub) -> None:
    """Return when stopped, when replaced and idle, or after ``idle_s`` with nothing attached or running."""
    while not hub.stopping.is_set():
        hub.changed.clear()
        if hub.replaced and not hub.busy():
            return
        waits = [asyncio.ensure_future(hub.stopping.wait()), asyncio.ensure_future(hub.changed.wait())]
        done, pending = await asyncio.wait(
            waits, timeout=None if hub.busy() else hub.idle_s, return_when=asyncio.FIRST_COMPLETED
        )
        for task in pending:
            task.cancel()
        if not done:
            log.info("host: idle for %s s, exiting", hub.idle_s)
            return
