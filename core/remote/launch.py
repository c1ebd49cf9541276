"""Start a detached host (``python -m host --detach``) and wait until it listens: what
``core.remote.attach`` and a relay (lsp_server/relay.py) share. Standard library only (and
``core.errors`` / ``core.remote.place``, which are too): a relay must not import the agent.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from core.errors import AgentError
from core.remote.place import lock_path

START_TIMEOUT_S = 60.0  # a cold host imports the agent before it listens; a busy machine is slow


class AttachError(AgentError):
    """The front end cannot use a host (the text says why); it may run the agent in-process."""


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
