"""`agentls acp` attached to the host (``AGENTLS_HOST=attach``), driven by the official ACP
TypeScript SDK client of tests/acp: its turns run in a real host process, which runs bash in the
client's terminal and reads and writes files through the client's ``fs/*`` as the in-process agent
does; a prompt it sends on a session another front end runs waits in the host's queue."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator

import pytest

from core.api import Layer
from core.events import PartDelta, QueueAdded
from core.message.prompt_input import TextInput
from core.remote.attach import attach, connect
from demo.fake_script import Turn
from tests.acp import conftest as acp_suite
from tests.acp.conftest import Acp
from tests.acp.test_edit import UNSAVED, edit_turns
from tests.tools import tools_env

from .conftest import ROOT, HostProcess, start_host

ATTACHED = {"AGENTLS_HOST": "attach"}

# The ACP suite's fixtures: a project with the fake model, and the SDK client's folder.
acp = acp_suite.acp
node_workdir = acp_suite.node_workdir


@pytest.fixture
async def acp_host(acp: Acp, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[HostProcess]:
    """A host on the ACP agent's data dir, with the environment the ACP agent gets (and this test)."""
    async with host_of(acp, monkeypatch) as process:
        yield process


@contextlib.asynccontextmanager
async def host_of(acp: Acp, monkeypatch: pytest.MonkeyPatch, **extra: str) -> AsyncIterator[HostProcess]:
    """``acp_host``'s host; ``extra``: more environment for it and this test (an ACP agent of the
    test gets it from ``acp.run``)."""
    for name in ("AGENTLS_CONFIG", "AGENTLS_CONFIG_CONTENT", "AGENTLS_PERMISSION", "AGENTLS_DATA_DIR"):
        monkeypatch.delenv(name, raising=False)
    ours = {"AGENTLS_CONFIG_DIR": str(acp.data / "config"), "XDG_CONFIG_HOME": str(acp.data / "xdg")}
    tools = tools_env()
    # The test tools' AGENTLS_* variables too: a host started by the ACP agent gets them, and a host
    # refuses a front end (this test's own attach) whose agentls variables differ from its own.
    ours |= {name: value for name, value in tools.items() if name.startswith("AGENTLS_") and name not in ours}
    ours.pop("AGENTLS_DATA_DIR", None)
    ours |= extra
    for name, value in ours.items():  # as Acp.run sets them for the agent
        monkeypatch.setenv(name, value)
    process, line = await start_host(acp.data, {**tools, **ours, "PYTHONPATH": str(ROOT)})
    assert line.startswith("ready"), process.log_text()
    try:
        yield process
    finally:
        with contextlib.suppress(ProcessLookupError):  # (a test may have killed it)
            process.proc.terminate()
        await asyncio.wait_for(process.proc.wait(), 30)
        assert "Traceback" not in process.log_text(), process.log_text()


async def opened_in_host(acp: Acp) -> list[str]:
    """The projects the host has opened (an attached front end's)."""
    conn, _, _ = await connect(acp.data, "test", control=True)
    try:
        status = await conn.request("status", {})
    finally:
        conn.close()
    return [project["directory"] for project in status["projects"]]


async def test_bash_of_an_attached_acp_turn_runs_in_the_clients_terminal(
    acp_host: HostProcess, acp: Acp
) -> None:
    acp.model.script(
        Turn.tool_call("bash", {"command": "echo from-terminal; exit 3", "description": "Echo"}),
        Turn.text("Done."),
    )
    run = await acp.run("turn", PROMPT="run it", TERMINALS="1", **ATTACHED)
    assert run.failure is None, run.failure
    assert await opened_in_host(acp) == [str(acp.project.resolve())], run.stderr  # the turn ran in the host
    (created,) = [e["params"] for e in run.log if e["kind"] == "terminal-create"]
    assert [created["command"], *created["args"]][-3:] == ["/bin/sh", "-c", "echo from-terminal; exit 3"]
    assert created["cwd"] == str(acp.project)
    shown = [
        c for u in run.updates("tool_call_update") for c in u.get("content") or [] if c["type"] == "terminal"
    ]
    assert shown and shown[0]["terminalId"] == "term-1"
    assert "terminal-release" in run.kinds
    tool_result = str(acp.model.requests[-1].messages[-1]["content"])
    assert "from-terminal" in tool_result and "Exit code: 3" in tool_result
    assert run.text() == "Done."


