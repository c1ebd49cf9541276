"""The host over TCP (``agentls host serve --tcp``) and front ends attached to it with its token
(``AGENTLS_HOST=tcp://HOST:PORT``): real host processes, real `agentls serve` and `agentls run`,
raw sockets for what a stranger might send, 127.0.0.1 only."""

from __future__ import annotations

import argparse
import asyncio
import fcntl
import json
import os
import re
import signal
import socket
import stat
import subprocess
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from core import __version__
from core.remote.attach import AttachError, attach
from core.remote.tcp import TcpHost
from core.remote.wire import PROTOCOL, UNAUTHORIZED
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from host.__main__ import tcp_listen
from tests.acp import conftest as acp_suite
from tests.acp.conftest import Acp
from tests.lsp.editor import uri
from tests.tools import tools_env

from . import test_serve_attached as serve_suite
from .conftest import AGENTLS, ROOT, HostProcess, agentls, start_host
from .test_reattach import start_turn
from .test_serve_attached import EDITED, Serve, until_lent

serves = serve_suite.serves  # `agentls serve` processes (their options name the host)
edits_allowed = serve_suite.edits_allowed
acp = acp_suite.acp  # the ACP suite's project with the fake model, and its SDK client's folder
node_workdir = acp_suite.node_workdir


@dataclass
class TcpHostProcess:
    """A host started with ``--tcp 127.0.0.1:0`` and the token file it reads."""

    process: HostProcess
    address: TcpHost
    token_file: Path

    @property
    def token(self) -> str:
        return self.token_file.read_text().strip()


async def tcp_host(data_dir: Path, env: dict[str, str], token_file: Path) -> AsyncIterator[TcpHostProcess]:
    process, line = await start_host(data_dir, env, "--tcp", "127.0.0.1:0", "--token-file", str(token_file))
    assert line.startswith("ready") and " tcp://127.0.0.1:" in line, process.log_text()
    port = int(line.split()[-1].rsplit(":", 1)[1])
    try:
        yield TcpHostProcess(process, TcpHost("127.0.0.1", port), token_file)
    finally:
        if process.proc.returncode is None:
            process.proc.terminate()
            await asyncio.wait_for(process.proc.wait(), 30)
        assert "Traceback" not in process.log_text(), process.log_text()


@pytest.fixture
async def host(data_dir: Path, env: dict[str, str], tmp_path: Path) -> AsyncIterator[TcpHostProcess]:
    """A host listening on TCP too; its token in a file the test names (written by the host)."""
    async for started in tcp_host(data_dir, env, tmp_path / "host.token"):
        yield started


@pytest.fixture
async def host_allowing_edits(
    edits_allowed: None, data_dir: Path, env: dict[str, str], tmp_path: Path
) -> AsyncIterator[TcpHostProcess]:
    async for started in tcp_host(data_dir, env, tmp_path / "host.token"):
        yield started


def remote_env(env: dict[str, str], host: TcpHostProcess, **extra: str) -> dict[str, str]:
    """A front end's environment for the TCP host (set in the shared dict the `serves` fixture uses)."""
    env.update({"AGENTLS_HOST_TOKEN_FILE": str(host.token_file), **extra})
    return env


async def test_the_token_file_is_written_owner_only_and_kept(
    host: TcpHostProcess, data_dir: Path, env: dict[str, str]
) -> None:
    assert stat.S_IMODE(host.token_file.stat().st_mode) == 0o600
    assert len(host.token) >= 32
    code, shown, err = await agentls("host", "status", cwd=data_dir, env=env)
    assert code == 0, err
    assert f"  tcp: {host.address}; its token in {host.token_file}" in shown, shown
    assert host.token not in host.process.log_text()  # where it is, never what it is
    host.process.proc.terminate()
    await host.process.proc.wait()
    assert host.token_file.exists()  # named by the user: a front end elsewhere keeps a copy


