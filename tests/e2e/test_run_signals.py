"""`agentls run` stopped by a signal while a bash tool runs: nothing of the tool's process group
outlives it (SIGTERM: the turn is aborted and the group killed; SIGKILL: the reaper kills it).

Run unsandboxed (``full``) and in the default sandbox (where the sandbox's zygote starts the shell)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import pty
import signal
from asyncio.subprocess import PIPE
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from demo.fake_model import FakeModelServer
from demo.fake_script import Turn

from .conftest import fake_config
from .test_cli import AGENTLS, clean_env


def group_members(pgid: int) -> list[int]:
    """Live (not zombie) processes whose process group is ``pgid``."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        state, pgrp = fields[0], int(fields[2])
        if pgrp == pgid and state not in ("Z", "X"):
            members.append(int(entry.name))
    return members


async def exited(pid: int) -> None:
    """Until process ``pid`` has exited (a pidfd becomes readable then)."""
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


async def read_fifo(path: Path) -> str:
    """The first line written to the FIFO at ``path`` (opened read-write: never an early EOF)."""
    fd = os.open(path, os.O_RDWR | os.O_NONBLOCK)
    loop = asyncio.get_running_loop()
    ready = loop.create_future()
    loop.add_reader(fd, lambda: ready.done() or ready.set_result(None))
    try:
        await ready
        return os.read(fd, 4096).decode()
    finally:
        loop.remove_reader(fd)
        os.close(fd)


@pytest.fixture(params=["full", "workspace-write"])
async def running(
    request: pytest.FixtureRequest,
    tmp_path: Path,
    project: Path,
    model: FakeModelServer,
    title_model: FakeModelServer,
) -> AsyncIterator[tuple[asyncio.subprocess.Process, int, Log]]:
    """`agentls run` inside a bash tool whose shell has a background and a foreground `sleep`;
    yields the process and the tool's process group."""
    fifo = tmp_path / "started"
    os.mkfifo(fifo)
    # The group's id as the kernel has it (field 5 of stat, read by builtins: a process that ends at
    # once must not be in the group when the test looks).
    command = f"sleep 300 & sleep 301 & read -r _ _ _ _ g _ < /proc/$$/stat; echo $g > {fifo}; wait"
    model.script(Turn.tool_call("bash", {"command": command, "description": "wait a while"}), Turn.text("x"))
    env = clean_env(tmp_path)
    sandbox = {"mode": request.param}
    env["AGENTLS_CONFIG_CONTENT"] = json.dumps(fake_config(model, title_model, sandbox=sandbox))
    proc = await asyncio.create_subprocess_exec(
        *AGENTLS,
        "--log-level",
        "debug",
        "run",
        "wait",
        "--yes",
        cwd=project,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    pgid = int(await asyncio.wait_for(read_fifo(fifo), 60))
    assert proc.stderr is not None
    log = Log(proc.stderr)
    await asyncio.wait_for(log.wait_for(f"the reaper watches process group {pgid}"), 30)
    try:
        yield proc, pgid, log
    finally:
        log.task.cancel()
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        await proc.wait()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pgid, signal.SIGKILL)  # a failed test leaves nothing behind either


class Log:
    """agentls's stderr, read as it comes (a full pipe would block it), with a wait for a line."""

    def __init__(self, stream: asyncio.StreamReader) -> None:
        self.lines: list[str] = []
        self._changed = asyncio.Condition()
        self.task = asyncio.ensure_future(self._read(stream))

    async def _read(self, stream: asyncio.StreamReader) -> None:
        while line := (await stream.readline()).decode():
            async with self._changed:
                self.lines.append(line)
                self._changed.notify_all()
        async with self._changed:
            self._changed.notify_all()

    async def wait_for(self, text: str) -> None:
        async with self._changed:
            while not any(text in line for line in self.lines):
                if self.task.done():
                    raise AssertionError(f"agentls ended its log without {text!r}")
                await self._changed.wait()

    async def text(self) -> str:
        await self.task
        return "".join(self.lines)


async def _group_gone(pgid: int, members: list[int]) -> list[int]:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(asyncio.gather(*(exited(pid) for pid in members)), 10)
    return group_members(pgid)


@pytest.mark.in_process("the reaper of the run's own process group: attached, bash runs in the host")
async def test_sigterm_of_run_during_a_bash_tool_leaves_no_process_of_its_group(
    running: tuple[asyncio.subprocess.Process, int, Log],
) -> None:
    proc, pgid, log = running
    members = group_members(pgid)
    assert len(members) == 3, members  # the shell and its two sleeps
    proc.send_signal(signal.SIGTERM)
    code = await asyncio.wait_for(proc.wait(), 30)
    err = await asyncio.wait_for(log.text(), 30)
    assert code == 128 + signal.SIGTERM, err
    assert "Traceback" not in err
    assert await _group_gone(pgid, members) == []


@pytest.mark.in_process("the reaper of the run's own process group: attached, bash runs in the host")
async def test_sigkill_of_run_during_a_bash_tool_leaves_no_process_of_its_group(
    running: tuple[asyncio.subprocess.Process, int, Log],
) -> None:
    proc, pgid, _ = running
    members = group_members(pgid)
    assert len(members) == 3, members  # the shell and its two sleeps
    proc.kill()
    await asyncio.wait_for(proc.wait(), 30)
    assert await _group_gone(pgid, members) == []


async def _ask_on_a_terminal(
    tmp_path: Path, project: Path, model: FakeModelServer, title_model: FakeModelServer
) -> tuple[asyncio.subprocess.Process, int]:
    """`agentls run` on a terminal (a pty), once it shows its permission question; and the
    terminal's other end."""
    model.script(Turn.tool_call("bash", {"command": "echo hi", "description": "say hi"}), Turn.text("x"))
    env = clean_env(tmp_path)
    env["AGENTLS_CONFIG_CONTENT"] = json.dumps(fake_config(model, title_model, permission={"bash": "ask"}))
    main, terminal = pty.openpty()
    proc = await asyncio.create_subprocess_exec(
        *AGENTLS, "run", "go", cwd=project, env=env, stdin=terminal, stdout=PIPE, stderr=PIPE
    )
    os.close(terminal)
    assert proc.stdout is not None
    shown = b""
    while b"allow?" not in shown:
        chunk = await asyncio.wait_for(proc.stdout.read(1024), 30)
        assert chunk, shown
        shown += chunk
    return proc, main


async def test_sigterm_while_a_permission_question_waits_on_the_terminal(
    tmp_path: Path, project: Path, model: FakeModelServer, title_model: FakeModelServer
) -> None:
    proc, main = await _ask_on_a_terminal(tmp_path, project, model, title_model)
    try:
        proc.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(proc.wait(), 30)  # it hung here, waiting for the answer
        assert proc.stderr is not None
        assert code == 128 + signal.SIGTERM, (await proc.stderr.read()).decode()
    finally:
        os.close(main)
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        await proc.wait()


async def test_a_permission_answered_on_the_terminal_runs_the_tool(
    tmp_path: Path, project: Path, model: FakeModelServer, title_model: FakeModelServer
) -> None:
    proc, main = await _ask_on_a_terminal(tmp_path, project, model, title_model)
    try:
        os.write(main, b"y\n")
        code = await asyncio.wait_for(proc.wait(), 30)
        assert proc.stderr is not None
        assert code == 0, (await proc.stderr.read()).decode()
        assert "hi" in str(model.requests[1].messages)  # the command ran; its output went back
    finally:
        os.close(main)
