"""Running commands through the front door, with the fake model: what the model receives, what a
``!`shell` `` asks, and the built-in commands."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Literal

import pytest

from core.api import Agent, Layer
from core.errors import (
    AbortedError,
    InvalidInputError,
    NotFoundError,
    PermissionDeniedError,
    PermissionRejectedError,
)
from core.events import Event, PermissionAsked
from core.message.models import UserMessage
from core.open import open_agent
from demo import FakeModelServer, Turn
from demo.config import fake_model_config

GUARD = 30.0


@pytest.fixture
async def models() -> AsyncIterator[tuple[FakeModelServer, FakeModelServer]]:
    async with FakeModelServer() as main, FakeModelServer() as titles:
        yield main, titles


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("AGENTLS_CONFIG_DIR", str(tmp_path / "config"))
    folder = tmp_path / "project"
    (folder / ".agentls" / "command").mkdir(parents=True)
    return folder


async def open_project(
    project: Path, models: tuple[FakeModelServer, FakeModelServer], **extra: object
) -> Agent:
    main, titles = models
    layer = Layer("test", fake_model_config(main, titles, **extra), None)
    return await open_agent(project, layers=[layer], data_dir=project.parent / "data")


@pytest.fixture
async def agent(project: Path, models: tuple[FakeModelServer, FakeModelServer]) -> AsyncIterator[Agent]:
    opened = await open_project(project, models)
    try:
        yield opened
    finally:
        await opened.close()


def sent_text(main: FakeModelServer) -> str:
    """Everything the last request's user messages said."""
    users = [m for m in main.requests[-1].messages if m.get("role") == "user"]
    return json.dumps([m.get("content") for m in users])


def command(project: Path, name: str, text: str) -> None:
    (project / ".agentls" / "command" / f"{name}.md").write_text(text, encoding="utf-8")


async def test_commands_lists_built_in_and_user_commands_and_broken_files(
    agent: Agent, project: Path
) -> None:
    command(project, "review", "---\ndescription: Review it\n---\nReview $ARGUMENTS\n")
    command(project, "broken", "---\nsubtask: perhaps\n---\nbody\n")
    listed = await agent.commands()
    names = [c.name for c in listed.commands]
    kinds = [c.kind for c in listed.commands]
    assert kinds == sorted(kinds)  # built-ins first
    builtins = [c.name for c in listed.commands if c.kind == "builtin"]
    assert builtins == sorted(builtins) and {"compact", "init", "redo", "undo"} <= set(builtins)
    assert "review" in names and "broken" not in names
    # A team's own /review replaces the built-in one (added later than many such files).
    assert next(c for c in listed.commands if c.name == "review").kind == "user"
    assert any("replaces the built-in /review" in w for w in listed.warnings)
    broken = project / ".agentls" / "command" / "broken.md"
    assert listed.errors == (f"{broken}:2: 'subtask' must be true or false",)


async def test_a_user_command_sends_its_expanded_template_with_the_files_it_names(
    agent: Agent, project: Path, models: tuple[FakeModelServer, FakeModelServer]
) -> None:
    main, _ = models
    (project / "calc.py").write_text("def add(a, b):\n    return a - b  # FILE-CONTENT\n")
    command(project, "review", "Review @$1 and focus on $2")
    main.script(Turn.text("reviewed"))
    session = await agent.create_session()
    result = await asyncio.wait_for(agent.run_command(session.id, "review", "calc.py the sign bug"), GUARD)
    assert result.message is not None and result.name == "review"
    text = sent_text(main)
    assert "Review @calc.py and focus on the sign bug" in text
    assert "FILE-CONTENT" in text  # the file's contents went with the prompt


async def test_shell_output_is_included_once_the_user_allows_the_command(
    agent: Agent, project: Path, models: tuple[FakeModelServer, FakeModelServer]
) -> None:
    main, _ = models
    command(project, "py", "Python says: !`python3 -c 'print(6*7)'`")
    main.script(Turn.text("ok"))
    session = await agent.create_session()
    asked: list[PermissionAsked] = []
    replies: list[asyncio.Future[None]] = []

    def approve(event: Event) -> None:
        if isinstance(event, PermissionAsked):
            asked.append(event)
            replies.append(asyncio.ensure_future(agent.dialogs.reply_permission(event.request.id, "once")))

    stop = agent.listen(approve, PermissionAsked)
    await asyncio.wait_for(agent.run_command(session.id, "py"), GUARD)
    stop()
    assert [a.request.permission for a in asked] == ["bash"]
    assert asked[0].request.sessionID == session.id
    assert "Python says: 42" in sent_text(main)


async def test_a_rejected_shell_command_sends_nothing_and_stores_nothing(
    agent: Agent, project: Path, models: tuple[FakeModelServer, FakeModelServer]
) -> None:
    main, _ = models
    marker = project / "ran"
    command(project, "touchy", f'Result: !`python3 -c \'open("{marker}", "w")\'`')
    session = await agent.create_session()
    replies: list[asyncio.Future[None]] = []

    def reject(event: Event) -> None:
        if isinstance(event, PermissionAsked):
            replies.append(asyncio.ensure_future(agent.dialogs.reply_permission(event.request.id, "reject")))

    stop = agent.listen(reject, PermissionAsked)
    with pytest.raises(PermissionRejectedError):
        await asyncio.wait_for(agent.run_command(session.id, "touchy"), GUARD)
    stop()
    assert not marker.exists()
    assert main.requests == []
    assert await agent.messages(session.id) == []