async def test_serve_attached_over_tcp_runs_a_turn_whose_edit_lands_in_its_buffer(
    host_allowing_edits: TcpHostProcess,
    project: Path,
    data_dir: Path,
    env: dict[str, str],
    model: FakeModelServer,
    serves: Callable[..., Any],
) -> None:
    host = host_allowing_edits
    calc = project / "calc.py"
    model.script(
        Turn.tool_call("edit", {"filePath": str(calc), "oldString": "a + b", "newString": "a * b"}),
        Turn.text("Multiplied.", chunks=3),
    )
    # Its own machine's environment: the host's digest check would refuse it over the socket.
    remote_env(env, host, EXAMPLE_API_KEY="only-on-the-laptop")
    serve: Serve = await serves({"host": str(host.address)})
    serve.editor.open(calc, EDITED)  # unsaved: the disk still says `a - b`
    lender = await until_lent(data_dir, calc)
    assert lender["client"] == "pytest-lsp" and lender["workspace"] is True
    session = await serve.call("agent/session/create", {})
    answer = await serve.call(
        "agent/session/prompt",
        {"sessionID": session["id"], "parts": [{"type": "text", "text": "multiply instead"}]},
        timeout=90,
    )
    assert [p["text"] for p in answer["parts"] if p["type"] == "text"] == ["Multiplied."]
    assert serve.editor.edits, "the edit did not go through the editor"
    assert serve.editor.buffers[uri(calc)].text == EDITED.replace("a + b", "a * b")
    assert not [m.message for m in serve.client.messages if "not attached" in m.message]
    # the turn ran in the host: its store, its events (the host's pid is not the server's)
    code, shown, err = await agentls("host", "status", "--json", cwd=project, env=env)
    assert code == 0, err
    status = json.loads(shown)
    assert status["clients"] == ["pytest-lsp"] and status["pid"] == host.process.pid


@dataclass(frozen=True)
class Stranger:
    """What a connection sends first, and what it gets back before the host closes it."""

    name: str
    first: Callable[[str], bytes]  # given the right token
    answer: str | None  # a fragment of the error's message; None: closed unanswered
    code: int | None = UNAUTHORIZED


def hello(token: object, **change: Any) -> bytes:
    params: dict[str, Any] = {"protocol": PROTOCOL, "version": __version__, "client": "raw", "pid": 1}
    if token is not None:
        params["token"] = token
    return json.dumps({"jsonrpc": "2.0", "id": 1, "method": "hello", "params": {**params, **change}}).encode()


