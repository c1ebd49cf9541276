"""Live sessions across front ends: every attached front end gets a session's events as they
happen, a dialog answered in one closes in the others, a turn outlives the front end that started
it. Real host process, real `agentls run`, the fake model server."""

from __future__ import annotations

import asyncio
import os
import pty
import signal
from pathlib import Path

from core.events import PartDelta, PermissionAsked, PermissionReplied, SessionCreated, SessionIdle
from core.message.prompt_input import TextInput
from core.remote.agent import RemoteAgent
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn

from .conftest import AGENTLS, HostProcess, attach_as


async def test_two_front_ends_see_one_turn_and_one_answers_its_dialog(
    host: HostProcess,
    project: Path,
    data_dir: Path,
    model: FakeModelServer,
    front_ends: list[RemoteAgent],
) -> None:
    model.script(Turn.tool_call("bash", {"command": "rm calc.py"}), Turn.text("Deleted it."))
    vscode = await attach_as(front_ends, project, data_dir, "VS Code")
    nvim = await attach_as(front_ends, project, data_dir, "Neovim")
    session = await vscode.create_session()
    seen_by_nvim = nvim.subscribe(session_id=session.id)
    seen_by_vscode = vscode.subscribe(PermissionAsked, PermissionReplied, session_id=session.id)
    asked_in_nvim = nvim.subscribe(PermissionAsked, session_id=session.id)
    turn = asyncio.create_task(vscode.prompt(session.id, [TextInput(type="text", text="delete calc.py")]))

    asked_ids = []
    while True:  # rm asks twice: as an edit, then as a command
        next_event = asyncio.ensure_future(seen_by_vscode.get())
        await asyncio.wait({next_event, turn}, timeout=30, return_when=asyncio.FIRST_COMPLETED)
        if not next_event.done():
            next_event.cancel()
            break
        asked = next_event.result()
        if isinstance(asked, PermissionAsked):
            asked_ids.append(asked.request.id)
            in_nvim = await asyncio.wait_for(asked_in_nvim.get(), 30)  # its own connection: its own pace
            assert isinstance(in_nvim, PermissionAsked) and in_nvim.request.id == asked.request.id
            assert [r.id for r in nvim.dialogs.pending_permissions(session.id)] == [asked.request.id]
            assert [r.id for r in vscode.dialogs.pending_permissions()] == [asked.request.id]
            await nvim.dialogs.reply_permission(asked.request.id, "once")
            closed = await asyncio.wait_for(seen_by_vscode.get(), 30)
            assert isinstance(closed, PermissionReplied) and closed.reply == "once"
            assert vscode.answered_by(asked.request.id) == "Neovim"
            assert asked.request.id not in [r.id for r in vscode.dialogs.pending_permissions()]
    assert asked_ids
    answer = await asyncio.wait_for(turn, 30)
    assert [p.text for p in answer.parts if p.type == "text"] == ["Deleted it."]
    assert not (project / "calc.py").exists()
    streamed = []
    while (event := seen_by_nvim.get_nowait()) is not None:
        streamed.append(event.TYPE)
    assert "permission.asked" in streamed and "message.part.delta" in streamed and "session.idle" in streamed