async def test_a_shell_command_the_config_denies_is_refused_without_a_dialog(
    project: Path, models: tuple[FakeModelServer, FakeModelServer]
) -> None:
    main, _ = models
    agent = await open_project(project, models, permission={"bash": {"python3 *": "deny"}})
    try:
        command(project, "py", "!`python3 -c 'print(1)'`")
        session = await agent.create_session()
        with pytest.raises(PermissionDeniedError):
            await asyncio.wait_for(agent.run_command(session.id, "py"), GUARD)
        assert agent.dialogs.pending_permissions() == [] and main.requests == []
    finally:
        await agent.close()


async def test_a_config_command_runs_with_its_agent_and_model(
    project: Path, models: tuple[FakeModelServer, FakeModelServer]
) -> None:
    main, _ = models
    config_command = {"hello": {"template": "Say hello to $ARGUMENTS", "agent": "plan", "model": "fake/m"}}
    agent = await open_project(project, models, command=config_command)
    try:
        main.script(Turn.text("hi"))
        session = await agent.create_session()
        await asyncio.wait_for(agent.run_command(session.id, "/hello", "Ada"), GUARD)
        assert "Say hello to Ada" in sent_text(main)
        [user] = [m.info for m in await agent.messages(session.id) if isinstance(m.info, UserMessage)]
        assert user.agent == "plan"
    finally:
        await agent.close()


async def test_unknown_commands_and_sessions_are_refused_by_name(agent: Agent) -> None:
    session = await agent.create_session()
    known = r"no command /nope \(commands: /agent, /changes, /compact, /effort"
    with pytest.raises(NotFoundError, match=known):
        await agent.run_command(session.id, "nope")
    with pytest.raises(NotFoundError):
        await agent.run_command("ses_missing", "compact")


async def test_undo_and_redo_step_through_turns(
    agent: Agent, models: tuple[FakeModelServer, FakeModelServer]
) -> None:
    main, _ = models
    main.script(Turn.text("one"), Turn.text("two"))
    session = await agent.create_session()
    with pytest.raises(InvalidInputError, match="nothing to undo"):
        await agent.run_command(session.id, "undo")
    with pytest.raises(InvalidInputError, match="nothing to redo"):
        await agent.run_command(session.id, "redo")
    from core.message.prompt_input import TextInput

    await asyncio.wait_for(agent.prompt(session.id, [TextInput(text="first")]), GUARD)
    await asyncio.wait_for(agent.prompt(session.id, [TextInput(text="second")]), GUARD)
    users = [m.info.id for m in await agent.messages(session.id) if isinstance(m.info, UserMessage)]

    result = await agent.run_command(session.id, "undo")
    assert result.revert is not None
    assert (await agent.get_session(session.id)).revert.messageID == users[1]  # type: ignore[union-attr]
    await agent.run_command(session.id, "undo")
    assert (await agent.get_session(session.id)).revert.messageID == users[0]  # type: ignore[union-attr]
    with pytest.raises(InvalidInputError, match="nothing to undo"):
        await agent.run_command(session.id, "undo")
    await agent.run_command(session.id, "redo")
    assert (await agent.get_session(session.id)).revert is None


async def test_init_asks_the_agent_to_write_agents_md(
    agent: Agent, models: tuple[FakeModelServer, FakeModelServer]
) -> None:
    main, _ = models
    main.script(Turn.text("written"))
    session = await agent.create_session()
    result = await asyncio.wait_for(agent.run_command(session.id, "init", "stress the test commands"), GUARD)
    assert result.message is not None
    text = sent_text(main)
    assert "AGENTS.md" in text and "stress the test commands" in text


async def test_a_subtask_command_hands_the_prompt_to_a_subagent(
    agent: Agent, project: Path, models: tuple[FakeModelServer, FakeModelServer]
) -> None:
    command(project, "bad", "---\nsubtask: true\nagent: build\n---\nDo $ARGUMENTS\n")
    session = await agent.create_session()
    with pytest.raises(InvalidInputError, match="'build' is not a subagent"):
        await agent.run_command(session.id, "bad", "x")


async def test_a_subtask_command_runs_in_a_child_session_of_the_subagent(
    agent: Agent, project: Path, models: tuple[FakeModelServer, FakeModelServer]
) -> None:
    main, _ = models
    command(project, "dig", "---\nsubtask: true\n---\nFind where $ARGUMENTS is defined\n")
    main.script(Turn.text("It is in core/x.py."), Turn.text("Done."), Turn.text("Done again."))
    session = await agent.create_session()
    await asyncio.wait_for(agent.run_command(session.id, "dig", "parse_config"), GUARD)
    children = [s for s in await agent.list_sessions() if s.parentID == session.id]
    assert len(children) == 1  # the general subagent answered in a child session
    child_text = json.dumps([m.model_dump(mode="json") for m in await agent.messages(children[0].id)])
    assert "Find where parse_config is defined" in child_text


