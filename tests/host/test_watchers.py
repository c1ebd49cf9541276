"""Who else watches a session, and who answered a dialog (issue #39, "Visible"): two real
`agentls serve` processes attached to a real host, each with its own editor name, a front end in
the test process, `agentls sessions watch`, and an ACP client (the SDK client of tests/acp)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types as lsp

from core.events import PermissionAsked, PermissionReplied
from core.message.prompt_input import TextInput
from core.remote.agent import RemoteAgent
from core.remote.attach import attach, connect
from core.remote.connection import RemoteError
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.acp import conftest as acp_suite
from tests.acp.conftest import Acp
from tests.lsp.editor import PLUGIN, REPO, SERVER, capabilities, make_client, uri
from tests.ticks import until

from . import test_acp_attached as acp_attached
from .conftest import HostProcess, attach_as
from .test_serve_attached import Serve
from .test_watch import running_turn, start_watch
from .test_worktrees_attached import git_repo

acp = acp_suite.acp
node_workdir = acp_suite.node_workdir
acp_host = acp_attached.acp_host


@pytest.fixture
async def editors(project: Path, env: dict[str, str]) -> AsyncIterator[Callable[..., Any]]:
    """Start `agentls serve` processes attached to the host, each named as its editor (``start(name)``)."""
    started: list[Serve] = []

    async def start(name: str) -> Serve:
        client, editor = make_client(("agent/event",))
        await client.start_io(*SERVER, env=env, cwd=str(REPO))
        result = await client.initialize_session(
            lsp.InitializeParams(
                capabilities=capabilities(PLUGIN),
                root_uri=uri(project),
                workspace_folders=[lsp.WorkspaceFolder(uri=uri(project), name=project.name)],
                initialization_options={"host": "attach", "untrusted": False},
                client_info=lsp.ClientInfo(name=name),
            )
        )
        serve = Serve(client, editor, result)
        started.append(serve)
        await serve.call("agent/commands")  # the agent is open (attached) once this answers
        return serve

    yield start
    for serve in started:
        if not serve.killed:
            await serve.client.shutdown_session()
        await serve.client.stop()


def show(serve: Serve, session_id: str | None) -> None:
    serve.client.protocol.notify("agent/session/show", {"sessionIDs": [session_id] if session_id else []})


async def watchers(serve: Serve, session_id: str, clients: list[str]) -> None:
    """Until the last ``session.watchers`` of the session that ``serve`` received names ``clients``."""

    def last() -> list[str] | None:
        seen = serve.events("session.watchers", session_id)
        return seen[-1]["properties"]["clients"] if seen else None

    await serve.editor.wait_for(lambda: last() == clients, 60)


async def test_each_editor_is_told_who_else_shows_its_session_as_they_come_and_go(
    host: HostProcess,
    project: Path,
    data_dir: Path,
    env: dict[str, str],
    model: FakeModelServer,
    editors: Callable[..., Any],
    front_ends: list[RemoteAgent],
) -> None:
    code = await editors("Visual Studio Code")
    vim = await editors("Neovim")
    session = (await code.call("agent/session/create", {}))["id"]
    show(code, session)
    await watchers(code, session, [])  # shown alone: its header says nothing
    show(vim, session)
    await watchers(code, session, ["Neovim"])
    await watchers(vim, session, ["Visual Studio Code"])

    zed = await attach_as(front_ends, project, data_dir, "Zed")
    await zed.show([session])
    assert zed.watchers(session) == ["Visual Studio Code", "Neovim"]  # told before show returned
    await watchers(code, session, ["Neovim", "Zed"])

    show(vim, None)  # its chat closed
    await watchers(code, session, ["Zed"])
    await until(lambda: zed.watchers(session) == ["Visual Studio Code"], "Zed told Neovim left", 30)
    show(vim, session)
    await watchers(code, session, ["Neovim", "Zed"])  # in the order they first showed it
    vim.kill()  # the editor's server dies: the host drops it at once
    await watchers(code, session, ["Zed"])
    await zed.close()
    await watchers(code, session, [])

    # `agentls sessions watch` says who else has the session open, and is listed while it runs.
    watcher = await attach_as(front_ends, project, data_dir, "Zed")
    release = asyncio.Event()
    running, turn = await running_turn(watcher, model, release)
    show(code, running)
    await watchers(code, running, [])
    proc, _, err = await start_watch(running, project, env)
    await err.wait_for(f"agentls: {running} is also open in Visual Studio Code\n")
    await watchers(code, running, [f"agentls sessions watch (pid {proc.pid})"])
    release.set()
    assert await asyncio.wait_for(proc.wait(), 60) == 0, err.text
    await watchers(code, running, [])  # it ended: gone from the list
    await turn


async def test_a_dialog_answered_in_one_editor_closes_in_the_others_saying_where(
    host: HostProcess,
    project: Path,
    data_dir: Path,
    model: FakeModelServer,
    editors: Callable[..., Any],
    front_ends: list[RemoteAgent],
) -> None:
    model.script(Turn.tool_call("bash", {"command": "echo hi > note.txt"}), Turn.text("Noted."))
    code = await editors("Visual Studio Code")
    vim = await editors("Neovim")
    zed = await attach_as(front_ends, project, data_dir, "Zed")
    session = await zed.create_session()
    seen = zed.subscribe(PermissionAsked, PermissionReplied, session_id=session.id)
    turn = asyncio.create_task(zed.prompt(session.id, [TextInput(type="text", text="note it")]))
    asked = await asyncio.wait_for(seen.get(), 60)
    assert isinstance(asked, PermissionAsked)
    await code.editor.wait_for(lambda: code.events("permission.asked", session.id))
    await vim.editor.wait_for(lambda: vim.events("permission.asked", session.id))

    await vim.call("agent/permission/reply", {"requestID": asked.request.id, "reply": "once"})
    (closed,) = await code.editor.wait_for(lambda: code.events("permission.replied", session.id))
    assert closed["properties"] == {
        "sessionID": session.id,
        "requestID": asked.request.id,
        "reply": "once",
        "by": "Neovim",
    }
    (own,) = await vim.editor.wait_for(lambda: vim.events("permission.replied", session.id))
    assert "by" not in own["properties"]  # answered there: nothing to say
    replied = await asyncio.wait_for(seen.get(), 30)
    assert isinstance(replied, PermissionReplied) and replied.by == "Neovim"
    answer = await asyncio.wait_for(turn, 60)
    assert [p.text for p in answer.parts if p.type == "text"] == ["Noted."]


async def test_an_acp_client_is_a_watcher_and_hears_in_its_session_who_answered_its_dialog(
    acp_host: HostProcess, acp: Acp
) -> None:
    acp.model.script(
        Turn.tool_call("bash", {"command": "echo hi", "description": "Echo"}), Turn.text("Done.")
    )
    vim = await attach(acp.project, data_dir=acp.data, client="Neovim", mode="attach")
    try:
        asked = vim.subscribe(PermissionAsked)
        # The client leaves its dialog open (it waits for a cancel that never comes): Neovim answers.
        run = asyncio.ensure_future(
            acp.run("turn", PROMPT="echo", PERMISSION_HOLD="1", **acp_attached.ATTACHED)
        )
        request = (await asyncio.wait_for(asked.get(), 90)).request  # type: ignore[attr-defined]
        await vim.show([request.sessionID])
        assert vim.watchers(request.sessionID) == ["agentls-test-client"]
        await vim.dialogs.reply_permission(request.id, "once")
        result = await run
        assert result.failure is None, result.failure
        assert "> Answered in Neovim." in result.text()
        assert result.text().endswith("Done.")
        # The ACP client ended: the host told Neovim it no longer shows the session.
        await until(lambda: vim.watchers(request.sessionID) == [], "Neovim told the ACP client left", 30)
    finally:
        await vim.close()


async def test_showing_refuses_a_project_not_opened_and_sessions_that_are_not_ids(
    host: HostProcess, project: Path, data_dir: Path, front_ends: list[RemoteAgent]
) -> None:
    conn, _, _ = await connect(data_dir, "raw")
    try:
        with pytest.raises(RemoteError, match="no project 'p9' opened on this connection"):
            await conn.request("showing", {"project": "p9", "sessions": []})
        opened = await conn.request("open", {"directory": str(project), "layers": []})
        for bad in ("ses_1", [""], [3], None):
            with pytest.raises(RemoteError, match="showing needs sessions: a list of session ids") as refused:
                await conn.request("showing", {"project": opened["project"], "sessions": bad})
            assert refused.value.code == -32602
        # Nothing was recorded: a front end showing the session learns no one else does.
        other = await attach_as(front_ends, project, data_dir, "Zed")
        await other.show(["ses_1"])
        assert other.watchers("ses_1") == []
        assert await conn.request("showing", {"project": opened["project"], "sessions": ["ses_1"]}) == {}
        await until(lambda: other.watchers("ses_1") == ["raw"], "Zed told of the raw front end", 30)
    finally:
        conn.close()
    await until(lambda: other.watchers("ses_1") == [], "Zed told the raw front end left", 30)


async def test_a_malformed_show_is_ignored_and_the_server_goes_on(
    host: HostProcess,
    project: Path,
    data_dir: Path,
    editors: Callable[..., Any],
    front_ends: list[RemoteAgent],
) -> None:
    code = await editors("Visual Studio Code")
    zed = await attach_as(front_ends, project, data_dir, "Zed")
    session = await zed.create_session()
    await zed.show([session.id])
    code.client.protocol.notify("agent/session/show", {"sessionIDs": "not a list"})
    code.client.protocol.notify("agent/session/show", {"sessionIDs": [""]})
    show(code, session.id)  # the next good one still counts
    await watchers(code, session.id, ["Zed"])
    assert (await code.call("agent/session/get", {"sessionID": session.id}))["id"] == session.id


async def test_a_worktree_session_is_shown_through_the_worktree_agents_own_connection(
    host: HostProcess,
    project: Path,
    data_dir: Path,
    editors: Callable[..., Any],
    front_ends: list[RemoteAgent],
) -> None:
    git_repo(project)
    code = await editors("Visual Studio Code")
    vim = await editors("Neovim")
    session = await code.call("agent/session/create", {"worktree": "shown"})
    folder, shown = Path(session["worktree"]["path"]), session["id"]
    show(code, shown)
    await watchers(code, shown, [])  # the host has it (two servers' notifications race otherwise)
    show(vim, shown)
    await watchers(code, shown, ["Neovim"])
    await watchers(vim, shown, ["Visual Studio Code"])
    # A front end that opened the worktree itself (as `agentls run -C <worktree>` or an ACP client
    # there) is told the editors show its session: they told the worktree's agent, not the checkout's.
    zed = await attach_as(front_ends, folder, data_dir, "Zed")
    await zed.show([shown])
    assert zed.watchers(shown) == ["Visual Studio Code", "Neovim"]
    show(vim, None)
    await watchers(code, shown, ["Zed"])
    await until(lambda: zed.watchers(shown) == ["Visual Studio Code"], "Zed told Neovim left", 30)