STRANGERS = [
    Stranger("wrong token", lambda t: hello("x" * len(t)) + b"\n", "the host's token is wrong"),
    Stranger("no token", lambda _t: hello(None) + b"\n", "the host's token is missing"),
    Stranger("token of another type", lambda t: hello([t]) + b"\n", "the host's token is wrong"),
    Stranger(
        "another request first",
        lambda _t: b'{"jsonrpc":"2.0","id":7,"method":"status","params":{}}\n',
        "the first message must be the hello request",
    ),
    Stranger("a notification first", lambda _t: b'{"jsonrpc":"2.0","method":"lent","params":{}}\n', None),
    Stranger("garbage", lambda _t: b"\x00\xffnot json at all\n", "parse error", -32700),
    Stranger("a JSON array", lambda _t: b"[1, 2]\n", "invalid request", -32600),
    Stranger("an HTTP request", lambda _t: b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", None),
    Stranger("a line too long", lambda _t: b"{" + b" " * 70_000 + b"}\n", None),
    Stranger("more before the answer", lambda t: hello(t) + b"\n" + hello(t) + b"\n", None),
    Stranger("nothing but an end", lambda _t: b"", None),
]


async def exchange(address: TcpHost, data: bytes) -> list[dict[str, Any]]:
    """Send ``data`` on a new connection; the answers read until the host closed it (a hang fails)."""
    reader, writer = await asyncio.open_connection(address.host, address.port)
    writer.write(data)
    if not data:
        writer.write_eof()
    await writer.drain()
    answers: list[dict[str, Any]] = []
    try:
        while line := await asyncio.wait_for(reader.readline(), 30):  # never a hang
            answers.append(json.loads(line))
    except ConnectionResetError:
        pass
    finally:
        writer.close()
    return answers


@pytest.mark.parametrize("stranger", STRANGERS, ids=[s.name for s in STRANGERS])
async def test_anything_but_a_hello_with_the_token_is_refused_and_closed(
    host: TcpHostProcess, stranger: Stranger
) -> None:
    answers = await exchange(host.address, stranger.first(host.token))
    if stranger.answer is None:
        assert answers == []
    else:
        (answer,) = answers
        assert stranger.answer in answer["error"]["message"] and answer["error"]["code"] == stranger.code
    # the token never travels back, and the host serves on
    assert host.token not in json.dumps(answers)
    right, _ = await exchange_hello(host)
    assert right["result"]["pid"] == host.process.pid
    assert host.process.proc.returncode is None


async def exchange_hello(host: TcpHostProcess, *more: dict[str, Any]) -> tuple[dict[str, Any], list[Any]]:
    """A hello with the right token and then ``more`` requests, each answered before the next."""
    reader, writer = await asyncio.open_connection(host.address.host, host.address.port)
    try:
        writer.write(hello(host.token) + b"\n")
        first = json.loads(await asyncio.wait_for(reader.readline(), 30))
        answers = []
        for number, (method, params) in enumerate(item for message in more for item in message.items()):
            request = {"jsonrpc": "2.0", "id": number + 2, "method": method, "params": params}
            writer.write(json.dumps(request).encode() + b"\n")
            answers.append(json.loads(await asyncio.wait_for(reader.readline(), 30)))
        return first, answers
    finally:
        writer.close()


async def test_over_tcp_another_version_is_refused_and_the_host_stays(host: TcpHostProcess) -> None:
    reader, writer = await asyncio.open_connection(host.address.host, host.address.port)
    writer.write(hello(host.token, version="0.0.1") + b"\n")
    answer = json.loads(await asyncio.wait_for(reader.readline(), 30))
    assert await asyncio.wait_for(reader.read(), 30) == b""  # closed
    writer.close()
    message = answer["error"]["message"]
    assert f"the host runs agentls {__version__}, this front end 0.0.1" in message
    assert "install the same version on both machines" in message
    first, _ = await exchange_hello(host)  # not replaced: a remote front end cannot start its successor
    assert first["result"]["pid"] == host.process.pid


async def test_an_environment_of_its_own_is_fine_over_tcp_but_another_protocol_is_not(
    host: TcpHostProcess,
) -> None:
    first, _ = await exchange_hello(host)
    assert "result" in first  # no environment digest was sent, none is asked for
    reader, writer = await asyncio.open_connection(host.address.host, host.address.port)
    writer.write(hello(host.token, protocol=PROTOCOL + 1) + b"\n")
    answer = json.loads(await asyncio.wait_for(reader.readline(), 30))
    writer.close()
    assert f"speaks protocol {PROTOCOL}, this front end protocol {PROTOCOL + 1}" in answer["error"]["message"]


async def test_open_of_a_folder_the_host_cannot_see_is_refused_naming_it(
    host: TcpHostProcess, tmp_path: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    elsewhere = tmp_path / "on-the-laptop-only" / "project"
    _, (refused,) = await exchange_hello(host, {"open": {"directory": str(elsewhere), "layers": []}})
    assert refused["error"]["message"] == (
        f"the host (pid {host.process.pid}) cannot see the folder {elsewhere}: the project must be at "
        "the same absolute path on the host's machine"
    )
    # A front end says so (and runs in its own process): AttachError, with that message.
    monkeypatch.setenv("AGENTLS_HOST_TOKEN_FILE", str(host.token_file))
    with pytest.raises(AttachError, match=f"cannot see the folder {elsewhere}"):
        await attach(elsewhere, data_dir=data_dir, client="test", tcp=host.address)


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])  # nothing listens there once it is closed


