"""`agentls serve` attached to the host (``initializationOptions.host``): the real server over
stdio with an editor-like client (tests/lsp/editor.py), a real host process, `agentls run` and
`agentls sessions watch` as real processes, the fake model server. The serve front end lends the
host its buffers: an edit a turn makes lands in the client's buffer when it has the file open."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from core.events import PermissionAsked, PermissionReplied
from core.message.prompt_input import TextInput
from core.remote.agent import RemoteAgent
from core.remote.attach import connect
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.lsp.editor import PLUGIN, REPO, SERVER, Editor, initialize, make_client, uri
from tests.ticks import until_async

from .conftest import HostProcess, agentls, attach_as, config, set_config, start_host
from .test_watch import start_watch

EDITED = "def add(a, b):\n    return a + b  # the user's unsaved note\n"


class Serve:
    """One `agentls serve` process and the editor behind its client."""

    def __init__(self, client: LanguageClient, editor: Editor, result: lsp.InitializeResult) -> None:
        self.client = client
        self.editor = editor
        experimental = result.capabilities.experimental
        assert isinstance(experimental, dict)
        self.pid = int(experimental["agent"]["processId"])  # the server's own process
        self.killed = False

    async def call(self, method: str, params: Any = None, timeout: float = 60.0) -> Any:
        return await asyncio.wait_for(self.client.protocol.send_request_async(method, params), timeout)

    def events(self, type_: str, session_id: str | None = None) -> list[dict[str, Any]]:
        seen = self.editor.notifications.get("agent/event", [])
        return [e for e in seen if e["type"] == type_ and session_id in (None, _session_of(e["properties"]))]

    def kill(self) -> None:
        os.kill(self.pid, signal.SIGKILL)
        self.killed = True


def _session_of(properties: dict[str, Any]) -> str | None:
    session_id = properties.get("sessionID") or (properties.get("request") or {}).get("sessionID")
    return str(session_id) if session_id else None


@pytest.fixture
async def serves(project: Path, env: dict[str, str]) -> AsyncIterator[Callable[..., Any]]:
    """Start `agentls serve` processes attached to the host (``start()``); stopped at the end."""
    started: list[Serve] = []

    async def start(options: dict[str, Any] | None = None, profile: str = PLUGIN) -> Serve:
        client, editor = make_client(("agent/event",))
        await client.start_io(*SERVER, env=env, cwd=str(REPO))
        result = await initialize(client, project, profile, {"host": "attach", **(options or {})})
        serve = Serve(client, editor, result)
        editor.saves = True  # a plugin saves what an agent edit touched (savesEdits)
        started.append(serve)
        await serve.call("agent/commands")  # the agent is open (attached) once this answers
        return serve

    yield start
    for serve in started:
        if not serve.killed:
            await serve.client.shutdown_session()
        await serve.client.stop()


async def host_status(data_dir: Path) -> dict[str, Any]:
    conn, _, _ = await connect(data_dir, "test", control=True)
    try:
        status: dict[str, Any] = await conn.request("status", {})
    finally:
        conn.close()
    return status


async def until_lent(data_dir: Path, path: Path, supported: str = "") -> dict[str, Any]:
    """Until the host knows that an attached editor has ``path`` open (or, ``supported``, that it
    answers that editor query); that lender."""
    found: list[dict[str, Any]] = []

    async def lent() -> bool:
        for project in (await host_status(data_dir))["projects"]:
            for lender in project["lenders"]:
                if (supported in lender["supported"]) if supported else (str(path) in lender["open"]):
                    found.append(dict(lender))
                    return True
        return False

    await until_async(lent, f"the host to know the editor lends {supported or path}", 30)
    return found[0]


@pytest.fixture
async def edits_allowed(
    env: dict[str, str], model: FakeModelServer, title_model: FakeModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Edits run unasked (set before the host starts: its environment must be the front ends')."""
    set_config(env, config(model, title_model, permission={"edit": "allow"}), monkeypatch)


async def started_host(data_dir: Path, env: dict[str, str]) -> AsyncIterator[HostProcess]:
    process, line = await start_host(data_dir, env)
    assert line.startswith("ready"), process.log_text()
    try:
        yield process
    finally:
        if process.proc.returncode is None:
            process.proc.terminate()
            await asyncio.wait_for(process.proc.wait(), 30)
        assert "Traceback" not in process.log_text(), process.log_text()


@pytest.fixture
async def host_allowing_edits(
    edits_allowed: None, data_dir: Path, env: dict[str, str]
) -> AsyncIterator[HostProcess]:
    async for process in started_host(data_dir, env):
        yield process


