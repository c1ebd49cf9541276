"""What goes wrong between front ends and the host, each with real processes: a front end of
another protocol, agentls version or environment; a stale socket; a second host; a broken or
oversized frame; a host killed mid-turn; another user; a socket folder open to others."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import site
import socket
import subprocess
from pathlib import Path
from typing import Any

import pytest

import core.errors as errors
from core import __version__
from core.message.prompt_input import TextInput
from core.open import open_agent
from core.remote.agent import RemoteAgent
from core.remote.attach import attach
from core.remote.connection import ConnectionLost
from core.remote.place import environment_digest, socket_path
from core.remote.wire import MAX_FRAME, PROTOCOL
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn

from .conftest import AGENTLS, HostProcess, agentls, attach_as, start_host


async def raw(data_dir: Path, *lines: bytes) -> list[dict[str, Any]]:
    """Send ``lines`` on a fresh connection and read every answer until the host closes it."""
    reader, writer = await asyncio.open_unix_connection(socket_path(data_dir))
    for line in lines:
        writer.write(line)
    await writer.drain()
    answers = []
    while line := await asyncio.wait_for(reader.readline(), 30):
        answers.append(json.loads(line))
    writer.close()
    return answers


def hello(**change: Any) -> bytes:
    params = {
        "protocol": PROTOCOL,
        "version": __version__,
        "client": "test",
        "environment": environment_digest(),
        **change,
    }
    return json.dumps({"jsonrpc": "2.0", "id": 1, "method": "hello", "params": params}).encode() + b"\n"


async def test_a_front_end_of_another_protocol_is_refused_with_a_message(
    host: HostProcess, data_dir: Path
) -> None:
    (answer,) = await raw(data_dir, hello(protocol=PROTOCOL + 1))  # then the host closes: no hang
    assert f"speaks protocol {PROTOCOL}" in answer["error"]["message"]
    assert "agentls host stop" in answer["error"]["message"]
    assert host.proc.returncode is None


async def test_another_agentls_version_replaces_an_idle_host(host: HostProcess, data_dir: Path) -> None:
    (answer,) = await raw(data_dir, hello(version="0.0.1"))
    assert "the host runs agentls" in answer["error"]["message"] and "stops now" in answer["error"]["message"]
    assert await asyncio.wait_for(host.proc.wait(), 30) == 0


async def test_another_version_waits_for_a_busy_host(
    host: HostProcess, data_dir: Path, project: Path, front_ends: list[RemoteAgent]
) -> None:
    editor = await attach_as(front_ends, project, data_dir, "editor")
    (answer,) = await raw(data_dir, hello(version="0.0.1"))
    assert "stops when its running work ends" in answer["error"]["message"]
    assert await editor.list_sessions() == []  # the editor attached before goes on
    front_ends.remove(editor)
    await editor.close()  # then nothing is attached: the replaced host exits
    assert await asyncio.wait_for(host.proc.wait(), 30) == 0


async def test_a_front_end_with_another_environment_runs_in_process_and_says_why(
    host: HostProcess, project: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTLS_PERMISSION", '{"bash": "allow"}')
    notices: list[str] = []
    agent = await open_agent(project, data_dir=data_dir, host="attach", notice=notices.append)
    try:
        assert not isinstance(agent, RemoteAgent)
        assert len(notices) == 1 and "another environment" in notices[0] and "in this process" in notices[0]
    finally:
        await agent.close()


async def test_requests_before_hello_are_refused(host: HostProcess, data_dir: Path) -> None:
    call = {"jsonrpc": "2.0", "id": 7, "method": "status", "params": {}}
    reader, writer = await asyncio.open_unix_connection(socket_path(data_dir))
    writer.write(json.dumps(call).encode() + b"\n")
    answer = json.loads(await asyncio.wait_for(reader.readline(), 30))
    writer.close()
    assert answer["id"] == 7 and "the first request must be hello" in answer["error"]["message"]


@pytest.mark.parametrize(
    ("frame", "logged"),
    [
        (b"not json\n", "a message that is not JSON"),
        (b"[1, 2]\n", "a message that is not a JSON object"),
        (b"\xff\xfe\n", "a message that is not JSON"),
        (b"x" * (MAX_FRAME + 1), f"a message longer than {MAX_FRAME} bytes"),
    ],
    ids=["not-json", "not-an-object", "not-utf8", "oversized"],
)
async def test_a_broken_frame_closes_that_connection_only(
    host: HostProcess,
    data_dir: Path,
    project: Path,
    front_ends: list[RemoteAgent],
    frame: bytes,
    logged: str,
) -> None:
    reader, writer = await asyncio.open_unix_connection(socket_path(data_dir))
    writer.write(hello())
    assert json.loads(await asyncio.wait_for(reader.readline(), 30))["result"]["protocol"] == PROTOCOL
    writer.write(frame)
    await writer.drain()
    assert await asyncio.wait_for(reader.read(), 30) == b""  # closed, without an answer
    writer.close()
    assert host.proc.returncode is None
    agent = await attach_as(front_ends, project, data_dir, "after")
    assert await agent.list_sessions() == []
    assert f"host connection: {logged}" in host.log_text()


async def test_a_stale_socket_is_no_host_and_a_new_host_replaces_it(
    data_dir: Path, env: dict[str, str], project: Path, model: FakeModelServer
) -> None:
    path = socket_path(data_dir)
    dead = socket.socket(socket.AF_UNIX)
    dead.bind(str(path))  # a host that died without removing its socket
    dead.close()
    model.script(Turn.text("in process"))
    code, out, err = await agentls("run", "hi", cwd=project, env=env)
    assert code == 0 and "in process" in out and err == ""
    process, line = await start_host(data_dir, env)
    try:
        assert line.startswith("ready"), process.log_text()
        code, out, err = await agentls("host", "status", cwd=project, env=env)
        assert code == 0 and f"pid {process.pid}" in out, err
    finally:
        process.proc.terminate()
        await process.proc.wait()


async def test_a_second_host_on_one_data_dir_is_refused(
    host: HostProcess, data_dir: Path, env: dict[str, str]
) -> None:
    second, line = await start_host(data_dir, env)
    assert line == ""
    assert await asyncio.wait_for(second.proc.wait(), 30) == 1
    assert f"a host already runs on {data_dir} (pid {host.pid})" in second.log_text()
    assert host.proc.returncode is None


async def test_a_host_killed_mid_turn_keeps_what_was_committed_and_a_new_one_serves(
    host: HostProcess,
    project: Path,
    data_dir: Path,
    env: dict[str, str],
    model: FakeModelServer,
    front_ends: list[RemoteAgent],
) -> None:
    model.script(Turn.text("never finished", chunks=6).stall(after=2))
    agent = await attach_as(front_ends, project, data_dir, "editor")
    session = await agent.create_session()
    with agent.subscribe(session_id=session.id) as sub:
        turn = asyncio.create_task(agent.prompt(session.id, [TextInput(type="text", text="remember me")]))
        while (await asyncio.wait_for(sub.get(), 30)).TYPE != "message.part.delta":
            pass
    os.kill(host.pid, signal.SIGKILL)
    with pytest.raises(ConnectionLost):
        await asyncio.wait_for(turn, 30)
    assert agent.lost.is_set()
    model.script(Turn.text("back"))
    again = await attach(project, data_dir=data_dir, client="editor", mode="auto")
    front_ends.append(again)
    assert again.host_pid != host.pid
    messages = await again.messages(session.id)
    assert [p.text for p in messages[0].parts if p.type == "text"] == ["remember me"]
    answer = await again.prompt(session.id, [TextInput(type="text", text="still there?")])
    assert [p.text for p in answer.parts if p.type == "text"] == ["back"]
    await again.close()
    front_ends.remove(again)
    await agentls("host", "stop", cwd=project, env=env)


async def test_run_says_once_that_the_host_died_mid_turn(
    host: HostProcess, project: Path, env: dict[str, str], model: FakeModelServer
) -> None:
    model.script(Turn.text("cut off", chunks=6).stall(after=2))
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
    os.kill(host.pid, signal.SIGKILL)
    _, err = await asyncio.wait_for(run.communicate(), 60)
    assert run.returncode == 1
    text = err.decode()
    assert text.count("the turn ended with the host") == 1, text
    # the prompt and the answer the model had begun (created before its request was sent)
    assert "host restarted; the session keeps 2 message(s) (agentls sessions show ses_" in text
    assert "Traceback" not in text
    code, out, err = await agentls("host", "status", "--json", cwd=project, env=env)
    assert code == 0 and json.loads(out)["pid"] != host.pid, err  # a new host took over
    await agentls("host", "stop", cwd=project, env=env)


def _as_nobody(path: Path) -> subprocess.CompletedProcess[str]:
    script = (
        "import socket, sys\n"
        "s = socket.socket(socket.AF_UNIX)\n"
        "try:\n"
        f"    s.connect({str(path)!r})\n"
        "except OSError as e:\n"
        "    print('connect failed:', e.strerror); sys.exit(0)\n"
        "print(s.makefile().readline())\n"
    )
    return subprocess.run(
        ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "/usr/bin/python3", "-c", script],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


@pytest.mark.skipif(os.getuid() != 0, reason="needs root to run a client as a second user (nobody)")
async def test_another_user_cannot_attach(host: HostProcess, data_dir: Path) -> None:
    path = socket_path(data_dir)
    assert path.stat().st_mode & 0o777 == 0o600 and path.parent.stat().st_mode & 0o777 == 0o700
    blocked = await asyncio.to_thread(_as_nobody, path)
    assert "connect failed: Permission denied" in blocked.stdout, blocked.stderr
    # Even with the folder and the socket opened up by mistake, the peer's uid is refused.
    assert path.parent.parent.parent == Path("/tmp")  # the test's own runtime dir: safe to open up
    for folder in (path.parent, path.parent.parent):
        folder.chmod(0o755)
    path.chmod(0o666)
    refused = await asyncio.to_thread(_as_nobody, path)
    assert refused.stdout.startswith("{"), (refused.stdout, refused.stderr)
    answer = json.loads(refused.stdout)
    assert answer["error"]["message"] == f"refused: this host serves uid {os.getuid()} only"
    assert host.proc.returncode is None


async def test_a_socket_folder_open_to_others_is_not_used(
    project: Path, data_dir: Path, env: dict[str, str], runtime_dir: Path
) -> None:
    (runtime_dir / "agentls").mkdir()
    (runtime_dir / "agentls").chmod(0o777)
    notices: list[str] = []
    agent = await open_agent(project, data_dir=data_dir, host="auto", notice=notices.append)
    try:
        assert not isinstance(agent, RemoteAgent)
        assert len(notices) == 1 and "can be opened by other users" in notices[0]
    finally:
        await agent.close()


async def test_an_upgraded_run_replaces_an_idle_host_of_the_old_version(
    data_dir: Path, env: dict[str, str], project: Path, model: FakeModelServer, tmp_path: Path
) -> None:
    old_tree = tmp_path / "old-agentls"
    await asyncio.to_thread(_copy_tree_as_version, old_tree, "0.0.1")
    # -S: no site hooks, so the editable install's finder cannot put this tree's modules first.
    path = os.pathsep.join([str(old_tree), *site.getsitepackages()])
    old, line = await start_host(data_dir, {**env, "PYTHONPATH": path}, python=("-S",))
    assert line.startswith("ready"), old.log_text()
    code, out, err = await agentls("host", "status", "--json", cwd=project, env=env)
    assert json.loads(out)["version"] == "0.0.1", (out, err)
    model.script(Turn.text("from the new host"))
    code, out, err = await agentls("run", "hi", "--attach", cwd=project, env=env)
    assert code == 0 and "from the new host" in out, err
    assert "not attached" not in err
    assert await asyncio.wait_for(old.proc.wait(), 30) == 0  # the old host stopped, idle
    code, out, err = await agentls("host", "status", "--json", cwd=project, env=env)
    state = json.loads(out)
    assert state["version"] == __version__ and state["pid"] != old.pid
    await agentls("host", "stop", cwd=project, env=env)


def _copy_tree_as_version(target: Path, version: str) -> None:
    """agentls's packages copied to ``target``, with ``core.__version__`` set to ``version``."""
    root = Path(__file__).resolve().parents[2]
    ignore = shutil.ignore_patterns("__pycache__")
    # the host runs `agentls run` turns (cli/run_turn.py) and names its hosted sessions (agentls/boot.py)
    for package in ("agentls", "core", "host", "cli", "prompts"):
        shutil.copytree(root / package, target / package, ignore=ignore)
    init = target / "core" / "__init__.py"
    init.write_text(init.read_text().replace(f'"{__version__}"', f'"{version}"'))


async def test_a_project_that_failed_to_open_opens_for_the_next_front_end(
    host: HostProcess, project: Path, data_dir: Path, tmp_path: Path, front_ends: list[RemoteAgent]
) -> None:
    user_config = tmp_path / "config" / "agentls.json"
    user_config.parent.mkdir(parents=True, exist_ok=True)
    user_config.write_text("{ not json")
    with pytest.raises(errors.ConfigError):
        await attach(project, data_dir=data_dir, client="first", mode="attach")
    user_config.write_text("{}")
    agent = await attach_as(front_ends, project, data_dir, "second")
    assert await agent.list_sessions() == []