@pytest.mark.parametrize(
    ("case", "said"),
    [
        ("wrong token", "the host's token is wrong"),
        ("no token", "no token: set AGENTLS_HOST_TOKEN, or AGENTLS_HOST_TOKEN_FILE"),
        ("a token file others can read", "others may read it (mode -rw-r--r--); chmod 600 it"),
        ("unreachable", "cannot be reached (Connect call failed"),
    ],
)
async def test_a_run_that_cannot_attach_over_tcp_says_why_and_runs_in_its_own_process(
    host: TcpHostProcess,
    project: Path,
    env: dict[str, str],
    model: FakeModelServer,
    tmp_path: Path,
    case: str,
    said: str,
) -> None:
    model.script(Turn.text("answered here"))
    run_env = {**env, "AGENTLS_HOST": str(host.address)}
    if case == "wrong token":
        run_env["AGENTLS_HOST_TOKEN"] = "w" * 40
    elif case == "a token file others can read":
        loose = tmp_path / "loose.token"
        loose.write_text(host.token)
        loose.chmod(0o644)
        run_env["AGENTLS_HOST_TOKEN_FILE"] = str(loose)
    elif case == "unreachable":
        run_env["AGENTLS_HOST"] = f"tcp://127.0.0.1:{_closed_port()}"
        run_env["AGENTLS_HOST_TOKEN_FILE"] = str(host.token_file)
    code, out, err = await agentls("run", "hello?", cwd=project, env=run_env)
    assert code == 0, err
    assert "answered here" in out
    (line,) = [line for line in err.splitlines() if "not attached to the host" in line]
    assert said in line and line.endswith("the agent runs in this process"), err
    assert f"{run_env['AGENTLS_HOST']}" in line, line


async def test_a_run_attached_over_tcp_runs_its_turn_in_the_host(
    host: TcpHostProcess, project: Path, env: dict[str, str], model: FakeModelServer
) -> None:
    model.script(Turn.text("answered by the host"))
    run_env = {**env, "AGENTLS_HOST": str(host.address), "AGENTLS_HOST_TOKEN": host.token}
    code, out, err = await agentls("run", "hello?", cwd=project, env=run_env)
    assert code == 0 and "answered by the host" in out, err
    assert "not attached" not in err
    _, (status,) = await exchange_hello(host, {"status": {}})
    assert [p["directory"] for p in status["result"]["projects"]] == [str(project)]  # the run opened it there


async def test_serve_says_once_when_the_tcp_host_dies_and_goes_on_in_its_own_process(
    host: TcpHostProcess,
    project: Path,
    data_dir: Path,
    env: dict[str, str],
    model: FakeModelServer,
    serves: Callable[..., Any],
) -> None:
    remote_env(env, host)
    serve: Serve = await serves({"host": str(host.address)})
    model.script(Turn.text("never finished", chunks=6).stall(after=2))
    session_id, prompt = await start_turn(serve)  # its first delta reached the editor
    os.kill(host.process.pid, signal.SIGKILL)
    failed = await asyncio.gather(prompt, return_exceptions=True)
    assert f"the agent host (pid {host.process.pid}) stopped during prompt" in str(failed[0]), failed

    def fell_back() -> list[str]:
        return [m.message for m in serve.client.messages if "runs in this process now" in m.message]

    await serve.editor.wait_for(fell_back, timeout=90)
    (text,) = fell_back()
    assert f"a host at {host.address} is not started from this machine" in text, text

    def host_warnings() -> list[dict[str, Any]]:
        return [e["properties"] for e in serve.events("agent.warning") if e["properties"]["kind"] == "host"]

    await serve.editor.wait_for(host_warnings, timeout=30)
    (lost,) = host_warnings()
    assert f"the agent host at {host.address} (pid {host.process.pid}) stopped" in lost["message"]
    assert lost["sessionID"] == session_id and serve.events("session.idle", session_id)  # no spinner left
    model.script(Turn.text("in this process"))
    answer = await serve.call(  # (this machine's store has the session: the test's host shares it)
        "agent/session/prompt",
        {"sessionID": session_id, "parts": [{"type": "text", "text": "still there?"}]},
        timeout=90,
    )
    assert [p["text"] for p in answer["parts"] if p["type"] == "text"] == ["in this process"]
    assert len(fell_back()) == 1 and len(host_warnings()) == 1  # each said once
    assert not (data_dir / "host.lock").exists() or not _lock_held(data_dir)  # no local host was started


