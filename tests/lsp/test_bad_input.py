"""Input no editor should send still gets an answer, and the server keeps serving (issue 23).

Every case runs through the real ``agentls serve`` over stdio: the bytes go in as a client would
write them, and what comes back is read off stdout.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

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
