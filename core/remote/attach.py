"""Attach to the host of a data dir: connect, say hello, open the project; start the host first
when none runs (``auto``, like ``gopls -remote=auto``).

Every way this can fail is an ``AttachError`` whose text says why, so ``open_agent`` can fall
back to the in-process agent and say so once: no host (``attach`` mode), a host of another
protocol, agentls version or environment, a socket folder that is not the user's alone, a host
that would not start (its log's last lines are quoted); over TCP (``AGENTLS_HOST=tcp://…``) a host
that cannot be reached, that refuses the token, or that cannot see the project's folder.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from core import __version__
from core.config.loader import Layer
from core.errors import AgentError, ConfigError
from core.remote.agent import RemoteAgent
from core.remote.connection import Connection, ConnectionLost, RemoteError
from core.remote.launch import AttachError as AttachError  # (raised here too; callers import it here)
from core.remote.launch import start_host as start_host
from core.remote.lend import Lend
from core.remote.place import UnsafeFolderError, environment_digest, socket_path
from core.remote.tcp import TcpHost, client_token
from core.remote.wire import HOST_REPLACED, MAX_FRAME, NO_DIRECTORY, PROTOCOL

HostMode = Literal["auto", "attach", "never"]
CONNECT_TIMEOUT_S = 15.0  # a TCP host behind a dead route: say so rather than wait for the kernel


class NoHost(AttachError):
    """No host listens on the data dir's socket."""


class HostGone(NoHost):
    """The host closed the connection before its hello: it is exiting (stopped or killed)."""


async def connect(
    data_dir: Path, client: str, control: bool = False, tcp: TcpHost | None = None
) -> tuple[Connection, dict[str, Any], list[RemoteAgent]]:
    """A connection to the running host after its hello, and the list its notifications go to;
    ``control``: for `agentls host status|stop` (any agentls version may ask); ``tcp``: the host
    at that address (with the token of ``AGENTLS_HOST_TOKEN[_FILE]``), not ``data_dir``'s."""
    hello: dict[str, Any] = {"protocol": PROTOCOL, "version": __version__, "client": client}
    if tcp is None:
        reader, writer = await _open_socket(data_dir)
        # The host runs every agent with its own environment: a front end's must be the same.
        hello["environment"] = environment_digest()
    else:
        hello["token"] = _token(tcp)  # (before connecting: without one the host would only refuse)
        reader, writer = await _open_tcp(tcp)
    hello.update(pid=os.getpid(), control=control)
    agents: list[RemoteAgent] = []

    def notified(method: str, params: dict[str, Any]) -> None:
        for agent in agents:
            agent.on_notification(method, params)

    async def called_back(method: str, params: dict[str, Any]) -> Any:
        # ``lent``: the host's agent asks what this front end lent it (core/remote/lend.py).
        for agent in agents:
            if method == "lent" and params.get("project") == agent.project:
                session = params.get("session")
                call, args = str(params.get("call")), params.get("args") or {}
                return await agent.lent(call, args, session if isinstance(session, str) else None)
        raise RemoteError(-32601, f"this front end takes no request {method!r} for that project")

    conn = Connection(reader, writer, called_back, notified)
    conn.start()
    try:
        answer = await asyncio.wait_for(conn.request("hello", hello), timeout=30.0)
    except RemoteError as exc:
        conn.close()
        where = f"the host at {tcp}: " if tcp is not None else ""
        raise (_Replaced if exc.code == HOST_REPLACED else AttachError)(where + str(exc)) from None
    except ConnectionLost as exc:
        if tcp is not None:  # a TCP host refuses by closing, too: one that closes unanswered is gone
            raise AttachError(f"the host at {tcp} closed the connection during the hello ({exc})") from None
        raise HostGone(f"the host went away during the hello ({exc})") from None
    except (AgentError, TimeoutError) as exc:
        conn.close()
        raise AttachError(f"the host did not answer its hello: {exc or 'timed out'}") from None
    return conn, answer, agents


