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
import contextlib
import fcntl
import os
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from core import __version__
from core.config.loader import Layer
from core.errors import AgentError, ConfigError
from core.remote.agent import RemoteAgent
from core.remote.connection import Connection, ConnectionLost, RemoteError
from core.remote.lend import Lend
from core.remote.place import UnsafeFolderError, environment_digest, lock_path, socket_path
from core.remote.tcp import TcpHost, client_token
from core.remote.wire import HOST_REPLACED, MAX_FRAME, NO_DIRECTORY, PROTOCOL

HostMode = Literal["auto", "attach", "never"]
START_TIMEOUT_S = 60.0  # a cold host imports the agent before it listens; a busy machine is slow
CONNECT_TIMEOUT_S = 15.0  # a TCP host behind a dead route: say so rather than wait for the kernel


class AttachError(AgentError):
    """The front end cannot use a host (the text says why); it may run the agent in-process."""


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


async def start_host(
    data_dir: Path, *, idle_s: float | None = None, wait_for_lock: bool = False, tcp: Sequence[str] = ()
) -> None:
    """Start a detached host on ``data_dir`` and return once it listens (or another start won);
    ``tcp``: its ``--tcp`` options (`agentls host start --tcp`).

    AttachError when it exits first: the last lines of its log (``host.log`` in the data dir) say why.
    """
    log_path = data_dir / "host.log"
    read_end, write_end = os.pipe()
    command = [
        sys.executable,
        "-P",  # never the working folder first on the path: a project's own `host/` is not agentls's
        "-m",
        "host",
        "--data-dir",
        str(data_dir),
        "--ready-fd",
        str(write_end),
        "--detach",
    ]
    if idle_s is not None:
        command += ["--idle", str(idle_s)]
    if wait_for_lock:
        command.append("--wait-lock")
    command += tcp
    try:
        launcher = _launch(command, log_path, write_end)
        os.close(write_end)
        write_end = -1
        line = await asyncio.wait_for(_read_line(read_end), timeout=START_TIMEOUT_S)
        await asyncio.to_thread(launcher.wait)
    except TimeoutError:
        raise AttachError(f"the host did not start in {START_TIMEOUT_S:.0f} s (see {log_path})") from None
    finally:
        if write_end >= 0:
            os.close(write_end)
        os.close(read_end)
    if not line.startswith("ready"):
        if _host_runs(data_dir):
            return  # another front end started one at the same moment: use that one
        tail = _log_tail(log_path)
        raise AttachError("the host could not start: " + (" / ".join(tail) or "it exited silently"))


def _launch(command: list[str], log_path: Path, ready_fd: int) -> subprocess.Popen[bytes]:
    """Start the launcher of a detached host, its output appended to ``log_path``."""
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "ab") as log_file:
        return subprocess.Popen(  # it forks the host and exits at once
            command,
            stdin=subprocess.DEVNULL,
            stdout=log_file,
            stderr=log_file,
            pass_fds=(ready_fd,),
            start_new_session=True,
            cwd=log_path.parent,
            env={**os.environ, "PYTHONPATH": _source_root(os.environ.get("PYTHONPATH"))},
        )


async def _read_line(fd: int) -> str:
    """The first line written to the pipe ``fd`` ('' when it is closed without one)."""
    loop = asyncio.get_running_loop()
    os.set_blocking(fd, False)
    data = b""
    while not data.endswith(b"\n"):
        ready: asyncio.Future[None] = loop.create_future()
        loop.add_reader(fd, _wake, ready)
        try:
            await ready
        finally:
            loop.remove_reader(fd)
        with contextlib.suppress(BlockingIOError):
            chunk = os.read(fd, 4096)
            if not chunk:
                break
            data += chunk
    return data.decode(errors="replace")


def _host_runs(data_dir: Path) -> bool:
    """Whether a host holds the data dir's lock (the log cannot say: both hosts write to it)."""
    try:
        fd = os.open(lock_path(data_dir), os.O_RDONLY)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # (releases the lock when it was taken)
    return False


def _log_tail(path: Path) -> list[str]:
    """The last lines of the host's log."""
    try:
        return path.read_text(errors="replace").strip().splitlines()[-3:]
    except OSError:
        return []


def _wake(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


def _source_root(current: str | None) -> str:
    """PYTHONPATH for the host: agentls's own source root first, so ``-m host`` finds this copy."""
    root = str(Path(__file__).resolve().parents[2])
    return root if not current else f"{root}{os.pathsep}{current}"