async def test_an_abort_while_a_shell_step_waits_for_permission_closes_the_dialog_and_sends_nothing(
    agent: Agent, project: Path, models: tuple[FakeModelServer, FakeModelServer]
) -> None:
    main, _ = models
    command(project, "py", "!`python3 -c 'print(1)'`")
    session = await agent.create_session()
    asked = asyncio.Event()
    stop = agent.listen(lambda event: asked.set(), PermissionAsked)
    running = asyncio.ensure_future(agent.run_command(session.id, "py"))
    await asyncio.wait_for(asked.wait(), GUARD)
    stop()
    assert agent.dialogs.pending_permissions(session.id)
    await agent.abort(session.id)
    with pytest.raises(AbortedError):
        await asyncio.wait_for(running, GUARD)
    assert agent.dialogs.pending_permissions() == []
    assert main.requests == [] and await agent.messages(session.id) == []


def answer_permissions(
    agent: Agent, reply: Literal["once", "reject"]
) -> tuple[list[PermissionAsked], Callable[[], None]]:
    """Answer every permission dialog with ``reply``; the dialogs seen, and how to stop."""
    seen: list[PermissionAsked] = []
    replies: list[asyncio.Future[None]] = []

    def answer(event: Event) -> None:
        if isinstance(event, PermissionAsked):
            seen.append(event)
            replies.append(asyncio.ensure_future(agent.dialogs.reply_permission(event.request.id, reply)))

    return seen, agent.listen(answer, PermissionAsked)


@pytest.mark.parametrize(
    ("template", "arguments", "asked"),
    [
        (
            "Compare @../outside.txt",
            "",
            [("external_directory", "{outside}/*")],
        ),
        (
            "Compare @$1",
            "../outside.txt",
            [("external_directory", "{outside}/*")],
        ),
        ("Check @.env", "", [("read", ".env")]),
        ("Check @config/.env.local", "", [("read", "config/.env.local")]),
    ],
)
async def test_a_template_file_outside_the_project_or_secret_asks_as_read_does(
    agent: Agent,
    project: Path,
    models: tuple[FakeModelServer, FakeModelServer],
    template: str,
    arguments: str,
    asked: list[tuple[str, str]],
) -> None:
    main, _ = models
    (project.parent / "outside.txt").write_text("OUTSIDE-SECRET\n")
    (project / "config").mkdir()
    (project / ".env").write_text("TOKEN=ENV-SECRET\n")
    (project / "config" / ".env.local").write_text("TOKEN=ENV-SECRET\n")
    marker = project / "shell-ran"
    command(project, "peek", f"{template} !`touch {marker}`")
    session = await agent.create_session()
    expected = [(p, pattern.format(outside=project.parent.resolve())) for p, pattern in asked]

    seen, stop = answer_permissions(agent, "reject")
    with pytest.raises(PermissionRejectedError):
        await asyncio.wait_for(agent.run_command(session.id, "peek", arguments), GUARD)
    stop()
    assert [(e.request.permission, e.request.patterns[0]) for e in seen] == expected[:1]
    assert main.requests == [] and not marker.exists()  # nothing sent, no shell run
    assert await agent.messages(session.id) == []

    main.script(Turn.text("seen"))
    seen, stop = answer_permissions(agent, "once")
    await asyncio.wait_for(agent.run_command(session.id, "peek", arguments), GUARD)
    stop()
    assert [(e.request.permission, e.request.patterns[0]) for e in seen][: len(expected)] == expected
    assert "SECRET" in sent_text(main)


async def test_template_files_inside_the_project_and_env_examples_do_not_ask(
    agent: Agent, project: Path, models: tuple[FakeModelServer, FakeModelServer]
) -> None:
    main, _ = models
    (project / "calc.py").write_text("CALC\n")
    (project / ".env.example").write_text("TOKEN=EXAMPLE\n")
    command(project, "look", "Look at @calc.py and @.env.example")
    main.script(Turn.text("seen"))
    session = await agent.create_session()
    seen, stop = answer_permissions(agent, "reject")
    await asyncio.wait_for(agent.run_command(session.id, "look"), GUARD)
    stop()
    assert seen == []
    assert "CALC" in sent_text(main) and "EXAMPLE" in sent_text(main)


async def test_a_template_file_the_config_denies_is_refused_without_a_dialog(
    project: Path, models: tuple[FakeModelServer, FakeModelServer]
) -> None:
    main, _ = models
    agent = await open_project(project, models, permission={"read": {"*.env": "deny"}})
    try:
        (project / ".env").write_text("TOKEN=ENV-SECRET\n")
        command(project, "leak", "Send @.env")
        session = await agent.create_session()
        with pytest.raises(PermissionDeniedError, match=r'"read" for "\.env" is denied'):
            await asyncio.wait_for(agent.run_command(session.id, "leak"), GUARD)
        assert agent.dialogs.pending_permissions() == [] and main.requests == []
    finally:
        await agent.close()