def _lock_held(data_dir: Path) -> bool:
    with (data_dir / "host.lock").open() as held:
        try:
            fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
    return False


async def test_a_run_attached_over_tcp_says_when_the_host_dies_and_starts_none(
    host: TcpHostProcess, project: Path, env: dict[str, str], model: FakeModelServer, data_dir: Path
) -> None:
    model.script(Turn.text("never finished", chunks=6).stall(after=2))
    run_env = {**env, "AGENTLS_HOST": str(host.address), "AGENTLS_HOST_TOKEN": host.token}
    run = await asyncio.create_subprocess_exec(
        *AGENTLS,
        "run",
        "remember me",
        cwd=project,
        env=run_env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    await model.wait_for_requests(1, timeout=60)
    os.kill(host.process.pid, signal.SIGKILL)
    _, err = await asyncio.wait_for(run.communicate(), 60)
    text = err.decode()
    assert run.returncode == 1, text
    assert text.count("the turn ended with the host") == 1, text
    assert f"agentls: the host at {host.address} is not restarted from here" in text, text
    assert "Traceback" not in text
    assert not _lock_held(data_dir)  # no host was started on this machine


async def test_host_start_with_tcp_in_the_background_and_its_generated_token(
    project: Path, data_dir: Path, env: dict[str, str]
) -> None:
    code, out, err = await agentls("host", "start", "--tcp", "127.0.0.1:0", cwd=project, env=env)
    assert code == 0, err
    found = re.search(r"started \(pid (\d+), .+; (tcp://127\.0\.0\.1:\d+), its token in (.+)\)$", out.strip())
    assert found is not None, out
    token_file = data_dir / "tcp" / f"host-{found.group(1)}.token"
    assert found.group(3) == str(token_file) and stat.S_IMODE(token_file.stat().st_mode) == 0o600
    code, again, _ = await agentls("host", "start", "--tcp", "127.0.0.1:0", cwd=project, env=env)
    assert code == 0 and f"already running (pid {found.group(1)}; {found.group(2)}" in again, again
    code, _, err = await agentls("host", "stop", cwd=project, env=env)
    assert code == 0, err
    assert not token_file.exists()  # generated for that start only
    # A host that runs without TCP is not one a `--tcp` start asked for: said, exit 1.
    code, _, err = await agentls("host", "start", cwd=project, env=env)
    assert code == 0, err
    code, out, err = await agentls("host", "start", "--tcp", "127.0.0.1:0", cwd=project, env=env)
    assert code == 1 and "it does not listen on TCP: `agentls host stop` it first" in err, (out, err)
    await agentls("host", "stop", cwd=project, env=env)


@pytest.mark.slow
async def test_a_connection_that_sends_no_hello_is_closed(host: TcpHostProcess) -> None:
    reader, writer = await asyncio.open_connection(host.address.host, host.address.port)
    try:
        assert await asyncio.wait_for(reader.read(), 60) == b""  # closed by the host after 30 s
    finally:
        writer.close()
    assert "before its hello: no hello in 30 s" in host.process.log_text()


@pytest.fixture
async def acp_tcp_host(acp: Acp, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[TcpHostProcess]:
    """A TCP host on the ACP agent's data dir, with the ACP agent's config (as the ACP suite's)."""
    for name in ("AGENTLS_CONFIG", "AGENTLS_CONFIG_CONTENT", "AGENTLS_PERMISSION", "AGENTLS_DATA_DIR"):
        monkeypatch.delenv(name, raising=False)
    ours = {"AGENTLS_CONFIG_DIR": str(acp.data / "config"), "XDG_CONFIG_HOME": str(acp.data / "xdg")}
    env = {**tools_env(), **ours, "PYTHONPATH": str(ROOT)}
    env.pop("AGENTLS_DATA_DIR", None)
    async for started in tcp_host(acp.data, env, acp.data / "host.token"):
        yield started


async def test_acp_attached_over_tcp_runs_its_turn_in_the_host(
    acp_tcp_host: TcpHostProcess, acp: Acp
) -> None:
    host = acp_tcp_host
    acp.model.script(Turn.text("Answered by the host."))
    run = await acp.run(
        "turn", PROMPT="hello?", AGENTLS_HOST=str(host.address), AGENTLS_HOST_TOKEN_FILE=str(host.token_file)
    )
    assert run.failure is None, run.failure
    assert run.text() == "Answered by the host."
    _, (status,) = await exchange_hello(host, {"status": {}})
    assert [p["directory"] for p in status["result"]["projects"]] == [str(acp.project.resolve())], run.stderr


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--tcp", "0.0.0.0:0"], "--tcp 0.0.0.0: not a loopback address; anyone who reaches it could"),
        (["--tcp", "127.0.0.1"], "--tcp 127.0.0.1: expected HOST:PORT"),
        (["--token-env", "NOPE"], "--token-file, --token-env and --allow-remote go with --tcp HOST:PORT"),
        (["--tcp", "127.0.0.1:0", "--token-env", "NO_SUCH_VARIABLE"], "must hold at least 16 characters"),
    ],
)
async def test_host_serve_refuses_a_bad_tcp_option(
    args: list[str], said: str, project: Path, env: dict[str, str]
) -> None:
    code, _, err = await agentls("host", "serve", *args, cwd=project, env=env, timeout=60)
    assert code == 2 and said in err, err


