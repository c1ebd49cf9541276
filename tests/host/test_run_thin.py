"""`agentls run` attached as a terminal relay (cli/run_relay.py, host/runs.py): the host runs the
turn, the run process only relays it. Real processes: a host, `agentls run`, a pseudo-terminal."""

from __future__ import annotations

import asyncio
import os
import pty
import signal
import sys
from pathlib import Path

from core.remote.agent import RemoteAgent
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.e2e.test_run_trust import hostile
from tests.ticks import until_async

from .conftest import AGENTLS, HostProcess, agentls, attach_as
from .test_live import Screen

# A cold `agentls` process, as a user's shell starts it (the test spawner's children share its imports).
COLD_AGENTLS = (sys.executable, "-c", "from agentls.cli import main; main()")
# What an attached run must not load: the core's models and what they are built with.
HEAVY = (
    "pydantic",
    "asyncio",
    "core.events",
    "core.message",
    "core.api",
    "core.remote.connection",
    "litellm",
)


async def test_an_attached_run_relays_the_host_s_turn_without_loading_the_core_s_models(
    host: HostProcess,
    project: Path,
    env: dict[str, str],
    model: FakeModelServer,
    front_ends: list[RemoteAgent],
    data_dir: Path,
    tmp_path: Path,
) -> None:
    model.script(Turn.tool_call("read", {"filePath": "calc.py"}), Turn.text("It subtracts.", chunks=3))
    modules = tmp_path / "modules.txt"
    run = await asyncio.create_subprocess_exec(
        *COLD_AGENTLS,
        "run",
        "what does add do?",
        "--yes",
        cwd=project,
        env={**env, "AGENTLS_HOST_RELAY_MODULES": str(modules)},
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(run.communicate(), 120)
    assert run.returncode == 0, err.decode()
    assert "→ read calc.py" in out.decode() and out.decode().count("It subtracts.") == 1
    assert modules.exists(), err.decode()
    loaded = modules.read_text().split()
    assert "cli.run_relay" in loaded  # (the file is the relay's: it is written on the relayed path only)
    heavy = [name for name in loaded if name.split(".")[0] in HEAVY or name.startswith(HEAVY)]
    assert heavy == [], heavy
    watcher = await attach_as(front_ends, project, data_dir, "watcher")
    (session,) = await watcher.list_sessions()
    texts = [p.text for m in await watcher.messages(session.id) for p in m.parts if p.type == "text"]
    assert texts == ["what does add do?", "It subtracts."]  # the host's agent ran it


async def _run_on_a_terminal(
    project: Path, env: dict[str, str], *args: str
) -> tuple[asyncio.subprocess.Process, Screen]:
    main, terminal = pty.openpty()
    run = await asyncio.create_subprocess_exec(
        *AGENTLS, "run", *args, cwd=project, env=env, stdin=terminal, stdout=terminal, stderr=terminal
    )
    os.close(terminal)
    return run, Screen(main)


async def _answer_every_question(run: asyncio.subprocess.Process, screen: Screen, typed: bytes) -> int:
    """Type ``typed`` at each permission question until the run exits; how many were asked."""
    asked = 0
    while True:
        question = asyncio.ensure_future(screen.wait_for("allow? [y]es / [a]lways / [n]o:", asked + 1))
        ended = asyncio.ensure_future(run.wait())
        await asyncio.wait({question, ended}, timeout=60, return_when=asyncio.FIRST_COMPLETED)
        if ended.done() or not question.done():
            question.cancel()
            ended.cancel()
            return asked
        ended.cancel()
        asked += 1
        os.write(screen.fd, typed + b"\n")


async def test_a_permission_asked_on_the_run_s_terminal_is_answered_through_the_relay(
    host: HostProcess, project: Path, env: dict[str, str], model: FakeModelServer
) -> None:
    model.script(Turn.tool_call("bash", {"command": "rm calc.py"}), Turn.text("Deleted it."))
    run, screen = await _run_on_a_terminal(project, env, "delete calc.py")
    try:
        asked = await _answer_every_question(run, screen, b"y")
        assert await asyncio.wait_for(run.wait(), 60) == 0, screen.text
        assert asked >= 1 and "Deleted it." in screen.text
        assert not (project / "calc.py").exists()
        assert "not attached" not in screen.text and "Traceback" not in screen.text
    finally:
        if run.returncode is None:
            run.kill()
            await run.wait()
        screen.close()


async def test_a_permission_refused_on_the_run_s_terminal_leaves_the_file(
    host: HostProcess, project: Path, env: dict[str, str], model: FakeModelServer
) -> None:
    model.script(Turn.tool_call("bash", {"command": "rm calc.py"}), Turn.text("Left it."))
    run, screen = await _run_on_a_terminal(project, env, "delete calc.py")
    try:
        asked = await _answer_every_question(run, screen, b"n")
        await asyncio.wait_for(run.wait(), 60)
        assert asked == 1, screen.text
        assert (project / "calc.py").exists()
        assert "✗ bash" in screen.text and "Traceback" not in screen.text
    finally:
        if run.returncode is None:
            run.kill()
            await run.wait()
        screen.close()


async def test_sigint_of_an_attached_run_aborts_the_host_s_turn_with_the_in_process_exit_code(
    host: HostProcess,
    project: Path,
    env: dict[str, str],
    model: FakeModelServer,
    front_ends: list[RemoteAgent],
    data_dir: Path,
) -> None:
    model.script(Turn.text("never finished", chunks=6).stall(after=2))
    run = await asyncio.create_subprocess_exec(
        *AGENTLS,
        "run",
        "go",
        cwd=project,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    await model.wait_for_requests(1, timeout=60)
    run.send_signal(signal.SIGINT)
    _, err = await asyncio.wait_for(run.communicate(), 60)
    assert run.returncode == 128 + signal.SIGINT, err.decode()
    assert err.decode().count("agentls: stopped by SIGINT") == 1
    watcher = await attach_as(front_ends, project, data_dir, "watcher")
    (session,) = await watcher.list_sessions()
    last = (await watcher.messages(session.id))[-1]
    assert last.info.role == "assistant" and last.info.error is not None
    assert last.info.error.name == "aborted"  # the host's turn was aborted, not left running


async def test_kill_9_of_an_attached_run_leaves_its_turn_finishing_in_the_host(
    host: HostProcess,
    project: Path,
    env: dict[str, str],
    model: FakeModelServer,
    front_ends: list[RemoteAgent],
    data_dir: Path,
) -> None:
    go_on = asyncio.Event()
    model.script(Turn.text("finished without its terminal", chunks=4).stall(after=2, until=go_on))
    run = await asyncio.create_subprocess_exec(
        *AGENTLS,
        "run",
        "go",
        cwd=project,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    await model.wait_for_requests(1, timeout=60)
    run.kill()
    await run.wait()
    watcher = await attach_as(front_ends, project, data_dir, "watcher")
    (session,) = await watcher.list_sessions()
    go_on.set()

    async def finished() -> bool:
        last = (await watcher.messages(session.id))[-1]
        return [p.text for p in last.parts if p.type == "text"] == ["finished without its terminal"]

    await until_async(finished, "the turn finished in the host", timeout=60)
    assert "Traceback" not in host.log_text()


async def test_a_host_that_refuses_the_run_leaves_it_in_process_saying_why(
    host: HostProcess, project: Path, env: dict[str, str], model: FakeModelServer
) -> None:
    model.script(Turn.text("here instead"))
    other = {**env, "AGENTLS_PERMISSION": '{"bash": "allow"}'}  # another environment than the host's
    code, out, err = await agentls("run", "hi", cwd=project, env=other)
    assert code == 0, err
    assert "here instead" in out
    assert err.count("not attached to the host") == 1 and "another environment" in err
    assert "in this process" in err


async def test_trust_for_one_run_runs_it_in_process_beside_a_host(
    host: HostProcess, project: Path, env: dict[str, str], model: FakeModelServer
) -> None:
    marker = hostile(project)  # the project's own MCP server: started only when the project is trusted
    model.script(Turn.text("trusted here"))
    code, out, err = await agentls("run", "hi", "--trust", cwd=project, env=env)
    assert code == 0 and "trusted here" in out, err
    assert marker.exists()  # the host's shared agent would not have trusted it for this run
    assert err.count("--trust trusts the project for this run only; the agent runs here") == 1


async def test_an_attached_run_whose_reader_went_away_exits_1_and_its_turn_ends(
    host: HostProcess,
    project: Path,
    env: dict[str, str],
    model: FakeModelServer,
    front_ends: list[RemoteAgent],
    data_dir: Path,
) -> None:
    model.script(Turn.text("nobody reads this", chunks=4))
    reader, writer = os.pipe()
    os.close(reader)  # `agentls run … | head` after head has exited: every write is EPIPE
    run = await asyncio.create_subprocess_exec(
        *AGENTLS,
        "run",
        "go",
        "--yes",
        cwd=project,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=writer,
        stderr=asyncio.subprocess.PIPE,
    )
    os.close(writer)
    _, err = await asyncio.wait_for(run.communicate(), 60)
    assert run.returncode == 1, err.decode()
    assert "the turn ended with the host" not in err.decode() and "Traceback" not in err.decode()
    watcher = await attach_as(front_ends, project, data_dir, "watcher")
    (session,) = await watcher.list_sessions()
    last = (await watcher.messages(session.id))[-1]
    assert [p.text for p in last.parts if p.type == "text"] == ["nobody reads this"]
