"""`agentls run` and `agentls host` as a user runs them, with a real host process."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from core.message.prompt_input import TextInput
from core.remote.agent import RemoteAgent
from core.remote.place import socket_path
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn

from .conftest import HostProcess, agentls, attach_as, exited, start_host


async def status(env: dict[str, str], cwd: Path) -> dict[str, object]:
    _, out, err = await agentls("host", "status", "--json", cwd=cwd, env=env)
    assert "Traceback" not in err, err
    parsed: dict[str, object] = json.loads(out)
    return parsed


async def test_run_attaches_to_a_running_host_and_its_session_is_the_hosts(
    host: HostProcess,
    project: Path,
    env: dict[str, str],
    model: FakeModelServer,
    front_ends: list[RemoteAgent],
    data_dir: Path,
) -> None:
    model.script(Turn.tool_call("read", {"filePath": "calc.py"}), Turn.text("It subtracts.", chunks=3))
    code, out, err = await agentls("run", "what does add do?", "--yes", cwd=project, env=env)
    assert code == 0, err
    assert "→ read calc.py" in out and out.count("It subtracts.") == 1
    assert "not attached" not in err
    state = await status(env, project)
    assert state["pid"] == host.pid
    assert [p["directory"] for p in state["projects"]] == [str(project)]  # type: ignore[attr-defined]
    watcher = await attach_as(front_ends, project, data_dir, "watcher")
    (session,) = await watcher.list_sessions()
    texts = [p.text for m in await watcher.messages(session.id) for p in m.parts if p.type == "text"]
    assert texts == ["what does add do?", "It subtracts."]


async def test_no_host_runs_in_process_beside_a_running_host(
    host: HostProcess, project: Path, env: dict[str, str], model: FakeModelServer
) -> None:
    model.script(Turn.text("in this process"))
    code, out, err = await agentls("run", "hi", "--no-host", cwd=project, env=env)
    assert code == 0, err
    assert "in this process" in out
    assert (await status(env, project))["projects"] == []


async def test_run_without_a_host_runs_in_process_and_says_nothing(
    project: Path, env: dict[str, str], model: FakeModelServer
) -> None:
    model.script(Turn.text("no host here"))
    code, out, err = await agentls("run", "hi", cwd=project, env=env)
    assert code == 0, err
    assert "no host here" in out and err == ""
    assert (await status(env, project)) == {"running": False}


async def test_attach_starts_a_host_that_outlives_the_run_and_serves_the_next(
    project: Path, env: dict[str, str], model: FakeModelServer
) -> None:
    model.script(Turn.text("first"), Turn.text("second"))
    started = {**env, "AGENTLS_HOST_IDLE": "120"}
    code, out, err = await agentls("run", "one", "--attach", cwd=project, env=started)
    assert code == 0 and "first" in out, err
    state = await status(env, project)
    assert state["idleExit"] == 120.0
    code, out, err = await agentls("run", "two", cwd=project, env=env)
    assert code == 0 and "second" in out, err
    assert (await status(env, project))["pid"] == state["pid"]  # the same warm host served both
    code, _, err = await agentls("host", "stop", cwd=project, env=env)
    assert code == 0, err
    await asyncio.wait_for(exited(int(state["pid"])), 30)  # type: ignore[call-overload]


async def test_a_host_exits_when_its_last_front_end_detaches_and_the_idle_time_passes(
    project: Path, data_dir: Path, env: dict[str, str], front_ends: list[RemoteAgent]
) -> None:
    process, line = await start_host(data_dir, env, "--idle", "1")
    assert line.startswith("ready"), process.log_text()
    editor = await attach_as(front_ends, project, data_dir, "editor")
    assert await editor.list_sessions() == []
    front_ends.remove(editor)
    await editor.close()
    assert await asyncio.wait_for(process.proc.wait(), 30) == 0
    assert "idle for 1.0 s, exiting" in process.log_text()
    assert not socket_path(data_dir).exists()


async def test_host_stop_ends_the_host_and_its_socket(
    host: HostProcess, project: Path, env: dict[str, str]
) -> None:
    code, out, err = await agentls("host", "stop", cwd=project, env=env)
    assert code == 0 and f"stopped (pid {host.pid})" in out, err
    assert await asyncio.wait_for(host.proc.wait(), 30) == 0
    code, out, _ = await agentls("host", "status", cwd=project, env=env)
    assert code == 1 and "not running" in out


async def test_host_start_twice_starts_one(project: Path, env: dict[str, str]) -> None:
    code, out, err = await agentls("host", "start", "--idle", "60", cwd=project, env=env)
    assert code == 0 and "started" in out, err
    code, again, err = await agentls("host", "start", cwd=project, env=env)
    assert code == 0 and "already running" in again, err
    pid = int(out.split("pid ")[1].split(",")[0])
    assert f"pid {pid}" in again
    code, out, err = await agentls("host", "stop", cwd=project, env=env)
    assert code == 0, err
    await asyncio.wait_for(exited(pid), 30)


async def test_an_attached_prompt_streams_like_in_process(
    host: HostProcess, project: Path, data_dir: Path, model: FakeModelServer, front_ends: list[RemoteAgent]
) -> None:
    model.script(Turn.text("one two three", chunks=3))
    agent = await attach_as(front_ends, project, data_dir, "editor")
    session = await agent.create_session()
    with agent.subscribe(session_id=session.id) as sub:
        answer = await agent.prompt(session.id, [TextInput(type="text", text="count")])
        deltas = []
        while (event := sub.get_nowait()) is not None:
            if event.TYPE == "message.part.delta":
                deltas.append(event.delta)  # type: ignore[attr-defined]
    assert "".join(deltas) == "one two three"
    assert [p.text for p in answer.parts if p.type == "text"] == ["one two three"]


async def test_a_started_host_is_agentls_even_from_a_project_with_its_own_host_package(
    project: Path, env: dict[str, str], model: FakeModelServer
) -> None:
    (project / "host").mkdir()
    (project / "host" / "__init__.py").write_text("")
    (project / "host" / "__main__.py").write_text("raise SystemExit('the project s own host module ran')\n")
    model.script(Turn.text("from agentls's host"))
    code, out, err = await agentls("run", "hi", "--attach", cwd=project, env=env)
    assert code == 0 and "from agentls's host" in out, err
    assert "not attached" not in err
    code, _, err = await agentls("host", "stop", cwd=project, env=env)
    assert code == 0, err