async def _open_socket(data_dir: Path) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """The streams of the data dir's socket (NoHost when nothing listens there)."""
    try:
        path = socket_path(data_dir)
    except UnsafeFolderError as exc:
        raise AttachError(str(exc)) from None
    try:
        return await asyncio.open_unix_connection(path, limit=MAX_FRAME)
    except (FileNotFoundError, ConnectionRefusedError) as exc:
        raise NoHost(f"no host runs on {data_dir} ({exc.strerror})") from None


async def _open_tcp(tcp: TcpHost) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """The streams of a TCP host. Not reaching it is no NoHost: a remote host is never started
    from here, and the user asked for this one, so the front end says why it runs in-process."""
    try:
        return await asyncio.wait_for(
            asyncio.open_connection(tcp.host, tcp.port, limit=MAX_FRAME), timeout=CONNECT_TIMEOUT_S
        )
    except TimeoutError:
        raise AttachError(f"the host at {tcp} did not answer in {CONNECT_TIMEOUT_S:.0f} s") from None
    except OSError as exc:
        raise AttachError(f"the host at {tcp} cannot be reached ({exc.strerror or exc})") from None


def _token(tcp: TcpHost) -> str:
    try:
        return client_token()
    except ConfigError as exc:
        raise AttachError(f"the host at {tcp}: {exc}") from None


class _Replaced(AttachError):
    """The host runs another agentls version and stops (now when idle, else when its work ends)."""


async def attach(
    directory: Path,
    *,
    layers: Sequence[Layer] = (),
    data_dir: Path,
    client: str,
    mode: HostMode = "attach",
    lend: Lend | None = None,
    tcp: TcpHost | None = None,
) -> RemoteAgent:
    """The project's agent in the host (``auto``: a host is started when none runs); ``lend``: this
    front end's workspace and editor, which the host's agent then calls back; ``tcp``: the host at
    that address (never started from here)."""
    opened = await open_on_host(
        directory, layers=layers, data_dir=data_dir, client=client, mode=mode, lend=lend, tcp=tcp
    )
    agent = RemoteAgent(opened.conn, opened.answer, opened.host_pid, lend)
    opened.agents.append(agent)
    if lend is not None:
        lend.watch(agent.lent_changed)
    return agent


@dataclass
class Opened:
    """A connection to the host with the project opened on it (``answer``: what ``open`` said)."""

    conn: Connection
    answer: dict[str, Any]
    host_pid: int
    agents: list[RemoteAgent]  # where the connection's notifications and call-backs go


async def open_on_host(
    directory: Path,
    *,
    layers: Sequence[Layer],
    data_dir: Path,
    client: str,
    mode: HostMode,
    lend: Lend | None,
    tcp: TcpHost | None = None,
) -> Opened:
    """Connect to the host (``auto``: starting one when none runs; ``tcp``: the one at that
    address) and open the project there."""
    try:
        conn, hello, agents = await connect(data_dir, client, tcp=tcp)
    except NoHost as exc:
        if mode != "auto":
            raise
        # A host that is still exiting holds the lock a moment longer: the new one waits for it.
        await start_host(data_dir, wait_for_lock=isinstance(exc, HostGone))
        conn, hello, agents = await connect(data_dir, client)
    except _Replaced as exc:
        if mode != "auto" or "stops now" not in str(exc):
            raise
        await start_host(data_dir, wait_for_lock=True)
        conn, hello, agents = await connect(data_dir, client)
    params = _open_params(directory, layers)
    if lend is not None:
        params["lend"] = lend.described()
    try:
        answer = await conn.request("open", params)
    except RemoteError as exc:
        conn.close()
        if exc.code == NO_DIRECTORY:  # a host on another machine: the front end runs in-process
            raise AttachError(str(exc)) from None
        raise
    except AgentError:
        conn.close()
        raise
    return Opened(conn, answer, int(hello["pid"]), agents)


def _open_params(directory: Path, layers: Sequence[Layer]) -> dict[str, Any]:
    """``open``'s parameters: the project's real path and the front end's config layers."""
    return {
        "directory": str(directory.resolve()),
        "layers": [
            {"name": layer.name, "data": layer.data, "path": str(layer.path or "")} for layer in layers
        ],
    }
