"""The front door (``core.api.Agent`` opened by ``core.open.open_agent``) as a front end uses it:
typed config info, dialogs, and "a cancelled caller aborts the turn" owned by ``prompt`` itself."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from core.api import Agent, ConfigInfo, Layer, ModelLimits, Rule
from core.errors import ConfigError, NotFoundError, ProviderError
from core.events import Event, MessageUpdated
from core.message.models import TextPart, UserMessage
from core.message.prompt_input import TextInput
from core.open import open_agent
from demo import FakeModelServer, Turn
from demo.config import fake_model_config

GUARD = 30.0  # a turn that never ends fails the test instead of hanging it


@pytest.fixture
async def models() -> AsyncIterator[tuple[FakeModelServer, FakeModelServer]]:
    async with FakeModelServer() as main, FakeModelServer() as titles:
        yield main, titles


@pytest.fixture
async def agent(tmp_path: Path, models: tuple[FakeModelServer, FakeModelServer]) -> AsyncIterator[Agent]:
    main, titles = models
    project = tmp_path / "project"
    project.mkdir()
    layer = Layer("test", fake_model_config(main, titles), None)
    opened = await open_agent(project, layers=[layer], data_dir=tmp_path / "data")
    try:
        yield opened
    finally:
        await opened.close()


async def test_a_prompt_cancelled_while_its_message_is_stored_stores_it_whole_and_runs_no_turn(
    agent: Agent, models: tuple[FakeModelServer, FakeModelServer]
) -> None:
    main, _ = models
    main.script(Turn.text("this answer is never asked for"))
    session = await agent.create_session()
    task: asyncio.Task[object] | None = None

    def cancel_when_stored(event: Event) -> None:
        # The user message's info is stored, its parts not yet: the caller goes away right now.
        if isinstance(event, MessageUpdated) and isinstance(event.info, UserMessage) and task is not None:
            task.cancel()

    stop = agent.listen(cancel_when_stored, MessageUpdated)
    task = asyncio.ensure_future(agent.prompt(session.id, [TextInput(type="text", text="hello")]))
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, GUARD)
    stop()

    messages = await agent.messages(session.id)
    assert [m.info.role for m in messages] == ["user"]
    assert [p.text for p in messages[0].parts if isinstance(p, TextPart)] == ["hello"]
    assert main.requests == []  # the turn never started


async def test_a_prompt_cancelled_during_its_turn_aborts_the_turn(
    agent: Agent, models: tuple[FakeModelServer, FakeModelServer]
) -> None:
    main, _ = models
    main.script(Turn.text("a long answer that never ends", chunks=8).stall(after=2))
    session = await agent.create_session()
    task = asyncio.ensure_future(agent.prompt(session.id, [TextInput(type="text", text="hello")]))
    await main.wait_for_requests(1, timeout=GUARD)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, GUARD)

    messages = await agent.messages(session.id)
    assert [m.info.role for m in messages] == ["user", "assistant"]
    final = messages[-1].info
    assert final.role == "assistant" and final.error is not None and final.error.name == "aborted"


async def test_config_info_is_a_typed_record_that_names_its_agents(agent: Agent) -> None:
    info = agent.config_info()

    assert isinstance(info, ConfigInfo)
    assert info.default_agent == "build"
    assert info.agent("build").mode == "primary"
    assert info.models and all(isinstance(info.model_limits[m], ModelLimits) for m in info.models)
    with pytest.raises(NotFoundError, match="no agent named 'nobody'"):
        info.agent("nobody")
    wire = info.to_wire()
    assert wire["defaultAgent"] == "build" and "build" in [a["name"] for a in wire["agents"]]


async def test_model_limits_of_a_model_that_cannot_be_resolved_are_zero(agent: Agent) -> None:
    assert agent.model_limits("not-a-model-ref") == ModelLimits(context=0, output=0)


async def test_dialogs_name_requests_that_are_not_pending(agent: Agent) -> None:
    first = await agent.create_session()
    agent.dialogs.deny_in_session(first.id, [Rule("bash", "*", "deny")])
    assert agent.dialogs.pending_permissions(first.id) == []
    assert agent.dialogs.pending_questions() == []
    with pytest.raises(NotFoundError):
        await agent.dialogs.reply_permission("per_missing", "once")
    with pytest.raises(NotFoundError):
        agent.dialogs.dismiss("que_missing")


async def test_check_model_names_the_usable_model_and_why_another_is_not(
    agent: Agent, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert agent.check_model() == agent.config_info().default_model
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(ProviderError, match="set the ANTHROPIC_API_KEY environment variable") as raised:
        agent.check_model("anthropic/claude-sonnet-4-5")
    assert raised.value.kind == "auth"


async def test_check_model_without_a_configured_model_says_how_to_configure_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "bare"
    project.mkdir()
    monkeypatch.setenv("AGENTLS_CONFIG_DIR", str(tmp_path / "no-user-config"))
    for name in ("AGENTLS_CONFIG", "AGENTLS_CONFIG_CONTENT"):
        monkeypatch.delenv(name, raising=False)
    opened = await open_agent(project, layers=[], data_dir=tmp_path / "data")
    try:
        with pytest.raises(ConfigError, match="no model is configured"):
            opened.check_model()
    finally:
        await opened.close()
