"""`agentls serve` attached through ``AGENTLS_HOST`` is a byte relay: its LSP session runs in the
host (lsp_server/relay.py, lsp_server/hosted.py, host/relays.py). Real host and serve processes,
an editor-like client over stdio (tests/lsp/editor.py), the fake model server."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from core import __version__
from core.remote.agent import RemoteAgent
from core.remote.place import environment_digest, socket_path
from core.remote.wire import PROTOCOL, encode
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from host.relays import BAD_RELAY
from lsp_server.relay import Broken, Document, Frames
from tests.lsp.editor import PLUGIN, REPO, SERVER, initialize, make_client, uri
from tests.ticks import until_async

from .conftest import HostProcess, attach_as
from .test_serve_attached import Serve, host_status

# What a relay may load beyond the standard library: agentls's own modules that import only it.
ALLOWED = {
    "agentls",
    "agentls.boot",
    "agentls.logs",
    "core",
    "core.errors",
    "core.remote",
    "core.remote.launch",
    "core.remote.place",
    "core.remote.tcp",
    "core.remote.wire",
    "core.config",
    "core.config.paths",
    "lsp_server",
    "lsp_server.relay",
    "lsp_server.serve_cmd",
}


@pytest.fixture
async def relays(project: Path, env: dict[str, str]) -> AsyncIterator[Callable[..., Any]]:
    """Start `agentls serve` processes with ``AGENTLS_HOST`` (``start()``); stopped at the end."""
    started: list[Serve] = []

    async def start(mode: str = "attach", command: list[str] = SERVER) -> Serve:
        client, editor = make_client(("agent/event",))
        await client.start_io(*command, env={**env, "AGENTLS_HOST": mode}, cwd=str(REPO))
        result = await initialize(client, project, PLUGIN)
        serve = Serve(client, editor, result)
        started.append(serve)
        return serve

    yield start
    for serve in started:
        if not serve.killed and serve.client._server is not None and serve.client._server.returncode is None:
            await serve.client.shutdown_session()
        await serve.client.stop()


def _relay_pid(client: LanguageClient) -> int:
    server = client._server
    assert server is not None
    return server.pid


async def _prompt(serve: Serve, session_id: str, text: str = "go") -> asyncio.Future[Any]:
    params = {"sessionID": session_id, "parts": [{"type": "text", "text": text}]}
    return asyncio.ensure_future(serve.call("agent/session/prompt", params))


async def test_a_relayed_serve_streams_a_turn_run_in_the_host_and_a_second_relay_sees_it(
    host: HostProcess, model: FakeModelServer, relays: Callable[..., Any], data_dir: Path
) -> None:
    model.script(Turn.text("streamed through the relay", chunks=5))
    first = await relays()
    assert first.pid == _relay_pid(first.client)  # processId: the relay the editor started
    assert first.pid != host.pid
    await first.call("agent/commands")
    second = await relays()
    await second.call("agent/commands")
    status = await host_status(data_dir)
    assert sorted(status["relays"]) == sorted(f"lsp (pid {s.pid})" for s in (first, second))
    session = await first.call("agent/session/create", {})
    second.client.protocol.notify("agent/session/show", {"sessionIDs": [session["id"]]})
    first.client.protocol.notify("agent/session/show", {"sessionIDs": [session["id"]]})
    answer = await (await _prompt(first, session["id"]))
    assert answer is not None
    for serve in (first, second):
        await serve.editor.wait_for(lambda s=serve: s.events("message.part.delta", session["id"]))
        text = "".join(e["properties"]["delta"] for e in serve.events("message.part.delta", session["id"]))
        assert text == "streamed through the relay"
    # The early answer and the server's agree (the relay's pid in both): nothing logged as a bug.
    bugs = [
        line
        for line in host.log_text().splitlines()
        if "answered early" in line or "CAPABILITIES differ" in line
    ]
    assert not bugs, bugs


async def test_a_relay_loads_only_the_standard_library_and_agentls_modules_that_do(
    host: HostProcess, relays: Callable[..., Any]
) -> None:
    command = [sys.executable, "-X", "importtime", "-m", "lsp_server"]
    serve = await relays(command=command)
    await serve.call("agent/commands")
    server = serve.client._server
    assert server is not None and server.stderr is not None
    await serve.client.shutdown_session()
    serve.killed = True
    await asyncio.wait_for(server.wait(), 30)
    err = (await server.stderr.read()).decode()
    loaded = {line.rsplit("|", 1)[1].strip() for line in err.splitlines() if line.startswith("import time:")}
    loaded.discard("package")
    ours = {name for name in loaded if name.split(".")[0] in ("agentls", "core", "lsp_server", "cli", "host")}
    assert ours <= ALLOWED, ours - ALLOWED
    for heavy in ("pygls", "lsprotocol", "pydantic", "litellm", "cattrs", "attrs"):
        assert heavy not in loaded, heavy
    assert all(name in sys.stdlib_module_names for name in {n.split(".")[0] for n in loaded - ours})


async def test_a_killed_relay_closes_its_session_in_the_host_and_the_turn_goes_on(
    host: HostProcess,
    model: FakeModelServer,
    relays: Callable[..., Any],
    data_dir: Path,
    project: Path,
    front_ends: list[RemoteAgent],
) -> None:
    release = asyncio.Event()
    model.script(Turn.text("begun in the editor, ended without it", chunks=6).stall(after=2, until=release))
    serve = await relays()
    session = await serve.call("agent/session/create", {})
    prompt = await _prompt(serve, session["id"])
    await serve.editor.wait_for(lambda: serve.events("message.part.delta", session["id"]))
    serve.kill()
    await asyncio.gather(prompt, return_exceptions=True)

    async def relay_gone() -> bool:
        return not (await host_status(data_dir))["relays"]

    await until_async(relay_gone, "the host to close the relay's session", 30)
    release.set()
    reader = await attach_as(front_ends, project, data_dir, "reader")

    async def finished() -> bool:
        last = (await reader.messages(session["id"]))[-1]
        return [p.text for p in last.parts if p.type == "text"] == ["begun in the editor, ended without it"]

    await until_async(finished, "the turn to end in the host", 60)


async def test_malformed_bytes_from_one_editor_close_only_its_session(
    host: HostProcess, relays: Callable[..., Any], data_dir: Path, env: dict[str, str]
) -> None:
    other = await relays()
    await other.call("agent/commands")
    bad = await asyncio.create_subprocess_exec(
        *SERVER,
        env={**env, "AGENTLS_HOST": "attach"},
        cwd=str(REPO),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )
    assert bad.stdin is not None and bad.stdout is not None

    async def attached() -> bool:
        return len((await host_status(data_dir))["relays"]) == 2

    await until_async(attached, "the second relay to attach", 30)
    bad.stdin.write(b"Content-Length: nonsense\r\n\r\n{garbage")
    await bad.stdin.drain()
    assert await asyncio.wait_for(bad.wait(), 30) == 1
    out = await bad.stdout.read()
    assert b"window/showMessage" in out and b"closed this session" in out
    assert host.proc.returncode is None
    await other.call("agent/commands")  # the other editor's session goes on
    assert len((await host_status(data_dir))["relays"]) == 1


def _edit(serve: Serve, path: Path) -> None:
    """Open ``path`` unsaved, then edit it in place (an incremental didChange, UTF-16 positions:
    the emoji before the edit counts two units)."""
    serve.editor.open(path, BEFORE)
    change = lsp.TextDocumentContentChangePartial(
        range=lsp.Range(start=lsp.Position(line=1, character=9), end=lsp.Position(line=1, character=14)),
        text="a + b",
    )
    serve.client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=uri(path), version=2),
            content_changes=[change],
        )
    )


BEFORE = "def add(a, b):\n    \U0001f600 = a - b  # the user's unsaved note\n"
AFTER = "def add(a, b):\n    \U0001f600 = a + b  # the user's unsaved note\n"


@pytest.mark.parametrize("mode", ["auto", "attach"])
async def test_kill_9_of_the_host_under_a_relay_says_so_once_and_the_session_goes_on_with_the_edited_buffer(
    mode: str,
    host: HostProcess,
    model: FakeModelServer,
    relays: Callable[..., Any],
    project: Path,
    data_dir: Path,
) -> None:
    """auto: a new host, the session rebuilt there; attach: no host left, the relay's own process."""
    model.script(Turn.text("cut off by the host's death", chunks=6).stall(after=2, until=asyncio.Event()))
    serve = await relays(mode)
    calc = project / "calc.py"
    _edit(serve, calc)
    session = await serve.call("agent/session/create", {})
    prompt = await _prompt(serve, session["id"])
    await serve.editor.wait_for(lambda: serve.events("message.part.delta", session["id"]))
    os.kill(host.pid, signal.SIGKILL)
    with pytest.raises(Exception) as raised:
        await prompt
    assert f"the agent host (pid {host.pid}) stopped during agent/session/prompt" in str(raised.value)

    model.script(Turn.tool_call("read", {"filePath": str(calc)}), Turn.text("Read it."))
    again = await (await _prompt(serve, session["id"], "read calc.py"))
    assert again is not None
    assert AFTER.split("\n")[1] in json.dumps(model.requests[-1].body, ensure_ascii=False), model.requests[
        -1
    ].messages[-2:]
    shown = [m.message for m in serve.client.messages if "agent host" in m.message]
    assert len(shown) == 1, shown
    if mode == "auto":
        assert "attached to a new one" in shown[0]
        status = await host_status(data_dir)
        assert status["pid"] != host.pid and status["relays"] == [f"lsp (pid {serve.pid})"]
    else:
        assert "the agent runs in this process now" in shown[0]
    messages = [m for m in serve.client.messages if "agent host" not in m.message]
    assert not [m for m in messages if "not attached" in m.message], messages
    kept = (await serve.call("agent/session/messages", {"sessionID": session["id"]}))["messages"]
    users = [m for m in kept if m["info"]["role"] == "user"]
    assert [p["text"] for m in users for p in m["parts"] if p["type"] == "text"] == ["go", "read calc.py"]


