"""`agentls sessions watch ID`: a turn another front end started, followed live in the terminal."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

from core.events import PartDelta
from core.message.prompt_input import TextInput
from core.remote.agent import RemoteAgent
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn

from .conftest import AGENTLS, HostProcess, agentls, attach_as


class Output:
    """A process's stream read as it comes, with a wait for some text."""

    def __init__(self, stream: asyncio.StreamReader) -> None:
        self.text = ""
        self._changed = asyncio.Condition()
        self.task = asyncio.ensure_future(self._read(stream))

    async def _read(self, stream: asyncio.StreamReader) -> None:
        while chunk := (await stream.read(4096)).decode():
            async with self._changed:
                self.text += chunk
                self._changed.notify_all()

    async def wait_for(self, text: str) -> None:
        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(lambda: text in self.text), 60)


async def start_watch(
    session_id: str, cwd: Path, env: dict[str, str]
) -> tuple[asyncio.subprocess.Process, Output, Output]:
    proc = await asyncio.create_subprocess_exec(
        *AGENTLS,
        "sessions",
        "watch",
        session_id,
        cwd=cwd,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    return proc, Output(proc.stdout), Output(proc.stderr)


async def running_turn(
    agent: RemoteAgent, model: FakeModelServer, release: asyncio.Event | None
) -> tuple[str, asyncio.Task[object]]:
    """A session whose turn has streamed its first words and then waits for ``release``."""
    model.script(Turn.text("first words, then the rest", chunks=6).stall(after=2, until=release))
    session = await agent.create_session()
    with agent.subscribe(PartDelta, session_id=session.id) as deltas:
        turn = asyncio.create_task(agent.prompt(session.id, [TextInput(type="text", text="talk")]))
        await asyncio.wait_for(deltas.get(), 30)
    return session.id, turn  # type: ignore[return-value]


async def test_watch_follows_a_turn_started_elsewhere_to_its_end(
    host: HostProcess,
    project: Path,
    data_dir: Path,
    env: dict[str, str],
    model: FakeModelServer,
    front_ends: list[RemoteAgent],
    tmp_path: Path,
) -> None:
    editor = await attach_as(front_ends, project, data_dir, "editor")
    release = asyncio.Event()
    session_id, turn = await running_turn(editor, model, release)
    proc, out, err = await start_watch(
        session_id, tmp_path, env
    )  # from another folder: the session says where
    await out.wait_for("talk")  # the history: the user's prompt
    release.set()
    assert await asyncio.wait_for(proc.wait(), 60) == 0, err.text
    await out.task
    assert out.text.count("first words, then the rest") == 1, out.text
    await asyncio.wait_for(turn, 30)


async def test_watch_without_a_host_says_where_to_look(
    project: Path, env: dict[str, str], model: FakeModelServer
) -> None:
    model.script(Turn.text("stored"))
    code, _, err = await agentls("run", "hi", cwd=project, env=env)
    assert code == 0, err
    code, listing, _ = await agentls("sessions", "list", cwd=project, env=env)
    session_id = listing.split()[0]
    code, _, err = await agentls("sessions", "watch", session_id, cwd=project, env=env)
    assert code == 1 and "no agent host runs" in err and f"agentls sessions show {session_id}" in err


async def test_watch_of_an_idle_session_prints_it_and_says_so(
    host: HostProcess,
    project: Path,
    data_dir: Path,
    env: dict[str, str],
    model: FakeModelServer,
    front_ends: list[RemoteAgent],
) -> None:
    model.script(Turn.text("all done"))
    editor = await attach_as(front_ends, project, data_dir, "editor")
    session = await editor.create_session()
    await editor.prompt(session.id, [TextInput(type="text", text="do it")])
    code, out, err = await agentls("sessions", "watch", session.id, cwd=project, env=env)
    assert code == 0 and "do it" in out and "all done" in out
    assert f"no turn of {session.id} is running" in err


async def test_watch_says_once_when_the_host_dies_and_restarts_it(
    host: HostProcess,
    project: Path,
    data_dir: Path,
    env: dict[str, str],
    model: FakeModelServer,
    front_ends: list[RemoteAgent],
) -> None:
    editor = await attach_as(front_ends, project, data_dir, "editor")
    session_id, turn = await running_turn(editor, model, None)
    proc, out, err = await start_watch(session_id, project, env)
    await out.wait_for("talk")
    os.kill(host.pid, signal.SIGKILL)
    assert await asyncio.wait_for(proc.wait(), 90) == 1
    await err.task
    assert err.text.count("the agent host stopped") == 1, err.text
    assert "host restarted; the session keeps" in err.text
    await asyncio.gather(turn, return_exceptions=True)
    code, status, _ = await agentls("host", "status", cwd=project, env=env)
    assert code == 0 and f"pid {host.pid}" not in status
    await agentls("host", "stop", cwd=project, env=env)
