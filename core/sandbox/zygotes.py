"""The agentls side of ``zygote.py``: one zygote per sandbox (its ``bwrap`` arguments), started on
first use and kept while agentls runs, so that each confined command costs a ``posix_spawn`` in
the sandbox rather than a new sandbox.

A zygote that dies (killed, out of memory) is forgotten and the next command starts a new one; a
zygote that cannot start makes the command run in a bubblewrap of its own, as without zygotes.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from core.sandbox.proxy import HostProxy

log = logging.getLogger(__name__)

SCRIPT = Path(__file__).with_name("zygote.py")
START_TIMEOUT_S = 10.0
MAX_ZYGOTES = 4  # sandboxes differ by their binds; an eighth .env file does not need an eighth zygote


class ZygoteError(OSError):
    """The zygote could not start a command (it died or refused)."""


class Zygote:
    """One running zygote: starts commands in its sandbox and reports their exits."""

    def __init__(self, prefix: Sequence[str], env: dict[str, str], proxy: Path | None = None) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._sock = ours
        self._ids = itertools.count(1)
        self.loop = asyncio.get_running_loop()
        self._answers: dict[int, asyncio.Future[int]] = {}
        self._exits: dict[int, asyncio.Future[int]] = {}  # by pid
        self._pending_exits: dict[int, asyncio.Future[int]] = {}  # by request, until its pid is known
        argv = [*prefix, sys.executable, "-I", "-S", str(SCRIPT), str(theirs.fileno())]
        if proxy is not None:
            argv.append(str(proxy))
        self.relay: asyncio.Future[int] = self.loop.create_future()  # its port inside the sandbox
        if proxy is None:
            self.relay.cancel()
        try:
            self._process = subprocess.Popen(
                argv,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                pass_fds=(theirs.fileno(),),
                start_new_session=True,  # a Ctrl-C to agentls's terminal does not reach it
            )
        finally:
            theirs.close()
        self._sock.setblocking(False)
        self.loop.add_reader(self._sock.fileno(), self._read)
        self.alive = True

    def _read(self) -> None:
        try:
            message = self._sock.recv(1 << 16)
        except BlockingIOError:
            return
        except OSError:
            message = b""
        if not message:
            self._lost()
            return
        data = json.loads(message)
        if "relay" in data:
            if not self.relay.done():
                self.relay.set_result(int(data["relay"]))
            return
        if "exit" in data:
            future = self._exits.pop(int(data["exit"]), None)
            if future is not None and not future.done():
                future.set_result(int(data["code"]))
            return
        answer = self._answers.pop(int(data["id"]), None)
        if answer is None or answer.done():
            self._pending_exits.pop(int(data["id"]), None)
            return
        exited = self._pending_exits.pop(int(data["id"]))
        if "pid" in data:
            pid = int(data["pid"])
            self._exits[pid] = exited  # before any exit message: the zygote answers first
            answer.set_result(pid)
        else:
            answer.set_exception(ZygoteError(str(data.get("error"))))

    @property
    def busy(self) -> bool:
        """Whether commands it started still run."""
        return bool(self._exits)

    @property
    def pid(self) -> int:
        """The process agentls started for it (bubblewrap's)."""
        return self._process.pid

    def _lost(self) -> None:
        """The zygote is gone: its commands' groups are killed (no one would learn of their exit
        any more) and what waits on them or on it learns so (-9 as return code)."""
        if not self.alive:
            return
        self.alive = False
        with contextlib.suppress(RuntimeError):  # its loop is closed already
            self.loop.remove_reader(self._sock.fileno())
        self.relay.cancel()
        for future in self._answers.values():
            if not future.done():
                future.set_exception(ZygoteError("the sandbox's zygote died"))
        for pid, future in self._exits.items():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGKILL)
            if not future.done():
                future.set_result(-9)
        self._answers.clear()
        self._exits.clear()
        self._pending_exits.clear()

    async def spawn(
        self, argv: Sequence[str], cwd: Path, env: dict[str, str], out_fd: int
    ) -> tuple[int, asyncio.Future[int]]:
        """Start ``argv`` with its output on ``out_fd``: its pid (which is its process group) and
        the future of its return code."""
        if not self.alive:
            raise ZygoteError("the sandbox's zygote is not running")
        request_id = next(self._ids)
        answer: asyncio.Future[int] = self.loop.create_future()
        exited: asyncio.Future[int] = self.loop.create_future()
        self._answers[request_id] = answer
        self._pending_exits[request_id] = exited
        body = json.dumps({"id": request_id, "argv": list(argv), "cwd": str(cwd), "env": env}).encode()
        try:
            socket.send_fds(self._sock, [body], [out_fd])
        except OSError as exc:
            self._answers.pop(request_id, None)
            self._pending_exits.pop(request_id, None)
            self._lost()
            raise ZygoteError(f"the sandbox's zygote does not answer: {exc}") from exc
        pid = await asyncio.wait_for(answer, START_TIMEOUT_S)
        return pid, exited

    def close(self) -> None:
        """Stop the zygote (its running commands are not touched)."""
        self._lost()
        self._sock.close()
        with contextlib.suppress(ProcessLookupError):
            self._process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._process.wait(1)


_zygotes: dict[tuple[str, ...], Zygote] = {}
_proxies: dict[asyncio.AbstractEventLoop, HostProxy] = {}


async def proxy_for(tmpdir: Path) -> HostProxy:
    """The process's host proxy (one per event loop), listening beside the private temp dir."""
    loop = asyncio.get_running_loop()
    proxy = _proxies.get(loop)
    if proxy is None:
        proxy = HostProxy(tmpdir.with_name(f"{tmpdir.name}.proxy{len(_proxies)}"))
        _proxies[loop] = proxy
    await proxy.start()
    return proxy


def zygote_for(prefix: Sequence[str], env: dict[str, str], proxy: Path | None = None) -> Zygote | None:
    """The running zygote for a sandbox (``prefix``: its bwrap arguments up to ``--``), started when
    there is none; None when it cannot start (the caller runs a bubblewrap of its own)."""
    key = (*prefix, str(proxy))
    found = _zygotes.get(key)
    if found is not None and found.alive and found.loop is asyncio.get_running_loop():
        return found
    if found is not None:
        _zygotes.pop(key).close()
    idle = [k for k, z in _zygotes.items() if not z.busy]
    while len(_zygotes) >= MAX_ZYGOTES and idle:
        _zygotes.pop(idle.pop(0)).close()
    try:
        started = Zygote(prefix, env, proxy)
    except OSError as exc:
        log.warning("the sandbox's zygote could not start (%s): each command starts its own sandbox", exc)
        return None
    _zygotes[key] = started
    return started