async def test_host_serve_on_a_tcp_port_in_use_says_so(project: Path, env: dict[str, str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, _, err = await agentls(
            "host", "serve", "--tcp", f"127.0.0.1:{port}", cwd=project, env=env, timeout=60
        )
    assert code == 1 and "address already in use" in err, err


def test_allow_remote_binds_beyond_loopback_with_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = argparse.Namespace(tcp="0.0.0.0:7777", token_file=None, token_env=None, allow_remote=True)
    listen = tcp_listen(args, tmp_path)  # (nothing is bound here)
    assert listen is not None and (listen.host, listen.port) == ("0.0.0.0", 7777)
    assert "listening on 0.0.0.0, beyond loopback" in capsys.readouterr().err
    assert listen.token.created == tmp_path / "tcp" / f"host-{os.getpid()}.token"  # removed at exit
    loopback = argparse.Namespace(tcp="[::1]:0", token_file=None, token_env=None, allow_remote=False)
    assert tcp_listen(loopback, tmp_path) is not None and capsys.readouterr().err == ""


def _as_nobody(port: int, token: str) -> subprocess.CompletedProcess[str]:
    script = (
        "import json, socket, sys\n"
        f"s = socket.create_connection(('127.0.0.1', {port}))\n"
        "s.sendall(sys.stdin.readline().encode())\n"
        "print(s.makefile().readline())\n"
    )
    return subprocess.run(
        ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "/usr/bin/python3", "-c", script],
        input=hello(token).decode() + "\n",
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


@pytest.mark.skipif(os.getuid() != 0, reason="needs root to run a client as a second user (nobody)")
async def test_over_tcp_the_token_counts_not_the_uid(host: TcpHostProcess) -> None:
    accepted = await asyncio.to_thread(_as_nobody, host.address.port, host.token)
    assert json.loads(accepted.stdout)["result"]["pid"] == host.process.pid, accepted.stderr
    refused = await asyncio.to_thread(_as_nobody, host.address.port, "n" * 43)
    assert "the host's token is wrong" in json.loads(refused.stdout)["error"]["message"], refused.stderr
