"""The host's fixtures: a real host process (``python -m host``) on a temp data dir, the fake model
servers, and the same environment in the test process and the host (the host serves only front
ends whose environment digest matches its own)."""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import json
import os
import select
import shutil
import signal
import sys
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from core.remote.agent import RemoteAgent
from core.remote.attach import attach
from demo.config import fake_model_config
from demo.fake_model import FakeModelServer
from tests import prespawn

ROOT = Path(__file__).resolve().parents[2]
AGENTLS = [sys.executable, "-m", "lsp_server.cli"]  # cold; ``agentls()`` forks it (tests/prespawn)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    return root.resolve()  # as the host names it


@pytest.fixture
async def model() -> AsyncIterator[FakeModelServer]:
    async with FakeModelServer() as srv:
        yield srv


@pytest.fixture
async def title_model() -> AsyncIterator[FakeModelServer]:
    async with FakeModelServer() as srv:
        yield srv


def config(model: FakeModelServer, title_model: FakeModelServer, **extra: Any) -> dict[str, Any]:
    """The fake models with short retry waits."""
    retry = {"initial_delay": 0.01, "max_delay": 0.05, "max_attempts": 2}
    return fake_model_config(model, title_model, **{"retry": retry, **extra})


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "data"


@pytest.fixture
def runtime_dir() -> Iterator[Path]:
    """A runtime dir of the test's own (0700), short enough for a socket path under any tmp_path."""
    folder = Path(tempfile.mkdtemp(prefix="al-", dir="/tmp"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def env(
    tmp_path: Path,
    data_dir: Path,
    runtime_dir: Path,
    model: FakeModelServer,
    title_model: FakeModelServer,
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[dict[str, str]]:
    """The environment of every agentls process of the test, also set in this one."""
    for name in list(os.environ):
        if name.endswith("_API_KEY") or name.startswith("AGENTLS_") or name == "XDG_RUNTIME_DIR":
            monkeypatch.delenv(name)
    values = {
        "AGENTLS_DATA_DIR": str(data_dir),
        "AGENTLS_CONFIG_DIR": str(tmp_path / "config"),
        "HOME": str(tmp_path / "home"),
        "AGENTLS_CONFIG_CONTENT": json.dumps(config(model, title_model)),
        "XDG_RUNTIME_DIR": str(runtime_dir),
    }
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    yield {**os.environ, "PYTHONPATH": str(ROOT)}
    stop_leftover_host(data_dir)


def stop_leftover_host(data_dir: Path) -> None:
    """End a host a failed test left on its data dir (one `--attach` started, detached)."""
    lock = data_dir / "host.lock"
    if not lock.exists():
        return
    with lock.open("r") as held:
        try:
            fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return  # no host holds it
        except BlockingIOError:
            pid = int(held.read().strip() or 0)
    if pid:
        with contextlib.suppress(ProcessLookupError):
            fd = os.pidfd_open(pid)
            os.kill(pid, signal.SIGTERM)
            select.select([fd], [], [], 30)  # readable once it has exited
            os.close(fd)


def set_config(env: dict[str, str], data: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """Another config for the host and the test's front ends alike."""
    env["AGENTLS_CONFIG_CONTENT"] = json.dumps(data)
    monkeypatch.setenv("AGENTLS_CONFIG_CONTENT", env["AGENTLS_CONFIG_CONTENT"])


class HostProcess:
    """A host started in the foreground by the test (so the test can kill it)."""

    def __init__(self, proc: asyncio.subprocess.Process, log: Path) -> None:
        self.proc = proc
        self.log = log
        # The host's own pid, as it names itself (a forked host's is not the launcher's: tests/prespawn).
        self.pid = prespawn.own_pid(proc.pid)

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")


async def read_line(fd: int) -> str:
    """The first line written to pipe ``fd`` ('' at its end)."""
    loop = asyncio.get_running_loop()
    os.set_blocking(fd, False)
    data = b""
    while not data.endswith(b"\n"):
        ready = loop.create_future()
        loop.add_reader(fd, lambda f=ready: f.done() or f.set_result(None))
        try:
            await ready
        finally:
            loop.remove_reader(fd)
        with contextlib.suppress(BlockingIOError):
            chunk = os.read(fd, 4096)
            if not chunk:
                break
            data += chunk
    return data.decode()


def _new_log(data_dir: Path) -> Path:
    data_dir.mkdir(parents=True, exist_ok=True)
    return data_dir / f"host-{len(list(data_dir.glob('host-*.log')))}.log"


async def start_host(
    data_dir: Path, env: dict[str, str], *extra: str, python: tuple[str, ...] = ()
) -> tuple[HostProcess, str]:
    """A host process and the first line it wrote to its ready pipe ('' when it exited first);
    ``python``: the interpreter's own options."""
    log = _new_log(data_dir)
    read_end, write_end = os.pipe()
    with log.open("ab") as out:
        args = ("--data-dir", str(data_dir), "--ready-fd", str(write_end), *extra)
        # Interpreter options: a cold process (the spawner's are its own, tests/prespawn).
        cold = [sys.executable, *python, "-m", "host", *args]
        command = cold if python else prespawn.command("host", *args)
        proc = await asyncio.create_subprocess_exec(
            *command,
            cwd=data_dir,  # not the source tree: `-m` puts the working folder first on the path
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=out,
            stderr=out,
            pass_fds=(write_end,),
        )
    os.close(write_end)
    try:
        line = await asyncio.wait_for(read_line(read_end), 60)
    finally:
        os.close(read_end)
    return HostProcess(proc, log), line


@pytest.fixture
async def host(data_dir: Path, env: dict[str, str]) -> AsyncIterator[HostProcess]:
    """A running host on the test's data dir; stopped (or found dead) at the end."""
    process, line = await start_host(data_dir, env)
    assert line.startswith("ready"), process.log_text()
    try:
        yield process
    finally:
        if process.proc.returncode is None:
            process.proc.terminate()
            await asyncio.wait_for(process.proc.wait(), 30)
        assert "Traceback" not in process.log_text(), process.log_text()


@pytest.fixture
async def front_ends(project: Path, data_dir: Path) -> AsyncIterator[list[RemoteAgent]]:
    """Attach front ends in the test process (``attach_to(name)``); detached at the end."""
    agents: list[RemoteAgent] = []
    yield agents
    for agent in agents:
        await agent.close()


async def attach_as(agents: list[RemoteAgent], project: Path, data_dir: Path, client: str) -> RemoteAgent:
    """One more front end of the project, named ``client``."""
    agent = await attach(project, data_dir=data_dir, client=client, mode="attach")
    agents.append(agent)
    return agent


async def agentls(*args: str, cwd: Path, env: dict[str, str], timeout: float = 120) -> tuple[int, str, str]:
    """Run ``agentls ARGS`` to its end: exit status, stdout, stderr."""
    proc = await asyncio.create_subprocess_exec(
        *prespawn.command("lsp_server.cli", *args),
        cwd=cwd,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), timeout=timeout)
    return proc.returncode or 0, out.decode(), err.decode()


async def exited(pid: int) -> None:
    """Until process ``pid`` (not a child of the test) has exited: a pidfd becomes readable then."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return
    loop = asyncio.get_running_loop()
    gone = loop.create_future()
    loop.add_reader(fd, lambda: gone.done() or gone.set_result(None))
    try:
        await gone
    finally:
        loop.remove_reader(fd)
        os.close(fd)
