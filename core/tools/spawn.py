"""Start a command for ``process.run_command``: as agentls's own child (``asyncio`` subprocess), or
started by a sandbox's zygote (``core.sandbox.zygotes``). Either way the caller gets the same handle:
the command's pid, which leads its process group, a future for its exit and one for the end of
its output (stdout and stderr merged, in order)."""

from __future__ import annotations

import asyncio
import os
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from core.sandbox.zygotes import Zygote


class _Protocol(asyncio.SubprocessProtocol):
    """Collects output and signals exit and end of output separately.

    ``asyncio.subprocess.Process.wait()`` only returns once every pipe is closed, so a background
    child that keeps stdout open would hold the call until the timeout. ``process_exited`` fires
    when the shell itself exits, which is what ends a command.
    """

    def __init__(self, on_data: Callable[[bytes], None]) -> None:
        loop = asyncio.get_running_loop()
        self.on_data = on_data
        self.exited: asyncio.Future[Any] = loop.create_future()
        self.eof: asyncio.Future[None] = loop.create_future()

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        self.on_data(data)

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        if fd == 1 and not self.eof.done():
            self.eof.set_result(None)

    def process_exited(self) -> None:
        if not self.exited.done():
            self.exited.set_result(None)


class _PipeReader(asyncio.Protocol):
    """The read end of a zygote-started command's output pipe."""

    def __init__(self, on_data: Callable[[bytes], None]) -> None:
        self.on_data = on_data
        self.eof: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def data_received(self, data: bytes) -> None:
        self.on_data(data)

    def eof_received(self) -> bool:
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.eof.done():
            self.eof.set_result(None)


@dataclass
class Spawned:
    """A started command: ``pid`` leads its process group; ``exited`` and ``eof`` resolve when it ends
    and when its output does."""

    pid: int
    exited: asyncio.Future[Any]
    eof: asyncio.Future[None]
    _returncode: Callable[[], int | None]
    _close: Callable[[], None]

    def returncode(self) -> int | None:
        """The exit code (minus the signal that ended it), None while it runs."""
        return self._returncode()

    def close(self) -> None:
        """Release the pipes."""
        self._close()


async def spawn_child(
    argv: Sequence[str], cwd: Path, env: dict[str, str], on_data: Callable[[bytes], None]
) -> Spawned:
    """``argv`` as agentls's child, in a new session (its own process group), stdin closed."""
    loop = asyncio.get_running_loop()
    transport, protocol = await loop.subprocess_exec(
        lambda: _Protocol(on_data),
        *argv,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    pid = transport.get_pid()
    return Spawned(pid, protocol.exited, protocol.eof, transport.get_returncode, transport.close)


async def spawn_in_zygote(
    zygote: Zygote, argv: Sequence[str], cwd: Path, env: dict[str, str], on_data: Callable[[bytes], None]
) -> Spawned:
    """``argv`` started by ``zygote`` inside its sandbox (ZygoteError when the zygote is gone)."""
    read_fd, write_fd = os.pipe()
    try:
        pid, exited = await zygote.spawn(argv, cwd, env, write_fd)
    except BaseException:
        os.close(read_fd)
        raise
    finally:
        os.close(write_fd)
    loop = asyncio.get_running_loop()
    pipe = os.fdopen(read_fd, "rb", buffering=0)
    transport, reader = await loop.connect_read_pipe(lambda: _PipeReader(on_data), pipe)

    def returncode() -> int | None:
        return exited.result() if exited.done() else None

    return Spawned(pid, exited, reader.eof, returncode, transport.close)