async def test_a_run_is_followed_live_in_serve_and_its_edit_lands_in_the_serve_buffer(
    host_allowing_edits: HostProcess,
    project: Path,
    data_dir: Path,
    env: dict[str, str],
    model: FakeModelServer,
    serves: Callable[..., Any],
) -> None:
    calc = project / "calc.py"
    model.script(
        Turn.tool_call("edit", {"filePath": str(calc), "oldString": "a + b", "newString": "a * b"}),
        Turn.text("Multiplied.", chunks=3),
    )
    serve = await serves()
    serve.editor.open(calc, EDITED)  # unsaved: the disk still says `a - b`
    lender = await until_lent(data_dir, calc)
    assert lender["client"] == "pytest-lsp" and lender["workspace"] is True

    code, out, err = await agentls("run", "multiply instead", cwd=project, env=env)
    assert code == 0, err
    assert "Multiplied." in out

    # The run's turn, streamed live to the serve client, which never asked for it.
    (created,) = await serve.editor.wait_for(lambda: serve.events("session.created"))
    session_id = created["properties"]["info"]["id"]
    await serve.editor.wait_for(lambda: serve.events("session.idle", session_id))
    assert serve.events("message.part.delta", session_id)
    # The edit read the unsaved buffer and went through the client's workspace/applyEdit.
    assert serve.editor.edits, "the edit did not go through the editor"
    assert serve.editor.buffers[uri(calc)].text == EDITED.replace("a + b", "a * b")
    assert calc.read_text() == EDITED.replace("a + b", "a * b")  # the plugin saved it
    code, shown, _ = await agentls("host", "status", cwd=project, env=env)
    assert code == 0 and "    pytest-lsp lends 1 open file" in shown, shown


async def test_a_file_no_attached_editor_has_open_is_edited_on_disk(
    host_allowing_edits: HostProcess,
    project: Path,
    data_dir: Path,
    env: dict[str, str],
    model: FakeModelServer,
    serves: Callable[..., Any],
) -> None:
    calc = project / "calc.py"
    model.script(
        Turn.tool_call("edit", {"filePath": str(calc), "oldString": "a - b", "newString": "a + b"}),
        Turn.text("Fixed."),
    )
    serve = await serves()
    other = project / "other.py"
    other.write_text("x = 1\n")
    serve.editor.open(other, "x = 2\n")
    await until_lent(data_dir, other)
    code, _, err = await agentls("run", "fix it", cwd=project, env=env)
    assert code == 0, err
    assert calc.read_text() == "def add(a, b):\n    return a + b\n"
    assert serve.editor.edits == []  # its editor did not have calc.py open


async def test_a_dialog_shown_in_serve_and_another_front_end_is_answered_in_serve(
    host: HostProcess,
    project: Path,
    data_dir: Path,
    model: FakeModelServer,
    serves: Callable[..., Any],
    front_ends: list[RemoteAgent],
) -> None:
    model.script(Turn.tool_call("bash", {"command": "echo hi > note.txt"}), Turn.text("Noted."))
    serve = await serves()
    other = await attach_as(front_ends, project, data_dir, "Neovim")
    session = await other.create_session()
    seen = other.subscribe(PermissionAsked, PermissionReplied, session_id=session.id)
    turn = asyncio.create_task(other.prompt(session.id, [TextInput(type="text", text="note it")]))

    asked = await asyncio.wait_for(seen.get(), 60)
    assert isinstance(asked, PermissionAsked)
    await serve.editor.wait_for(lambda: serve.events("permission.asked", session.id))
    listed = await serve.call("agent/permission/list")
    assert [r["id"] for r in listed["requests"]] == [asked.request.id]
    await serve.call("agent/permission/reply", {"requestID": asked.request.id, "reply": "once"})
    replied = await asyncio.wait_for(seen.get(), 30)
    assert isinstance(replied, PermissionReplied) and replied.reply == "once"
    assert other.answered_by(asked.request.id) == "pytest-lsp"
    assert other.dialogs.pending_permissions() == []
    answer = await asyncio.wait_for(turn, 60)
    assert [p.text for p in answer.parts if p.type == "text"] == ["Noted."]
    assert (await serve.call("agent/permission/list"))["requests"] == []


async def test_killing_serve_mid_turn_leaves_the_turn_running_and_watch_sees_it_end(
    host: HostProcess,
    project: Path,
    data_dir: Path,
    env: dict[str, str],
    model: FakeModelServer,
    serves: Callable[..., Any],
    front_ends: list[RemoteAgent],
) -> None:
    release = asyncio.Event()
    model.script(Turn.text("begun in the editor, ended without it", chunks=6).stall(after=2, until=release))
    serve = await serves()
    session = await serve.call("agent/session/create", {})
    prompt = asyncio.ensure_future(
        serve.call(
            "agent/session/prompt", {"sessionID": session["id"], "parts": [{"type": "text", "text": "go"}]}
        )
    )
    await serve.editor.wait_for(lambda: serve.events("message.part.delta", session["id"]))
    serve.kill()
    await asyncio.gather(prompt, return_exceptions=True)  # its connection is gone

    watch, out, err = await start_watch(session["id"], project, env)
    await out.wait_for("begun")
    release.set()
    assert await asyncio.wait_for(watch.wait(), 60) == 0, err.text
    await out.task
    assert "ended without it" in out.text
    reader = await attach_as(front_ends, project, data_dir, "reader")
    last = (await reader.messages(session["id"]))[-1]
    assert [p.text for p in last.parts if p.type == "text"] == ["begun in the editor, ended without it"]
    assert last.info.error is None  # type: ignore[union-attr]


