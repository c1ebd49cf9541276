"""The server never outlives its editor, survives nothing it should not, and answers every request.

Real processes only: ``agentls serve`` over pipes, the fake model in a thread, real ``sleep`` children
started by the real bash tool, real signals.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.lsp.conftest import agent_config
from tests.lsp.raw import RawServer, frame, group_alive, processes_with

Start = Callable[..., RawServer]


@pytest.fixture
def models() -> Iterator[tuple[FakeModelServer, FakeModelServer]]:
    with FakeModelServer.threaded() as main, FakeModelServer.threaded() as titles:
        titles.script(*[Turn.text("A title") for _ in range(10)])
        yield main, titles


@pytest.fixture
def start(tmp_path: Path, project: Path, models: tuple[FakeModelServer, FakeModelServer]) -> Iterator[Start]:
    servers: list[RawServer] = []

    def run(permission: dict[str, str] | None = None, process_id: int | None = None) -> RawServer:
        server = RawServer(project, tmp_path / "data")
        servers.append(server)
        config = agent_config(*models, permission=permission or {"bash": "allow"})
        server.initialize({"config": config}, process_id, window={"workDoneProgress": True})
        server.request("agent/config", {})  # the agent (store, model library) is loaded
        return server

    yield run
    for server in servers:
        server.close()


_POLL = threading.Event()  # never set: its wait() is the poll interval


def wait_until(condition: Callable[[], Any], timeout: float = 20.0) -> Any:
    deadline = time.monotonic() + timeout
    while not (value := condition()):
        if time.monotonic() > deadline:
            raise TimeoutError("condition not met in time")
        _POLL.wait(0.05)  # /proc offers no event to wait on: a poll with a deadline
    return value


def prompt(server: RawServer, text: str) -> int:
    return server.send("workspace/executeCommand", {"command": "agentls.prompt", "arguments": [text]})


def sleeping_tool(model: FakeModelServer, marker: int) -> None:
    """A bash call whose shell starts two children that would sleep for minutes."""
    command = f"sleep {marker} & sleep {marker + 1}; wait"
    model.script(Turn.tool_call("bash", {"command": command, "description": "sleep"}), Turn.text("done"))


def assert_gone(server: RawServer, within: float) -> None:
    code = server.wait_exit(within)
    assert code is not None, f"the server is still running {within}s later; log:\n" + "\n".join(server.log)
    assert not group_alive(server.proc.pid), "a process of the server's group survived it"


@pytest.mark.parametrize("state", ["idle", "tool", "dialog"])
def test_exits_when_the_editor_closes_stdin(
    start: Start, models: tuple[FakeModelServer, FakeModelServer], state: str
) -> None:
    server = start(permission={"bash": "ask" if state == "dialog" else "allow"})
    marker = 4100 + os.getpid() % 500 * 2
    if state != "idle":
        sleeping_tool(models[0], marker)
        prompt(server, "sleep")
    if state == "tool":
        wait_until(lambda: len(processes_with(f"sleep {marker}")) >= 1)
    if state == "dialog":
        server.next(lambda m: m.get("method") == "window/showMessageRequest")
    assert server.proc.stdin is not None
    server.proc.stdin.close()
    assert_gone(server, within=2.0 if state != "tool" else 4.0)
    assert server.proc.returncode == 0
    assert processes_with(f"sleep {marker}") == []
    assert any("the client closed stdin" in line for line in server.log)


def test_exits_when_the_editor_process_dies(start: Start) -> None:
    editor = subprocess.Popen(["sleep", "1000"])
    try:
        server = start(process_id=editor.pid)
        editor.kill()
        editor.wait(timeout=5)
        assert_gone(server, within=2.0)
        assert any(f"the editor process {editor.pid} is gone" in line for line in server.log)
    finally:
        if editor.poll() is None:
            editor.kill()
            editor.wait()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_during_a_tool_kills_its_processes(
    start: Start, models: tuple[FakeModelServer, FakeModelServer], sig: signal.Signals
) -> None:
    server = start()
    marker = 5100 + os.getpid() % 500 * 2
    sleeping_tool(models[0], marker)
    prompt(server, "sleep")
    wait_until(lambda: len(processes_with(f"sleep {marker}")) >= 2)
    server.proc.send_signal(sig)
    assert_gone(server, within=4.0)
    assert processes_with(f"sleep {marker}") == []
    assert any(f"signal {sig.name}" in line for line in server.log)


@pytest.mark.parametrize(
    "data",
    [
        b"Content-Length: abc\r\n\r\n{}",
        b"Content-Length: -5\r\n\r\n{}",
        b'{"jsonrpc": "2.0", "id": 1, "method": "shutdown"}\r\n',
        b'Content-Length: 20\r\n\r\n{"jsonrpc": "2.0", "id": 99, "method": "shutdown"}',
        b'Content-Length: 49\r\nContent-Length: 50\r\n\r\n{"jsonrpc": "2.0", "id": 99, "method": "shutdown"}',
    ],
    ids=["not-a-number", "negative", "no-header", "too-short", "two-lengths"],
)
def test_broken_framing_exits_with_the_reason(start: Start, data: bytes) -> None:
    server = start()
    # The editor goes on writing after the broken frame, as a real one does.
    server.write(data + frame({"jsonrpc": "2.0", "id": 100, "method": "agent/config"}))
    code = server.wait_exit(5.0)
    assert code == 1, "\n".join(server.log)
    assert any("broken framing from the client" in line for line in server.log)


def test_requests_without_params_are_answered(start: Start) -> None:
    server = start()
    for method in ("agent/permission/list", "agent/question/list", "agent/config", "agent/session/list"):
        reply = server.answer(server.send(method, omit_params=True))
        assert "result" in reply, (method, reply)
    reply = server.answer(server.send("textDocument/codeAction", omit_params=True))
    assert reply["error"]["code"] == -32602
    reply = server.answer(server.send("shutdown", omit_params=True))
    assert reply == {"jsonrpc": "2.0", "id": reply["id"], "result": None}


def test_malformed_messages_get_an_answer_and_one_log_line_each(start: Start) -> None:
    server = start()
    before = len(server.log)
    count = 40
    for _ in range(count // 2):
        reply = server.answer(server.send("agent/session/get", {"session": 1}))
        assert reply["error"]["code"] == -32602
        reply = server.answer(server.send("textDocument/hover", {"textDocument": 5}))
        assert reply["error"]["code"] == -32602
    server.write(frame(b"{not json"))
    parse_error = server.next(lambda m: "error" in m and m.get("id") is None)
    assert parse_error["error"]["code"] == -32700
    assert server.request("agent/permission/list") == {"requests": []}  # still serving
    new = server.log[before:]
    assert not [line for line in new if "Traceback" in line or " ERROR " in line], "\n".join(new)
    assert len(new) <= count + 5, "\n".join(new)


def test_cancel_request_on_the_prompt_command_stops_the_turn(
    start: Start, models: tuple[FakeModelServer, FakeModelServer]
) -> None:
    server = start()
    model = models[0]
    model.script(Turn.text("a very long answer", chunks=6).stall(after=2), Turn.text("second"))
    first = prompt(server, "go")
    wait_until(lambda: len(model.requests) >= 1)
    began = time.monotonic()
    server.notify("$/cancelRequest", {"id": first})
    assert server.answer(first)["error"]["code"] == -32800
    # The turn stopped: the next prompt runs at once instead of queueing behind it.
    reply = server.answer(prompt(server, "again"), timeout=10)
    assert reply["result"]["text"] == "second"
    assert time.monotonic() - began < 5
    messages = server.request("agent/session/messages", {"sessionID": reply["result"]["sessionID"]})
    errors = [
        m["info"].get("error", {}).get("name") for m in messages["messages"] if m["info"]["role"] != "user"
    ]
    assert "aborted" in errors


@pytest.mark.parametrize("loaded", [True, False], ids=["agent-open", "agent-opening"])
def test_shutdown_then_exit_without_waiting_exits_0_quietly(
    tmp_path: Path, project: Path, models: tuple[FakeModelServer, FakeModelServer], loaded: bool
) -> None:
    # A client may send exit right after shutdown, before the answer: the shutdown it sent counts.
    server = RawServer(project, tmp_path / "data")
    try:
        server.initialize({"config": agent_config(*models)})
        if loaded:
            server.request("agent/config", {})
        shutdown = {"jsonrpc": "2.0", "id": 99, "method": "shutdown", "params": None}
        server.write(frame(shutdown) + frame({"jsonrpc": "2.0", "method": "exit", "params": None}))
        code = server.wait_exit(10.0)
        log = "\n".join(server.log)
        assert code == 0, log
        assert "Traceback" not in log and "ERROR" not in log, log
    finally:
        server.close()
