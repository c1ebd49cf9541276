"""Input no editor should send still gets an answer, and the server keeps serving (issue 23).

Every case runs through the real ``agentls serve`` over stdio: the bytes go in as a client would
write them, and what comes back is read off stdout.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lsp_server.lifecycle import PARENT_POLL_S
from tests.lsp.editor import uri
from tests.lsp.raw import RawServer, frame


def nested(depth: int) -> bytes:
    """A request whose params nest ``depth`` lists deep."""
    return b'{"jsonrpc": "2.0", "id": 7, "method": "agent/config", "params": {"x": ' + (
        b"[" * depth + b"]" * depth + b"}}"
    )


@pytest.fixture
def server(tmp_path: Path, project: Path) -> Any:
    started = RawServer(project, tmp_path / "data")
    yield started
    started.close()


def initialize(server: RawServer) -> None:
    params = {"processId": None, "rootUri": uri(server.root), "capabilities": {}}
    server.request("initialize", params)
    server.notify("initialized", {})


@pytest.mark.parametrize("depth", [1_000, 5_000, 100_000])
def test_a_deeply_nested_message_is_answered_and_the_server_goes_on(server: RawServer, depth: int) -> None:
    initialize(server)
    server.write(frame(nested(depth)))
    reply = server.next(lambda m: "error" in m and "method" not in m, timeout=20)
    assert reply["error"]["code"] in (-32700, -32600), reply
    assert "nest" in reply["error"]["message"], reply
    assert "sessions" in server.request("agent/session/list", {})  # still serving
    assert server.proc.stdin is not None
    server.proc.stdin.close()
    assert server.wait_exit(10) == 0, "\n".join(server.log)  # and EOF still ends it
    assert not [line for line in server.log if "Traceback" in line], "\n".join(server.log)


def dead_pid() -> int:
    """The pid of a process that has exited and been reaped (as a pid from another PID namespace looks)."""
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


PROCESS_IDS: dict[str, Any] = {
    "a string": "1234",
    "a digit string of a live pid": str(os.getpid()),
    "a dead pid": "dead",
    "a huge integer": 2**70,
    "past pid_t": 2**31,
    "negative": -5,
    "a float": 1.5,
    "an object": {"pid": 1},
}


@pytest.mark.parametrize("process_id", list(PROCESS_IDS.values()), ids=list(PROCESS_IDS))
def test_a_process_id_the_server_cannot_watch_is_ignored(server: RawServer, process_id: Any) -> None:
    pid = dead_pid() if process_id == "dead" else process_id
    params = {"processId": pid, "rootUri": uri(server.root), "capabilities": {}}
    server.request("initialize", params)
    server.notify("initialized", {})
    assert server.wait_exit(timeout=3 * PARENT_POLL_S) is None, "\n".join(server.log)
    assert "sessions" in server.request("agent/session/list", {})
    # The list may be answered before the full server has read initialize (early_reads); its
    # answer to shutdown comes after it has.
    server.request("shutdown", None)
    ignored = [line for line in server.log if "processId" in line and "ignor" in line]
    assert len(ignored) == 1, "\n".join(server.log)
    assert not [line for line in server.log if "Traceback" in line or " ERROR " in line], server.log


# (bytes written as the first frame or after initialize, the error code, the id answered)
UNUSUAL: dict[str, tuple[bytes, int, Any]] = {
    "jsonrpc 1.0": (b'{"jsonrpc": "1.0", "id": 3, "method": "agent/config", "params": {}}', -32600, 3),
    "not JSON": (b"{this is not json", -32700, None),
    "not UTF-8": (b'{"jsonrpc": "2.0", "id": 3, "method": "\xff\xfe"}', -32700, None),
    "an object id": (
        b'{"jsonrpc": "2.0", "id": {"a": 1}, "method": "agent/config", "params": {}}',
        -32600,
        None,
    ),
    "a list id": (b'{"jsonrpc": "2.0", "id": [1], "method": "initialize", "params": {}}', -32600, None),
    "a bool id": (b'{"jsonrpc": "2.0", "id": true, "method": "shutdown"}', -32600, None),
    "no jsonrpc": (b'{"id": 3, "method": "agent/config", "params": {}}', -32600, 3),
    "a list": (b"[1, 2]", -32600, None),
}


@pytest.mark.parametrize("name", list(UNUSUAL))
def test_an_unusual_first_message_gets_an_answer(server: RawServer, name: str) -> None:
    body, code, answered_id = UNUSUAL[name]
    server.write(frame(body))
    reply = server.next(lambda m: "error" in m and "method" not in m, timeout=20)
    assert reply["error"]["code"] == code, reply
    assert "id" in reply and reply["id"] == answered_id, reply
    initialize(server)
    assert "sessions" in server.request("agent/session/list", {})
    assert not [line for line in server.log if "Traceback" in line], "\n".join(server.log)


@pytest.fixture(scope="module")
def initialized(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RawServer]:
    """One initialized server that hears every unusual message sent after initialize: each is
    answered and the server goes on, so one start serves them all (a start is most of such a
    test's CPU)."""
    base = tmp_path_factory.mktemp("unusual")
    root = base / "project"
    root.mkdir()
    started = RawServer(root, base / "data")
    initialize(started)
    yield started
    started.close()


@pytest.mark.parametrize("name", list(UNUSUAL))
def test_an_unusual_message_after_initialize_gets_an_answer(initialized: RawServer, name: str) -> None:
    body, code, answered_id = UNUSUAL[name]
    initialized.write(frame(body))
    reply = initialized.next(lambda m: "error" in m and "method" not in m, timeout=20)
    assert reply["error"]["code"] == code, reply
    assert "id" in reply and reply["id"] == answered_id, reply
    assert initialized.request("agent/session/list", {}) == {"sessions": []}  # still serving
    assert not [line for line in initialized.log if "Traceback" in line], "\n".join(initialized.log)


@pytest.mark.parametrize("initialized", [True, False], ids=["after-initialize", "as-the-first-message"])
def test_requests_after_shutdown_are_answered_invalid_request(server: RawServer, initialized: bool) -> None:
    if initialized:
        initialize(server)
    assert server.request("shutdown") is None
    for method in ("agent/session/list", "initialize", "shutdown"):
        reply = server.answer(server.send(method, {}))
        assert reply["error"]["code"] == -32600, reply
        assert "shutdown" in reply["error"]["message"]
    server.notify("exit")
    assert server.wait_exit(10) == 0