async def test_no_host_in_attach_mode_runs_the_server_in_its_own_process(relays: Callable[..., Any]) -> None:
    serve = await relays()
    assert serve.pid == _relay_pid(serve.client)
    await serve.call("agent/commands")  # answered by the in-process agent


def test_frames_are_read_across_chunks_and_a_broken_header_stops_the_reading() -> None:
    frames = Frames()
    body = b'{"jsonrpc":"2.0","id":1,"method":"x"}'
    whole = b"Content-Length: %d\r\n\r\n" % len(body) + body
    assert frames.feed(whole[:10]) == []
    assert frames.feed(whole[10:] + whole) == [body, body]
    with pytest.raises(Broken) as broken:
        frames.feed(b"Content-Length: many\r\n\r\n{")
    assert broken.value.data == b"Content-Length: many\r\n\r\n{"


@pytest.mark.parametrize(("encoding", "character"), [("utf-16", 7), ("utf-8", 9), ("utf-32", 6)])
def test_an_incremental_change_is_applied_in_the_negotiated_encoding(encoding: str, character: int) -> None:
    document = Document(
        {"uri": "file:///x", "languageId": "python", "version": 1, "text": "a\r\nx\U0001f600 = 1\n"}
    )
    document.change(
        {
            "textDocument": {"version": 2},
            "contentChanges": [
                {
                    "range": {
                        "start": {"line": 1, "character": character - 3},
                        "end": {"line": 1, "character": character},
                    },
                    "text": "= 2",
                },
                {
                    "range": {"start": {"line": 9, "character": 0}, "end": {"line": 9, "character": 0}},
                    "text": "end",
                },
            ],
        },
        encoding,
    )
    assert document.item["text"] == "a\r\nx\U0001f600 = 2\nend"
    assert document.item["version"] == 2