async def test_a_turn_goes_on_when_the_front_end_that_started_it_is_killed(
    host: HostProcess,
    project: Path,
    data_dir: Path,
    env: dict[str, str],
    model: FakeModelServer,
    front_ends: list[RemoteAgent],
) -> None:
    release = asyncio.Event()
    model.script(Turn.text("started, then finished", chunks=6).stall(after=2, until=release))
    watcher = await attach_as(front_ends, project, data_dir, "watcher")
    events = watcher.subscribe(SessionCreated, PartDelta, SessionIdle)
    runner = await asyncio.create_subprocess_exec(
        *AGENTLS,
        "run",
        "go",
        cwd=project,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    created = await asyncio.wait_for(events.get(), 60)
    assert isinstance(created, SessionCreated)
    first = await asyncio.wait_for(events.get(), 60)
    assert isinstance(first, PartDelta) and first.sessionID == created.info.id

    os.kill(runner.pid, signal.SIGKILL)
    await runner.wait()
    release.set()
    idle = await asyncio.wait_for(events.get(), 30)
    while not isinstance(idle, SessionIdle):
        idle = await asyncio.wait_for(events.get(), 30)
    messages = await watcher.messages(created.info.id)
    assert [p.text for p in messages[-1].parts if p.type == "text"] == ["started, then finished"]
    assert messages[-1].info.error is None  # type: ignore[union-attr]


async def test_a_dialog_outlives_the_front_end_that_vanished_and_another_answers_it(
    host: HostProcess,
    project: Path,
    data_dir: Path,
    model: FakeModelServer,
    front_ends: list[RemoteAgent],
) -> None:
    model.script(Turn.tool_call("bash", {"command": "rm calc.py"}), Turn.text("Gone."))
    starter = await attach_as(front_ends, project, data_dir, "starter")
    other = await attach_as(front_ends, project, data_dir, "other")
    session = await starter.create_session()
    asked_elsewhere = other.subscribe(PermissionAsked, SessionIdle, session_id=session.id)
    prompt = asyncio.create_task(starter.prompt(session.id, [TextInput(type="text", text="delete calc.py")]))
    asked = await asyncio.wait_for(asked_elsewhere.get(), 30)
    assert isinstance(asked, PermissionAsked)

    front_ends.remove(starter)
    await starter.close()  # it goes away mid-dialog
    assert prompt.done() or await asyncio.wait_for(asyncio.gather(prompt, return_exceptions=True), 10)
    assert [r.id for r in other.dialogs.pending_permissions()] == [asked.request.id]  # still asked
    await other.dialogs.reply_permission(asked.request.id, "once")
    while not isinstance(event := await asyncio.wait_for(asked_elsewhere.get(), 30), SessionIdle):
        assert isinstance(event, PermissionAsked)  # rm asks as an edit, then as a command
        await other.dialogs.reply_permission(event.request.id, "once")
    last = (await other.messages(session.id))[-1]
    assert [p.text for p in last.parts if p.type == "text"] == ["Gone."]
    assert not (project / "calc.py").exists()


async def test_a_run_asking_on_its_terminal_hears_the_answer_given_in_another_front_end(
    host: HostProcess,
    project: Path,
    data_dir: Path,
    env: dict[str, str],
    model: FakeModelServer,
    front_ends: list[RemoteAgent],
) -> None:
    model.script(Turn.tool_call("bash", {"command": "rm calc.py"}), Turn.text("Deleted it."))
    nvim = await attach_as(front_ends, project, data_dir, "Neovim")
    asks = nvim.subscribe(PermissionAsked)
    main, terminal = pty.openpty()
    run = await asyncio.create_subprocess_exec(
        *AGENTLS,
        "run",
        "delete calc.py",
        cwd=project,
        env=env,
        stdin=terminal,
        stdout=terminal,
        stderr=terminal,
    )
    os.close(terminal)
    screen = Screen(main)
    try:
        answered = 0
        while run.returncode is None:
            next_ask = asyncio.ensure_future(asks.get())
            ended = asyncio.ensure_future(run.wait())
            await asyncio.wait({next_ask, ended}, timeout=60, return_when=asyncio.FIRST_COMPLETED)
            ended.cancel()
            if not next_ask.done():
                next_ask.cancel()
                break
            asked = next_ask.result()
            assert isinstance(asked, PermissionAsked)
            await screen.wait_for("allow? [y]es / [a]lways / [n]o:", answered + 1)
            await nvim.dialogs.reply_permission(asked.request.id, "once")
            answered += 1
            await screen.wait_for("once: answered in Neovim", answered)
        assert await asyncio.wait_for(run.wait(), 60) == 0, screen.text
        assert answered >= 1 and "Deleted it." in screen.text
        assert not (project / "calc.py").exists()
    finally:
        if run.returncode is None:
            run.kill()
            await run.wait()
        screen.close()


class Screen:
    """What a process writes to its terminal, read as it comes."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.text = ""
        self._changed = asyncio.Event()
        os.set_blocking(fd, False)
        asyncio.get_running_loop().add_reader(fd, self._read)

    def _read(self) -> None:
        try:
            chunk = os.read(self.fd, 65536)
        except OSError:  # the other side closed (EIO on Linux)
            chunk = b""
        if not chunk:
            asyncio.get_running_loop().remove_reader(self.fd)
        self.text += chunk.decode(errors="replace")
        self._changed.set()

    async def wait_for(self, text: str, count: int = 1) -> None:
        async with asyncio.timeout(60):
            while self.text.count(text) < count:
                self._changed.clear()
                await self._changed.wait()

    def close(self) -> None:
        asyncio.get_running_loop().remove_reader(self.fd)
        os.close(self.fd)