async def test_an_editor_that_vanishes_mid_edit_fails_that_edit_for_the_model_and_the_turn_goes_on(
    host_allowing_edits: HostProcess,
    project: Path,
    data_dir: Path,
    env: dict[str, str],
    model: FakeModelServer,
    serves: Callable[..., Any],
    front_ends: list[RemoteAgent],
) -> None:
    calc = project / "calc.py"
    model.script(
        Turn.tool_call("edit", {"filePath": str(calc), "oldString": "a + b", "newString": "a * b"}),
        Turn.text("The editor went away."),
    )
    serve = await serves()
    # The editor's process dies while the edit is on its way to the buffer: the edit never answers.
    serve.editor.before_apply.append(lambda _editor: serve.kill())
    serve.editor.open(calc, EDITED)
    await until_lent(data_dir, calc)
    other = await attach_as(front_ends, project, data_dir, "watcher")
    session = await other.create_session()
    turn = asyncio.create_task(other.prompt(session.id, [TextInput(type="text", text="multiply")]))

    answer = await asyncio.wait_for(turn, 60)
    assert [p.text for p in answer.parts if p.type == "text"] == ["The editor went away."]
    messages = await other.messages(session.id)
    tools = [p for m in messages for p in m.parts if p.type == "tool"]
    (edit,) = tools
    assert edit.state.status == "error"
    assert "pytest-lsp, which was answering workspace.write_bytes, went away" in edit.state.error
    status = await host_status(data_dir)
    assert all(project["lenders"] == [] for project in status["projects"])


async def test_an_attached_editors_language_servers_answer_a_turn_another_front_end_started(
    host: HostProcess,
    project: Path,
    data_dir: Path,
    env: dict[str, str],
    model: FakeModelServer,
    serves: Callable[..., Any],
) -> None:
    calc = project / "calc.py"
    (project / "main.py").write_text("from calc import add\nprint(add(1, 2))\n")
    serve = await serves(profile=f"{PLUGIN}+editor:definition")
    asked: list[dict[str, Any]] = []

    def definition(params: Any) -> Any:
        asked.append(params)
        spot = {"line": 0, "character": 4}
        return [{"uri": uri(calc), "range": {"start": spot, "end": spot}}]

    serve.client.feature("agent/editorQuery")(definition)
    await until_lent(data_dir, project / "nothing-open-yet", supported="definition")
    model.script(
        Turn.tool_call("editor_definition", {"filePath": "main.py", "line": 2, "symbol": "add"}),
        Turn.text("It is in calc.py."),
    )
    code, out, err = await agentls("run", "where is add?", cwd=project, env=env)
    assert code == 0, err
    assert "It is in calc.py." in out
    offered = {t["function"]["name"] for t in model.requests[0].tools}
    assert "editor_definition" in offered  # the run is offered what the attached editor answers
    assert [(a["query"], a["uri"]) for a in asked] == [("definition", uri(project / "main.py"))]
    results = [m for m in model.requests[1].messages if m.get("role") == "tool"]
    assert any("calc.py:1: def add(a, b):" in str(m.get("content")) for m in results), results


async def test_two_attached_editors_each_get_the_edits_of_the_files_they_have_open(
    host_allowing_edits: HostProcess,
    project: Path,
    data_dir: Path,
    env: dict[str, str],
    model: FakeModelServer,
    serves: Callable[..., Any],
) -> None:
    calc, other = project / "calc.py", project / "other.py"
    other.write_text("x = 1\n")
    model.script(
        Turn.tool_call("edit", {"filePath": str(calc), "oldString": "a + b", "newString": "a * b"}),
        Turn.tool_call("edit", {"filePath": str(other), "oldString": "x = 2", "newString": "x = 3"}),
        Turn.text("Both changed."),
    )
    first, second = await serves(), await serves()
    first.editor.open(calc, EDITED)
    second.editor.open(other, "x = 2\n")  # unsaved in the second editor only
    await until_lent(data_dir, calc)
    await until_lent(data_dir, other)
    code, out, err = await agentls("run", "change both", cwd=project, env=env)
    assert code == 0, err
    assert "Both changed." in out
    assert [e.edit.document_changes[0].text_document.uri for e in first.editor.edits] == [uri(calc)]
    assert [e.edit.document_changes[0].text_document.uri for e in second.editor.edits] == [uri(other)]
    assert first.editor.buffers[uri(calc)].text == EDITED.replace("a + b", "a * b")
    assert second.editor.buffers[uri(other)].text == "x = 3\n"  # built on its unsaved text
    assert uri(other) not in first.editor.buffers and uri(calc) not in second.editor.buffers
