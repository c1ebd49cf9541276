"""``agentls serve --tcp`` over real sockets: only a client with the token gets anything.

Each test starts the real server process on 127.0.0.1 port 0 and speaks bytes to it, as an editor
(or an attacker on the same machine, or a web page) would.
"""

from __future__ import annotations

import json
import os
import re
import socket
import stat
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from core.errors import ConfigError
from core.remote.tcp import Token, check_host
from lsp_server.tcp import Refusal, authenticate
from tests.lsp.editor import REPO, serve_command, server_env, uri
from tests.lsp.test_bad_input import UNUSUAL

TIMEOUT = 30.0


@dataclass
class Tcp:
    proc: subprocess.Popen[bytes]
    port: int
    token_file: Path | None
    log: list[str]

    def token(self) -> str:
        assert self.token_file is not None
        return self.token_file.read_text().strip()


def start_server(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> Tcp:
    """The server on ``--tcp 127.0.0.1:0`` (or ``args``), once it printed its port and token file."""
    command = serve_command("--log-level", "INFO", *(args or ("--tcp", "127.0.0.1:0")))
    proc = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        cwd=REPO,
        env={**server_env(tmp_path / "data"), **(env or {})},
    )
    assert proc.stderr is not None
    log: list[str] = []
    port = None
    for raw in proc.stderr:  # ends when the process does: a refused start ends the loop too
        line = raw.decode(errors="replace").rstrip("\n")
        log.append(line)
        if found := re.search(r"listening on \S+:(\d+)$", line):
            port = int(found.group(1))
        if found := re.search(r"token in (.+) \(send it", line):
            token_file = Path(found.group(1)) if found.group(1).startswith("/") else None
            assert port is not None
            return Tcp(proc, port, token_file, log)
    proc.wait(TIMEOUT)
    return Tcp(proc, 0, None, log)


@pytest.fixture
def tcp(tmp_path: Path) -> Iterator[Tcp]:
    server = start_server(tmp_path)
    yield server
    stop(server)


def stop(server: Tcp) -> None:
    if server.proc.poll() is None:
        server.proc.terminate()
        server.proc.wait(TIMEOUT)
    if server.proc.stderr is not None:
        server.proc.stderr.close()