@pytest.mark.parametrize(
    ("relay", "pid", "expected"),
    [
        ({"kind": "acp", "editorPid": 1, "cwd": "/"}, 10, "relay.kind must be one of lsp"),
        ({"kind": "lsp", "editorPid": 1, "cwd": "here"}, 10, "relay.cwd must be an absolute path"),
        ({"kind": "lsp", "cwd": "/"}, None, "a relay's hello needs its pid"),
    ],
)
async def test_a_relay_hello_the_host_cannot_serve_is_refused_with_a_message(
    host: HostProcess, data_dir: Path, relay: dict[str, Any], pid: int | None, expected: str
) -> None:
    reader, writer = await asyncio.open_unix_connection(socket_path(data_dir))
    params = {
        "protocol": PROTOCOL,
        "version": __version__,
        "client": "test",
        "environment": environment_digest(),
        "pid": pid,
        "relay": relay,
    }
    writer.write(encode({"jsonrpc": "2.0", "id": 1, "method": "hello", "params": params}))
    answer = json.loads(await asyncio.wait_for(reader.readline(), 30))
    assert answer["error"] == {"code": BAD_RELAY, "message": expected}
    assert await asyncio.wait_for(reader.read(), 30) == b""  # and closed
    writer.close()
    assert (await host_status(data_dir))["relays"] == []


async def test_an_editor_that_has_not_trusted_the_project_is_served_in_its_own_process(
    host: HostProcess, project: Path, env: dict[str, str], data_dir: Path, relays: Callable[..., Any]
) -> None:
    # Trust is per process (core/trust.py): served by the host, an editor holding the project back
    # would hold it back for every front end of the host. Its server runs in the relay's process.
    command = project / ".agentls" / "command" / "shipit.md"
    command.parent.mkdir(parents=True)
    command.write_text("Ship it")
    held_back: list[Serve] = []
    for options in ({"untrusted": True}, None):  # a plugin's "not trusted"; a stock client's nothing
        client, editor = make_client(("agent/event",))
        await client.start_io(*SERVER, env={**env, "AGENTLS_HOST": "attach"}, cwd=str(REPO))
        result = await initialize(client, project, "neovim" if options is None else PLUGIN, options)
        serve = Serve(client, editor, result)
        held_back.append(serve)
        assert result.capabilities is not None  # answered by the server in the relay's process
    try:
        listed = await held_back[0].call("agent/commands", {})  # its agent: in that process, held back
        assert "shipit" not in {c["name"] for c in listed["commands"]}, listed
        assert (await host_status(data_dir))["relays"] == []
        # The host still trusts the project for an editor that does: the folder was not held back there.
        trusting = await relays()
        listed = await trusting.call("agent/commands", {})
        assert "shipit" in {c["name"] for c in listed["commands"]}, listed
        assert (await host_status(data_dir))["relays"] == [f"lsp (pid {trusting.pid})"]
    finally:
        for serve in held_back:
            await serve.client.shutdown_session()
            await serve.client.stop()