async def test_cancelling_an_attached_acp_prompt_kills_the_command_in_the_clients_terminal(
    acp_host: HostProcess, acp: Acp
) -> None:
    acp.model.script(Turn.tool_call("bash", {"command": "sleep 8; echo late", "description": "Wait"}))
    run = await acp.run("cancel", PROMPT="wait", TERMINALS="1", CANCEL_AFTER="terminal-create", **ATTACHED)
    assert run.failure is None, run.failure
    assert await opened_in_host(acp) == [str(acp.project.resolve())]
    assert run.results["prompt"] == {"stopReason": "cancelled"}
    assert run.results["cancelToStopMs"] < 6_000  # killed, not waited for (8 s)
    assert run.kinds.index("terminal-release") > run.kinds.index("cancel-sent")
    assert len(acp.model.requests) == 1


async def test_an_attached_acp_turn_edits_through_the_clients_buffers(
    acp_host: HostProcess, acp: Acp
) -> None:
    acp.model.script(*edit_turns())
    path = str(acp.project / "hello.py")
    run = await acp.run("turn", PROMPT="say world", BUFFERS=json.dumps({path: UNSAVED}), **ATTACHED)
    assert run.failure is None, run.failure
    assert await opened_in_host(acp) == [str(acp.project.resolve())]
    (ask,) = [e["params"] for e in run.log if e["kind"] == "permission"]
    edited = UNSAVED.replace("hello", "world")
    assert ask["toolCall"]["content"] == [
        {"type": "diff", "path": path, "oldText": UNSAVED, "newText": edited}
    ]
    writes = [e["params"] for e in run.log if e["kind"] == "write"]
    assert writes == [{"sessionId": ask["sessionId"], "path": path, "content": edited}]
    final = [u for u in run.updates("tool_call_update") if u["toolCallId"] == ask["toolCall"]["toolCallId"]][
        -1
    ]
    assert final["status"] == "completed"
    assert final["content"] == [{"type": "diff", "path": path, "oldText": UNSAVED, "newText": edited}]


async def test_a_prompt_from_acp_on_a_session_another_front_end_runs_is_answered_in_order(
    acp_host: HostProcess, acp: Acp
) -> None:
    release = asyncio.Event()
    acp.model.script(
        Turn.text("first, from the terminal", chunks=4).stall(after=2, until=release),
        Turn.text("second, for the editor"),
    )
    terminal = await attach(acp.project, data_dir=acp.data, client="agentls run", mode="attach")
    try:
        session = await terminal.create_session()
        queued = terminal.subscribe(QueueAdded, session_id=session.id)
        first = asyncio.create_task(terminal.prompt(session.id, [TextInput(type="text", text="go on")]))
        acp_run = asyncio.create_task(
            acp.run("load", SESSION_ID=session.id, PROMPT="queued from the editor", **ATTACHED)
        )
        added = await asyncio.wait_for(queued.get(), 60)  # the editor's prompt waits behind the turn
        assert isinstance(added, QueueAdded)
        assert not first.done()
        release.set()
        answer = await asyncio.wait_for(first, 60)
        run = await acp_run
    finally:
        await terminal.close()
    assert [p.text for p in answer.parts if p.type == "text"] == ["first, from the terminal"]
    assert run.failure is None, run.failure
    assert run.results["prompt"] == {"stopReason": "end_turn"}
    assert "second, for the editor" in run.text()
    requests = [str(r.messages) for r in acp.model.requests]
    assert len(requests) == 2
    assert "queued from the editor" not in requests[0] and "queued from the editor" in requests[1]


async def test_an_acp_client_and_an_editor_with_a_model_of_its_own_share_one_agent(
    acp_host: HostProcess, acp: Acp
) -> None:
    config = json.loads((acp.project / "agentls.json").read_text())
    models = config["provider"]["fake"]["models"]
    models["m2"] = models["m"]
    (acp.project / "agentls.json").write_text(json.dumps(config))
    acp.model.script(Turn.text("from zed", chunks=3), Turn.text("from the editor"))
    # An editor whose settings set its model (as VS Code's `agentls.model`), attached as serve is.
    editor = await attach(
        acp.project,
        layers=[Layer("settings", {"model": "fake/m2"})],
        data_dir=acp.data,
        client="VS Code",
        mode="attach",
    )
    try:
        session = await editor.create_session()
        deltas = editor.subscribe(PartDelta, session_id=session.id)
        run = await acp.run("load", SESSION_ID=session.id, PROMPT="hello from zed", **ATTACHED)
        assert run.failure is None, run.failure
        assert len(await opened_in_host(acp)) == 1  # one agent: the editor follows the ACP turn
        seen = ""
        while "from zed" not in seen:
            seen += (await asyncio.wait_for(deltas.get(), 60)).delta
        answer = await editor.prompt(session.id, [TextInput(type="text", text="and you?")])
        assert editor.config_info().default_model == "fake/m2"
    finally:
        await editor.close()
    assert [p.text for p in answer.parts if p.type == "text"] == ["from the editor"]
    assert [r.body["model"] for r in acp.model.requests] == ["m", "m2"]  # each front end's own
