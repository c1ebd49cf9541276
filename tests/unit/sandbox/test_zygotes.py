"""Confined commands started by their sandbox's zygote: output, exit codes, kills, and a zygote that
dies (its commands are killed and the next command gets a new zygote), under a real bubblewrap."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
from pathlib import Path

import pytest

from core.config.schema import SandboxConfig, SandboxNetwork
from core.sandbox.sandbox import Sandbox
from core.sandbox.zygotes import zygote_for
from core.tools.process import run_command
from tests.ticks import until

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed here")


@pytest.fixture
def sandbox(project: Path) -> Sandbox:
    return Sandbox(SandboxConfig(), [project], lambda message, session: None)


async def run(command: str, project: Path, sandbox: Sandbox, **kw: object) -> tuple[str, int | None, str]:
    abort = kw.pop("abort", asyncio.Event())
    result = await run_command(
        command,
        cwd=project,
        timeout_s=float(kw.pop("timeout", 20)),
        abort=abort,
        sandbox=sandbox,  # type: ignore[arg-type]
    )
    return result.output, result.exit_code, result.stop


async def test_output_exit_codes_and_signals_come_back(project: Path, sandbox: Sandbox) -> None:
    assert await run("echo out; echo err >&2; exit 3", project, sandbox) == ("out\nerr\n", 3, "exited")
    assert (await run("kill -TERM $$", project, sandbox))[1] == -signal.SIGTERM
    assert await run("pwd; echo $TMPDIR", project, sandbox) == (
        f"{project}\n{sandbox.confine([], project, {}).env['TMPDIR']}\n",
        0,
        "exited",
    )
    assert (await run("cat; echo done", project, sandbox))[0] == "done\n"  # stdin is /dev/null


async def test_a_timeout_kills_the_whole_group(project: Path, sandbox: Sandbox) -> None:
    marker = project / "pids"
    _, _, stop = await run(f"sleep 300 & echo $! > {marker}; sleep 301", project, sandbox, timeout=1)
    assert stop == "timeout"
    assert not alive(int(marker.read_text()))


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting for init to reap it does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat[stat.rindex(")") + 2] not in "ZX"


async def test_a_dead_zygote_is_replaced_and_its_commands_killed(project: Path) -> None:
    # With the network on there is no proxy: the zygote is the one zygote_for(prefix) names.
    config = SandboxConfig(network=SandboxNetwork(allow=["*"]))
    sandbox = Sandbox(config, [project], lambda message, session: None)
    await run("true", project, sandbox)
    prefix = sandbox.confine([], project, {}).zygote_prefix
    first = zygote_for(prefix, {})
    assert first is not None
    running = asyncio.ensure_future(run("sleep 300", project, sandbox))
    # Polled: the zygote announces no event when it answered with the command's pid.
    await until(lambda: first.busy, "the zygote to take the command", 10)
    os.kill(first.pid, signal.SIGKILL)
    assert (await asyncio.wait_for(running, 10))[1] == -9
    assert await run("echo again", project, sandbox) == ("again\n", 0, "exited")
    second = zygote_for(prefix, {})
    assert second is not None and second is not first and second.alive