class Client:
    """A bare socket speaking Content-Length frames."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
        self.file = self.sock.makefile("rb")
        self.next_id = 0

    def write(self, data: bytes) -> None:
        self.sock.sendall(data)

    def send(self, method: str, params: Any) -> int:
        self.next_id += 1
        self.write(frame({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}))
        return self.next_id

    def read(self) -> dict[str, Any] | None:
        """The next frame; None when the server closed the connection."""
        length = None
        while (line := self.file.readline()) not in (b"\r\n", b""):
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        if not line or length is None:
            return None
        message: dict[str, Any] = json.loads(self.file.read(length))
        return message

    def answer(self, msg_id: int) -> dict[str, Any]:
        while (message := self.read()) is not None:
            if message.get("id") == msg_id and "method" not in message:
                return message
        raise EOFError("the server closed the connection")

    def close(self) -> None:
        self.file.close()
        self.sock.close()


def frame(message: dict[str, Any] | bytes) -> bytes:
    body = message if isinstance(message, bytes) else json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


def init_params(root: Path, token: str | None) -> dict[str, Any]:
    options = {} if token is None else {"token": token}
    return {"processId": None, "rootUri": uri(root), "capabilities": {}, "initializationOptions": options}


def initialized(tcp: Tcp, root: Path) -> Client:
    client = Client(tcp.port)
    reply = client.answer(client.send("initialize", init_params(root, tcp.token())))
    assert "result" in reply, reply
    client.write(frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
    return client


def test_the_token_file_is_owner_only(tcp: Tcp) -> None:
    assert tcp.token_file is not None
    assert stat.S_IMODE(tcp.token_file.stat().st_mode) == 0o600
    assert len(tcp.token()) >= 32


@pytest.mark.parametrize("token", [None, "wrong-token-of-some-length", ""], ids=["missing", "wrong", "empty"])
def test_initialize_without_the_right_token_is_refused_and_closed(
    tcp: Tcp, project: Path, token: Any
) -> None:
    client = Client(tcp.port)
    reply = client.answer(client.send("initialize", init_params(project, token)))
    assert reply["error"]["code"] == -32015, reply
    assert "initializationOptions.token" in reply["error"]["message"]
    assert str(tcp.token_file) in reply["error"]["message"]  # where the user finds it
    assert client.read() is None  # closed
    client.close()
    # A good client still gets in afterwards.
    good = initialized(tcp, project)
    assert "sessions" in good.answer(good.send("agent/session/list", {}))["result"]
    good.close()


def test_nothing_works_before_an_authenticated_initialize(tcp: Tcp, project: Path) -> None:
    client = Client(tcp.port)
    for method in ("agent/session/list", "agent/config", "workspace/executeCommand"):
        reply = client.answer(client.send(method, {}))
        assert reply["error"]["code"] == -32002, reply
        assert "not authenticated" in reply["error"]["message"]
    client.write(frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))  # dropped
    reply = client.answer(client.send("initialize", init_params(project, tcp.token())))
    assert "result" in reply, reply
    client.close()


def test_the_right_token_works_and_stays_out_of_the_log(tcp: Tcp, project: Path) -> None:
    client = initialized(tcp, project)
    assert client.answer(client.send("agent/session/list", {}))["result"] == {"sessions": []}
    token = tcp.token()
    client.close()
    stop(tcp)
    assert not [line for line in tcp.log if token in line]
    assert tcp.token_file is not None and not tcp.token_file.exists()  # removed when the server ends


@pytest.mark.parametrize(
    "request_line",
    [b"GET / HTTP/1.1\r\n", b"POST /rpc HTTP/1.1\r\n", b"OPTIONS * HTTP/1.1\r\n", b"PRI * HTTP/2.0\r\n"],
    ids=["GET", "POST", "OPTIONS", "HTTP2"],
)
def test_an_http_request_is_closed_unanswered(tcp: Tcp, project: Path, request_line: bytes) -> None:
    client = Client(tcp.port)
    body = json.dumps(
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init_params(project, None)}
    )
    client.write(
        request_line + b"Host: 127.0.0.1\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body.encode())
    )
    assert client.file.read() == b""  # closed, nothing written
    client.close()
    good = initialized(tcp, project)
    good.close()


# Frames that a stdio client gets answered: over TCP they are answered too.
FRAMES: dict[str, tuple[bytes, int | None]] = {
    "lower-case content-length": (b"content-length: %d\r\n\r\n%s", None),
    "a duplicate header": (
        b"Content-Length: %d\r\nContent-Type: x\r\nContent-Type: x\r\nContent-Length: %d\r\n\r\n%s",
        None,
    ),
}


@pytest.mark.parametrize("name", list(FRAMES))
def test_unusual_headers_are_answered(tcp: Tcp, project: Path, name: str) -> None:
    client = Client(tcp.port)
    body = json.dumps(
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init_params(project, tcp.token())}
    )
    template, _ = FRAMES[name]
    data = body.encode()
    client.write(
        template % ((len(data), data) if template.count(b"%d") == 1 else (len(data), len(data), data))
    )
    assert "result" in client.answer(1)
    client.close()


def test_an_initialize_that_does_not_fit_is_answered(tcp: Tcp, project: Path) -> None:
    client = Client(tcp.port)
    params = {**init_params(project, tcp.token()), "capabilities": [], "workspaceFolders": "x"}
    reply = client.answer(client.send("initialize", params))
    assert reply["error"]["code"] == -32602, reply
    reply = client.answer(client.send("initialize", init_params(project, tcp.token())))
    assert "result" in reply, reply
    client.close()


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.0.2.1", "example.org"])
def test_a_bind_beyond_loopback_needs_allow_remote(tmp_path: Path, host: str) -> None:
    bracketed = f"[{host}]" if ":" in host else host
    server = start_server(tmp_path, "--tcp", f"{bracketed}:0")
    assert server.proc.returncode == 2, server.log
    assert any("--allow-remote" in line for line in server.log), server.log
    stop(server)


def test_allow_remote_binds_every_address(tmp_path: Path, project: Path) -> None:
    server = start_server(tmp_path, "--tcp", "0.0.0.0:0", "--allow-remote")
    try:
        assert server.proc.poll() is None, server.log
        client = initialized(server, project)  # reached over 127.0.0.1
        client.close()
    finally:
        stop(server)


def test_a_token_from_a_file_or_the_environment(tmp_path: Path, project: Path) -> None:
    token_file = tmp_path / "token"
    token_file.write_text("a-token-the-user-chose-1234\n")
    os.chmod(token_file, 0o644)
    loose = start_server(tmp_path, "--tcp", "127.0.0.1:0", "--token-file", str(token_file))
    assert loose.proc.returncode == 2 and any("chmod 600" in line for line in loose.log), loose.log
    stop(loose)
    os.chmod(token_file, 0o600)
    from_file = start_server(tmp_path, "--tcp", "127.0.0.1:0", "--token-file", str(token_file))
    try:
        initialized(from_file, project).close()
    finally:
        stop(from_file)
    assert token_file.exists()  # the user's file stays
    env = {"MY_AGENTLS_TOKEN": "another-token-of-the-user-5678"}
    from_env = start_server(tmp_path, "--tcp", "127.0.0.1:0", "--token-env", "MY_AGENTLS_TOKEN", env=env)
    try:
        client = Client(from_env.port)
        reply = client.answer(client.send("initialize", init_params(project, env["MY_AGENTLS_TOKEN"])))
        assert "result" in reply, reply
        client.close()
    finally:
        stop(from_env)


TOKEN = Token("the-right-token-0123456789", "/run/agentls.token")


def initialize_body(options: Any, method: str = "initialize", msg_id: Any = 1) -> bytes:
    params = {"processId": None, "capabilities": {}, "initializationOptions": options}
    return json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}).encode()


# (body, the error code answered or None for no answer, whether the connection is closed)
REFUSED: dict[str, tuple[bytes, int | None, bool]] = {
    "no options": (initialize_body(None), -32015, True),
    "options a list": (initialize_body(["the-right-token-0123456789"]), -32015, True),
    "no token": (initialize_body({"config": {}}), -32015, True),
    "token a number": (initialize_body({"token": 5}), -32015, True),
    "wrong token": (initialize_body({"token": "the-wrong-token-0123456789"}), -32015, True),
    "a prefix of the token": (initialize_body({"token": "the-right-token"}), -32015, True),
    "the token plus more": (initialize_body({"token": "the-right-token-0123456789x"}), -32015, True),
    "token in another field": (
        initialize_body({"config": {"token": "the-right-token-0123456789"}}),
        -32015,
        True,
    ),
    "another request first": (initialize_body({"token": TOKEN.value}, "agent/session/list"), -32002, False),
    "a notification first": (b'{"jsonrpc": "2.0", "method": "initialized", "params": {}}', None, False),
    "not JSON": (b"{nope", -32700, True),
    "a list": (b"[1]", -32600, True),
    "too deep": (b"[" * 50_000 + b"]" * 50_000, -32700, True),
}


@pytest.mark.parametrize("name", list(REFUSED))
def test_authenticate_refuses(name: str) -> None:
    body, code, close = REFUSED[name]
    with pytest.raises(Refusal) as refused:
        authenticate(body, TOKEN)
    if name == "a notification first":
        assert refused.value.answer is None  # notifications are dropped, not answered
    else:
        assert refused.value.answer is not None and refused.value.answer["error"]["code"] == code
    assert refused.value.close is close
    assert TOKEN.value not in str(refused.value.answer)  # the refusal never tells the token


def test_authenticate_takes_the_token_out() -> None:
    body = authenticate(initialize_body({"token": TOKEN.value, "config": {"model": "x"}}), TOKEN)
    assert json.loads(body)["params"]["initializationOptions"] == {"config": {"model": "x"}}


@pytest.mark.parametrize(
    ("host", "allowed"),
    [
        ("127.0.0.1", True),
        ("127.8.9.10", True),
        ("localhost", True),
        ("[::1]", True),
        ("", True),
        ("0.0.0.0", False),
        ("[::]", False),
        ("10.0.0.1", False),
        ("192.168.1.2", False),
        ("example.org", False),
        ("127.0.0.1.nip.io", False),
    ],
)
def test_only_loopback_binds_without_allow_remote(host: str, allowed: bool) -> None:
    if allowed:
        assert check_host(host, allow_remote=False) in (host.strip("[]"), "127.0.0.1")
    else:
        with pytest.raises(ConfigError, match="--allow-remote"):
            check_host(host, allow_remote=False)
        assert check_host(host, allow_remote=True) == host.strip("[]")


@pytest.mark.parametrize("name", list(UNUSUAL))
def test_an_unusual_message_gets_an_answer_over_tcp(tcp: Tcp, project: Path, name: str) -> None:
    body, code, answered_id = UNUSUAL[name]
    client = initialized(tcp, project)
    client.write(frame(body))
    while (reply := client.read()) is not None and ("method" in reply or "error" not in reply):
        pass
    assert reply is not None and reply["error"]["code"] == code, reply
    assert "id" in reply and reply["id"] == answered_id, reply
    assert "sessions" in client.answer(client.send("agent/session/list", {}))["result"]  # still serving
    client.close()
