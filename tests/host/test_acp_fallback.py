"""`agentls acp` attached to a host that is killed (`kill -9`) and cannot be restarted (its socket
folder made unsafe): the ACP agent says so once, in the session, and goes on with the agent in its
own process, as `agentls serve` does; when that open fails too, the prompts get a clear error, never
a hang. Driven by the official ACP SDK client (tests/acp/client.mjs)."""

from __future__ import annotations

import asyncio
import fcntl
import os
import signal
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from core.remote.place import socket_path
from demo.fake_script import Turn
from tests.acp import conftest as acp_suite
from tests.acp.conftest import Acp, Run
from tests.ticks import until

from . import test_acp_attached as acp_attached
from .conftest import HostProcess

acp = acp_suite.acp
node_workdir = acp_suite.node_workdir


@pytest.fixture
async def acp_host(
    acp: Acp, runtime_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[HostProcess]:
    """A host on the ACP agent's data dir whose socket folder is the test's own: the test opens it
    to others (no host may use it then), which must not touch any other host's folder."""
    async with acp_attached.host_of(acp, monkeypatch, XDG_RUNTIME_DIR=str(runtime_dir)) as process:
        yield process


IN_PROCESS = "the agent runs in this process now"


async def killed_with_no_way_back(acp: Acp, host: HostProcess, tmp_path: Path, before_kill: str = "") -> Run:
    """The ``hostLost`` scenario: a turn streams, the socket folder is opened to others (a folder
    no host may use), the host is killed; the client waits for the notice, then prompts again.
    ``before_kill``: text written to the project's config first (a broken one fails the open)."""
    ready = tmp_path / "ready"
    run = asyncio.ensure_future(
        acp.run(
            "hostLost",
            PROMPT="remember me",
            PROMPT2="still there?",
            READY_FILE=str(ready),
            XDG_RUNTIME_DIR=os.environ["XDG_RUNTIME_DIR"],  # (the host's: acp_host set it here)
            **acp_attached.ATTACHED,
        )
    )
    await until(lambda: ready.exists() or run.done(), "the first chunk in the ACP client", 60)
    assert not run.done(), run.result().stderr
    folder = socket_path(acp.data).parent
    assert folder.is_relative_to(os.environ["XDG_RUNTIME_DIR"]), folder
    folder.chmod(0o777)  # a socket folder others can open is never used: no host can be reached
    try:
        if before_kill:
            (acp.project / "agentls.json").write_text(before_kill)
        os.kill(host.pid, signal.SIGKILL)
        result = await run
    finally:
        folder.chmod(0o700)
    assert result.failure is None, result.failure
    first = result.results["first"]
    assert f"the agent host (pid {host.pid}) stopped during prompt" in first["error"]["message"], first
    return result


def notices(run: Run) -> list[str]:
    return [line for line in run.text().split("\n") if line.startswith("> Warning:")]


def host_runs(data_dir: Path) -> bool:
    """Whether a host holds the data dir's lock."""
    lock = data_dir / "host.lock"
    if not lock.exists():
        return False
    with lock.open("r") as held:
        try:
            fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
    return False


async def test_acp_says_once_that_the_host_is_gone_and_answers_in_its_own_process(
    acp_host: HostProcess, acp: Acp, tmp_path: Path
) -> None:
    acp.model.script(Turn.text("never finished", chunks=6).stall(after=2), Turn.text("in this process"))
    run = await killed_with_no_way_back(acp, acp_host, tmp_path)
    lost, moved = notices(run)  # each said once, in the session
    assert f"the agent host (pid {acp_host.pid}) stopped" in lost, lost
    assert "the agent host could not be restarted" in moved and moved.endswith(IN_PROCESS), moved
    assert "can be opened by other users (mode 777)" in moved, moved
    # The prompt sent once the notice came waited for the agent of this process, which answered it
    # with the session's earlier turn (stored by the dead host) in its context.
    assert run.results["second"] == {"stopReason": "end_turn"}, run.results["second"]
    assert run.text().endswith("in this process")
    assert "remember me" in str(acp.model.requests[-1].messages)
    assert not host_runs(acp.data)  # no new host: the agent ran in the ACP agent's own process


async def test_acp_whose_in_process_agent_cannot_open_either_reports_it_to_each_prompt(
    acp_host: HostProcess, acp: Acp, tmp_path: Path
) -> None:
    acp.model.script(Turn.text("never finished", chunks=6).stall(after=2))
    run = await killed_with_no_way_back(acp, acp_host, tmp_path, before_kill="{ not json")
    lost, moved, failed = notices(run)
    assert f"the agent host (pid {acp_host.pid}) stopped" in lost, lost
    assert moved.endswith(IN_PROCESS), moved
    assert "agentls could not start in this process" in failed and "agentls.json" in failed, failed
    second = run.results["second"]["error"]
    assert "agentls could not start in this process" in second["message"], second
    assert "agentls.json" in second["message"], second
    assert len(acp.model.requests) == 1  # the second prompt reached no model
