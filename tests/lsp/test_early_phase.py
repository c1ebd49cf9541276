"""The chat's first reads answered before pygls is loaded (lsp_server/early_reads.py, issue #44).

The phase itself runs here in-process over a real pipe, a real store and config, so that what it
answers and what it leaves to the full server is decided by the test, not by a race with pygls'
import; the answers are compared with a real ``agentls serve``'s once its agent is open. The
failure paths then run against the real process: a bad config, a store that cannot open, broken
framing, stdin closed early, a cancel of a request answered early.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from lsp_server.early_reads import EarlyReads, root_of
from lsp_server.handshake import Early
from tests.lsp.editor import REPO, server_env, uri
from tests.lsp.raw import RawServer, frame
from tests.lsp.test_early_reads import seed

PLUGIN_OPTIONS = {"untrusted": False}  # what the Neovim plugin sends: it asked about trust itself


def _initialize(root: Path, options: Any) -> dict[str, Any]:
    params = {"processId": None, "rootUri": uri(root), "capabilities": {}, "initializationOptions": options}
    return {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params}


class Phase:
    """An ``EarlyReads`` reading a pipe the test writes to, its answers collected."""

    def __init__(self, root: Path, options: Any = PLUGIN_OPTIONS) -> None:
        body = json.dumps(_initialize(root, options)).encode()
        self.answers: list[dict[str, Any]] = []
        self._new = asyncio.Event()
        self.reads = EarlyReads(Early(pending=b"", body=body, msg_id=0, answer={}), self._written)
        self._read, self._write = os.pipe()
        self._next = 0

    def _written(self, data: bytes) -> None:
        self.answers.append(json.loads(data[data.index(b"\r\n\r\n") + 4 :]))
        self._new.set()

    async def start(self) -> None:
        stdin = os.fdopen(self._read, "rb", buffering=0)  # (a pipe: opening it does not block)
        await self.reads.start(stdin, b"")

    def write(self, data: bytes) -> None:
        os.write(self._write, data)

    def notify(self, method: str, params: Any = None) -> dict[str, Any]:
        message = {"jsonrpc": "2.0", "method": method, "params": params}
        self.write(frame(message))
        return message

    def send(self, method: str, params: Any = None) -> dict[str, Any]:
        self._next += 1
        message = {"jsonrpc": "2.0", "id": self._next, "method": method, "params": params}
        self.write(frame(message))
        return message

    async def answer(self, msg_id: int, timeout: float = 30) -> dict[str, Any]:
        async with asyncio.timeout(timeout):
            while True:
                for answer in self.answers:
                    if answer.get("id") == msg_id:
                        return answer
                self._new.clear()
                await self._new.wait()

    async def settle(self, timeout: float = 30) -> None:
        """Until the project has opened (or failed) and every queued read is answered or left."""
        async with asyncio.timeout(timeout):
            await self.reads.opened()
        await self.reads.stop()

    def close_stdin(self) -> None:
        os.close(self._write)

    async def close(self) -> None:
        await self.reads.stop()
        if self.reads.task is not None:
            self.reads.task.cancel()
            await asyncio.gather(self.reads.task, return_exceptions=True)
        project = self.reads.project
        if project is not None and project.done() and not project.exception() and project.result():
            await project.result().store.close()  # type: ignore[union-attr]


@pytest.fixture
def dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    project, data = tmp_path / "project", tmp_path / "data"
    project.mkdir()
    data.mkdir()
    for name, value in server_env(data).items():
        if name.startswith("AGENTLS_") or name == "HOME":
            monkeypatch.setenv(name, value)
    for name in ("AGENTLS_CONFIG", "AGENTLS_CONFIG_CONTENT", "AGENTLS_PERMISSION"):
        monkeypatch.delenv(name, raising=False)
    return project, data


@pytest.fixture
async def phase(dirs: tuple[Path, Path]) -> AsyncIterator[Phase]:
    made = Phase(dirs[0])
    await made.start()
    try:
        yield made
    finally:
        await made.close()


def bodies(frames: list[bytes]) -> list[dict[str, Any]]:
    return [json.loads(f) for f in frames]


async def test_the_reads_are_answered_as_the_full_server_answers_them(
    dirs: tuple[Path, Path], phase: Phase
) -> None:
    project, data = dirs
    session = await seed(data, await asyncio.to_thread(project.resolve), 130)
    phase.notify("initialized", {})
    asked = [
        phase.send("agent/session/list", {"limit": 1}),
        phase.send("agent/session/messages", {"sessionID": session, "limit": 100}),
        phase.send("agent/session/get", {"sessionID": session}),
        phase.send("agent/session/todo", {"sessionID": session}),
        phase.send("agent/session/list", None),  # no params: the defaults, as the full server reads it
        phase.send("agent/session/list", {"limit": 1, "messages": 100}),  # the chat's one request
    ]
    early = [await phase.answer(m["id"]) for m in asked]
    await phase.close()
    assert [m["parts"][0]["text"] for m in early[1]["result"]["messages"]] == [
        f"question {i}" for i in range(30, 130)
    ]
    assert early[5]["result"]["messages"] == early[1]["result"]["messages"]
    assert early[5]["result"]["sessions"] == early[0]["result"]["sessions"]
    # The same requests to the real server, once its agent is open (agent/config waits for it).
    server = await asyncio.to_thread(RawServer, project, data)
    try:
        await asyncio.to_thread(server.initialize, PLUGIN_OPTIONS)
        await asyncio.to_thread(server.request, "agent/config", {}, 60)
        for message, got in zip(asked, early, strict=True):
            full = await asyncio.to_thread(server.request, message["method"], message["params"])
            assert got == {"id": message["id"], "jsonrpc": "2.0", "result": full}, message["method"]
    finally:
        server.close()


async def test_the_newest_sessions_messages_with_no_session_are_none(phase: Phase) -> None:
    phase.notify("initialized", {})
    asked = phase.send("agent/session/list", {"limit": 1, "messages": 100})
    assert (await phase.answer(asked["id"]))["result"] == {"sessions": [], "messages": []}


async def test_what_is_not_answered_reaches_the_full_server_in_order(
    dirs: tuple[Path, Path], phase: Phase
) -> None:
    project, data = dirs
    session = await seed(data, await asyncio.to_thread(project.resolve), 3)
    sent = [
        phase.send("agent/session/list", {}),  # before initialized: the full server says so
        phase.notify("initialized", {}),
        phase.notify("textDocument/didOpen", {"textDocument": {"uri": uri(project / "a.py")}}),
        phase.send("agent/session/list", {"limit": 0}),  # invalid params: the full server names the field
        phase.send("agent/session/get", {"sessionID": "ses_nope"}),  # unknown: its error is the server's
        phase.send("agent/session/messages", {"sessionID": session}),  # answered
        phase.send("agent/session/prompt", {"sessionID": session, "parts": []}),  # needs the agent
        phase.send("agent/session/todo", {"sessionID": session}),  # answered
    ]
    phase.write(frame(b"{not json"))  # the full server answers its parse error
    answered = [await phase.answer(sent[5]["id"]), await phase.answer(sent[7]["id"])]
    cancels = [
        phase.notify("$/cancelRequest", {"id": sent[5]["id"]}),  # answered already: dropped
        phase.notify("$/cancelRequest", {"id": sent[6]["id"]}),  # its request goes on: so does it
    ]
    shut = phase.send("shutdown", None)
    after = phase.send("agent/session/list", {})  # after shutdown: the server refuses it
    phase.notify("exit", None)
    await phase.settle()
    frames, ended = phase.reads.release()
    assert [a["id"] for a in phase.answers] == [sent[5]["id"], sent[7]["id"]] == [a["id"] for a in answered]
    kept = [sent[0], sent[1], sent[2], sent[3], sent[4], sent[6]]
    assert bodies(frames[:6]) == kept
    assert frames[6] == b"{not json"
    exit_ = {"jsonrpc": "2.0", "method": "exit", "params": None}
    assert bodies(frames[7:]) == [cancels[1], shut, after, exit_]
    assert ended is None


async def test_a_read_not_begun_when_it_is_cancelled_is_left_to_the_full_server(
    dirs: tuple[Path, Path], phase: Phase
) -> None:
    project, data = dirs
    session = await seed(data, await asyncio.to_thread(project.resolve), 3)
    # All three frames arrive in one write: the cancel is taken before the read is begun.
    read = {"jsonrpc": "2.0", "id": 7, "method": "agent/session/get", "params": {"sessionID": session}}
    cancel = {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 7}}
    initialized = {"jsonrpc": "2.0", "method": "initialized", "params": {}}
    phase.write(frame(initialized) + frame(read) + frame(cancel))
    await phase.settle()
    frames, _ = phase.reads.release()
    assert phase.answers == []
    assert bodies(frames) == [initialized, read, cancel]


@pytest.mark.parametrize(
    ("why", "options", "setup"),
    [
        ("a bad config", {**PLUGIN_OPTIONS, "config": {"model": 42}}, None),
        ("a bad config in the settings", PLUGIN_OPTIONS, "settings"),
        ("a store that cannot open", PLUGIN_OPTIONS, "store"),
        ("a project whose trust must be asked", {}, "trust"),
    ],
)
async def test_nothing_is_answered_early_when_the_project_does_not_open_as_usual(
    dirs: tuple[Path, Path], why: str, options: Any, setup: str | None
) -> None:
    project, data = dirs
    session = await seed(data, await asyncio.to_thread(project.resolve), 3)
    if setup == "store":
        (data / "agentls.db").unlink()
        (data / "agentls.db").mkdir()  # a folder where the database file belongs
    if setup == "trust":  # a stock client (no `untrusted`): a project config must be asked about
        (project / "agentls.json").write_text('{"instructions": []}')
    phase = Phase(project, options)
    await phase.start()
    try:
        if setup == "settings":
            settings = {"agentls": {"config": {"model": 42}}}
            phase.notify("workspace/didChangeConfiguration", {"settings": settings})
        phase.notify("initialized", {})
        asked = phase.send("agent/session/get", {"sessionID": session})
        await phase.settle()
        frames, _ = phase.reads.release()
        assert phase.answers == [], why
        assert bodies(frames)[-1] == asked, why
    finally:
        await phase.close()


def test_the_root_is_the_full_servers(tmp_path: Path) -> None:
    folder = {"uri": uri(tmp_path / "a"), "name": "a"}
    assert root_of({"workspaceFolders": [folder], "rootUri": uri(tmp_path / "b")}) == tmp_path / "a"
    assert root_of({"workspaceFolders": None, "rootUri": uri(tmp_path / "b")}) == tmp_path / "b"
    assert root_of({"rootUri": "untitled:x", "rootPath": "/some/where"}) == Path("/some/where")
    assert root_of({}) is None


def test_the_early_phase_loads_neither_pygls_nor_lsprotocol() -> None:
    code = (
        "import sys, lsp_server.serve_cmd, lsp_server.early_reads, lsp_server.handshake\n"
        "print(sorted(m for m in sys.modules if m.startswith(('lsprotocol', 'pygls.lsp', 'pygls.protocol'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True)
    assert out.stdout.strip() == "[]"


def test_the_initialize_answer_waits_for_no_asyncio() -> None:
    # What runs before the early initialize answer stays this cheap (asyncio: ~30 ms more).
    code = "import sys, lsp_server.serve_cmd, lsp_server.handshake\nprint('asyncio' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True)
    assert out.stdout.strip() == "False"


# --- the real process -------------------------------------------------------------------------


def test_a_bad_config_is_still_every_reads_error(tmp_path: Path) -> None:
    project, data = tmp_path / "project", tmp_path / "data"
    project.mkdir()
    data.mkdir()
    server = RawServer(project, data)
    try:
        server.initialize({**PLUGIN_OPTIONS, "config": {"model": 42}})
        for method in ("agent/session/list", "agent/session/get"):
            reply = server.answer(server.send(method, {"sessionID": "ses_x"}))
            assert "model" in reply["error"]["message"], reply
    finally:
        server.close()


def test_a_store_that_cannot_open_is_the_reads_error(tmp_path: Path) -> None:
    project, data = tmp_path / "project", tmp_path / "data"
    project.mkdir()
    data.mkdir()
    (data / "agentls.db").mkdir()  # a folder where the database file belongs
    server = RawServer(project, data)
    try:
        server.initialize(PLUGIN_OPTIONS)
        reply = server.answer(server.send("agent/session/list", {}))
        assert "error" in reply and "agentls.db" in reply["error"]["message"], reply
    finally:
        server.close()


def test_stdin_closed_early_answers_what_came_before_and_exits_cleanly(tmp_path: Path) -> None:
    project, data = tmp_path / "project", tmp_path / "data"
    project.mkdir()
    data.mkdir()
    session = asyncio.run(seed(data, project.resolve(), 5))
    server = RawServer(project, data)
    try:
        server.initialize(PLUGIN_OPTIONS)
        asked = server.send("agent/session/messages", {"sessionID": session})
        assert server.proc.stdin is not None
        server.proc.stdin.close()
        assert len(server.answer(asked)["result"]["messages"]) == 5
        assert server.wait_exit(60) == 0
        assert any("the client closed stdin" in line for line in server.log), server.log[-20:]
    finally:
        server.close()


def test_broken_framing_early_answers_what_came_before_and_exits_with_the_reason(tmp_path: Path) -> None:
    project, data = tmp_path / "project", tmp_path / "data"
    project.mkdir()
    data.mkdir()
    session = asyncio.run(seed(data, project.resolve(), 5))
    server = RawServer(project, data)
    try:
        server.initialize(PLUGIN_OPTIONS)
        asked = server.send("agent/session/todo", {"sessionID": session})
        server.write(b"Content-Length: 5\r\nnot a header\r\n\r\n12345")
        assert server.answer(asked)["result"] == {"todos": []}
        assert server.wait_exit(60) == 1
        assert any("broken framing from the client" in line for line in server.log), server.log[-20:]
    finally:
        server.close()


def test_a_cancel_of_a_request_answered_early_is_harmless(tmp_path: Path) -> None:
    project, data = tmp_path / "project", tmp_path / "data"
    project.mkdir()
    data.mkdir()
    session = asyncio.run(seed(data, project.resolve(), 5))
    server = RawServer(project, data)
    try:
        server.initialize(PLUGIN_OPTIONS)
        asked = server.send("agent/session/get", {"sessionID": session})
        assert server.answer(asked)["result"]["id"] == session
        server.notify("$/cancelRequest", {"id": asked})
        # The server serves on; nothing answers the cancel or the request again.
        config = server.send("agent/config", {})
        server.answer(config, 60)
        assert all(f is not None and f.get("id") != asked for f in list(server.frames.queue))
        assert not any("Traceback" in line for line in server.log), server.log[-20:]
    finally:
        server.close()
