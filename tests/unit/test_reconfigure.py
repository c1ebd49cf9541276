"""``Agent.reconfigure``: a new config layer applies from the next turn on, an invalid one changes nothing.

Each test opens a real agent on a temp project against two fake model servers (``a`` and ``b``),
as the LSP server does: the editor's initialization options as one layer, its settings as another.
"""

from __future__ import annotations

import asyncio
import copy
import json
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from cli.config_cmd import render_sources
from core.api import Agent
from core.config.loader import Layer
from core.errors import ConfigError
from core.events import ConfigUpdated, PermissionAsked
from core.message.prompt_input import TextInput
from demo.config import fake_model_config
from demo.fake_model import FakeModelServer, RecordedRequest
from demo.fake_script import Turn
from tests.harness import Harness, open_test_agent, running_agent, wait_for

GUARD = 30.0
SETTINGS = "workspace/configuration"
ECHO_SERVER = Path(__file__).parent.parent / "fixtures" / "mcp" / "echo_server.py"


@pytest.fixture(autouse=True)
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith(("AGENTLS_", "XDG_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("AGENTLS_CONFIG_DIR", str(tmp_path / "user-config"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


@pytest.fixture
async def servers() -> AsyncIterator[tuple[FakeModelServer, FakeModelServer, FakeModelServer]]:
    async with FakeModelServer() as a, FakeModelServer() as b, FakeModelServer() as titles:
        titles.script(*[Turn.text("A title") for _ in range(10)])
        yield a, b, titles


@pytest.fixture
def a(servers: tuple[FakeModelServer, ...]) -> FakeModelServer:
    return servers[0]


@pytest.fixture
def b(servers: tuple[FakeModelServer, ...]) -> FakeModelServer:
    return servers[1]


@pytest.fixture
def base(servers: tuple[FakeModelServer, ...]) -> dict[str, Any]:
    """`fake/m` (and `fake/alt`) on server a; titles on their own server."""
    a, _, titles = servers
    config = fake_model_config(a, titles, retry={"initial_delay": 0.01, "max_attempts": 1})
    config["provider"]["fake"]["models"]["alt"] = {"limit": {"context": 100_000, "output": 4_000}}
    return config


def on_b(b: FakeModelServer, **extra: Any) -> dict[str, Any]:
    """Settings that make `other/m2`, served by b, the default model."""
    options = {"api_base": b.openai_base, "api_key": "offline"}
    provider = {"litellm_provider": "openai", "options": options, "models": {"m2": {}}}
    return {"model": "other/m2", "provider": {"other": provider}, **extra}


@pytest.fixture
async def harness(tmp_path: Path, base: dict[str, Any]) -> AsyncIterator[Harness]:
    project = tmp_path / "project"
    project.mkdir()
    (project / "hello.py").write_text("print('hello')\n")
    layers = [Layer("initializationOptions.config", base)]
    async with running_agent(project, layers=layers, data_dir=tmp_path / "data") as opened:
        yield opened


@pytest.fixture
def app(harness: Harness) -> Agent:
    return harness.agent


async def reconfigure(app: Agent, base: dict[str, Any], settings: Any) -> Any:
    """What the LSP server does on didChangeConfiguration: the settings as the top layer."""
    return await app.reconfigure([Layer("initializationOptions.config", base), Layer(SETTINGS, settings)])


async def ask(app: Agent, session_id: str, text: str = "go", **kwargs: Any) -> str:
    turn = app.prompt(session_id, [TextInput(type="text", text=text)], **kwargs)
    answer = await asyncio.wait_for(turn, GUARD)
    return "".join(p.text for p in answer.parts if p.type == "text")


def tool_names(request: RecordedRequest) -> set[str]:
    return {t["function"]["name"] for t in request.tools}


def system_text(request: RecordedRequest) -> str:
    return json.dumps(request.system)


async def test_a_new_default_model_takes_the_next_prompt(
    app: Agent, base: dict[str, Any], a: FakeModelServer, b: FakeModelServer
) -> None:
    a.script(Turn.text("from a"))
    b.script(Turn.text("from b"), Turn.text("from b again"))
    session = await app.create_session()
    assert await ask(app, session.id) == "from a"
    updates = app.subscribe(ConfigUpdated)

    result = await reconfigure(app, base, on_b(b))

    assert result.changed == ["model", "provider"]
    assert result.warnings == []
    info = app.config_info().to_wire()
    assert info["defaultModel"] == "other/m2" and "other/m2" in info["models"]
    event = updates.get_nowait()
    assert isinstance(event, ConfigUpdated) and event.defaultModel == "other/m2"
    assert event.changed == ["model", "provider"]
    # The session was on the old default: it follows the new one. A new session starts on it.
    assert await ask(app, session.id) == "from b"
    assert await ask(app, (await app.create_session()).id) == "from b again"
    assert len(a.requests) == 1 and len(b.requests) == 2
    assert all(r.body["model"] == "m2" for r in b.requests)


async def test_the_settings_layer_is_named_in_the_sources(
    harness: Harness, app: Agent, base: dict[str, Any], b: FakeModelServer
) -> None:
    await reconfigure(app, base, on_b(b))
    assert harness.state.resolved.source_of(("model",)) == SETTINGS
    assert harness.state.resolved.source_of(("small_model",)) == "initializationOptions.config"
    rendered = render_sources(harness.state.resolved, harness.config.model_dump(mode="json"))
    (line,) = [row for row in rendered.splitlines() if row.startswith('model = "other/m2"')]
    assert line.endswith(f"({SETTINGS})")


async def test_a_session_on_a_model_it_picked_keeps_it(
    app: Agent, base: dict[str, Any], a: FakeModelServer, b: FakeModelServer
) -> None:
    a.script(Turn.text("alt once"), Turn.text("alt twice"))
    session = await app.create_session()
    assert await ask(app, session.id, model="fake/alt") == "alt once"
    await reconfigure(app, base, on_b(b))
    assert await ask(app, session.id) == "alt twice"
    assert [r.body["model"] for r in a.requests] == ["alt", "alt"] and b.requests == []


async def test_a_session_on_a_model_the_settings_took_out_goes_on_with_the_default(
    app: Agent, base: dict[str, Any], a: FakeModelServer
) -> None:
    a.script(Turn.text("alt once"), Turn.text("default now"))
    session = await app.create_session()
    assert await ask(app, session.id, model="fake/alt") == "alt once"
    without_alt = copy.deepcopy(base)
    del without_alt["provider"]["fake"]["models"]["alt"]
    await app.reconfigure([Layer("initializationOptions.config", without_alt)])
    assert await ask(app, session.id) == "default now"
    assert [r.body["model"] for r in a.requests] == ["alt", "m"]


async def test_a_permission_change_hides_a_tool_from_the_next_request(
    app: Agent, base: dict[str, Any], a: FakeModelServer
) -> None:
    a.script(Turn.text("one"), Turn.text("two"))
    session = await app.create_session()
    await ask(app, session.id)
    assert "bash" in tool_names(a.requests[0])
    result = await reconfigure(app, base, {"permission": {"bash": "deny"}})
    assert result.changed == ["permission"]
    await ask(app, session.id)
    assert "bash" not in tool_names(a.requests[1]) and "read" in tool_names(a.requests[1])


async def test_an_added_agent_can_be_used_at_once(
    harness: Harness, app: Agent, base: dict[str, Any], a: FakeModelServer
) -> None:
    a.script(Turn.text("reviewed"))
    agent = {"description": "Reviews code", "mode": "primary", "prompt": "You are a strict reviewer."}
    await reconfigure(app, base, {"agent": {"reviewer": agent}})
    assert harness.state.agents.get("reviewer").description == "Reviews code"
    assert "reviewer" in [a["name"] for a in app.config_info().to_wire()["agents"]]
    session = await app.create_session(agent="reviewer")
    assert await ask(app, session.id, agent="reviewer") == "reviewed"
    assert "You are a strict reviewer." in system_text(a.requests[0])


@pytest.mark.parametrize(
    ("settings", "named"),
    [
        ({"compaction": {"tail_turns": -1}}, "compaction.tail_turns"),
        ({"model": "no-provider"}, "model"),
        ({"agent": {"x": {"model": "nope"}}}, "agent.x.model"),
        ({"model": "nowhere/m"}, "model: unknown provider 'nowhere'"),
        ({"provider": {"x": {"options": {"timeout": -1}}}}, "provider.x.options.timeout"),
        ({"provider": {"x": {"options": {"api_base": "127.0.0.1:8000"}}}}, "provider.x.options.api_base"),
        ({"small_model": "a/\ud800"}, "small_model: contains a lone surrogate"),
        ({"mcp": {"tools": {"type": "local"}}}, "mcp.tools.command"),
        (["not", "an", "object"], "must be a JSON object"),
    ],
)
async def test_an_invalid_config_keeps_the_one_in_effect(
    harness: Harness, app: Agent, base: dict[str, Any], a: FakeModelServer, settings: Any, named: str
) -> None:
    a.script(Turn.text("still a"))
    before = harness.state
    updates = app.subscribe(ConfigUpdated)
    with pytest.raises(ConfigError) as raised:
        await reconfigure(app, base, settings)
    assert SETTINGS in str(raised.value) and named in str(raised.value)
    assert harness.state is before and updates.get_nowait() is None
    assert await ask(app, (await app.create_session()).id) == "still a"


async def test_reconfigure_without_layers_rereads_the_files_and_keeps_the_host_layers(
    harness: Harness, app: Agent, base: dict[str, Any], b: FakeModelServer
) -> None:
    await reconfigure(app, base, {"permission": {"bash": "deny"}})
    (app.worktree / "agentls.json").write_text(json.dumps({"instructions": ["RULES.md"]}))
    result = await app.reconfigure()
    assert result.changed == ["instructions"]
    assert harness.config.permission == {"bash": "deny"}  # the settings layer is still there
    (app.worktree / "agentls.json").write_text('{"tool_output": {"max_lines": 0}}')
    with pytest.raises(ConfigError, match=r"agentls\.json: tool_output\.max_lines"):
        await app.reconfigure()
    assert harness.config.instructions == ["RULES.md"]


async def test_a_running_turn_keeps_its_config_and_the_next_turn_takes_the_new_one(
    tmp_path: Path, base: dict[str, Any], a: FakeModelServer, b: FakeModelServer
) -> None:
    project = tmp_path / "p2"
    project.mkdir()
    (project / "hello.py").write_text("print('hello')\n")
    first = {**base, "permission": {"read": "ask"}}
    harness = await open_test_agent(project, layers=[Layer("init", first)], data_dir=tmp_path / "d2")
    app = harness.agent
    try:
        a.script(Turn.tool_call("read", {"filePath": "hello.py"}), Turn.text("old config"))
        b.script(Turn.text("new config"))
        session = await app.create_session()
        asked = asyncio.create_task(wait_for(app, PermissionAsked, timeout=GUARD))
        turn = asyncio.create_task(ask(app, session.id))
        request = (await asked).request
        # Mid-turn: the same provider now points at b, and reading is denied.
        moved = json.loads(json.dumps(first))
        moved["provider"]["fake"]["options"]["api_base"] = b.openai_base
        moved["permission"] = {"read": "deny"}
        await app.reconfigure([Layer("init", first), Layer(SETTINGS, moved)])
        assert harness.config.provider["fake"].options.api_base == b.openai_base
        await app.dialogs.reply_permission(request.id, "once")
        assert await asyncio.wait_for(turn, GUARD) == "old config"
        assert len(a.requests) == 2 and b.requests == []
        read = [p for m in await app.messages(session.id) for p in m.parts if p.type == "tool"]
        assert read[0].state.status == "completed"
        # The next turn: b, and no read tool offered any more.
        assert await ask(app, session.id) == "new config"
        assert "read" not in tool_names(b.requests[0])
    finally:
        await app.close()


async def test_mcp_servers_added_and_removed_by_settings(
    harness: Harness, app: Agent, base: dict[str, Any], a: FakeModelServer
) -> None:
    echo = {"type": "local", "command": [sys.executable, str(ECHO_SERVER)]}
    a.script(Turn.text("with echo"), Turn.text("without echo"))
    session = await app.create_session()
    result = await reconfigure(app, base, {"mcp": {"echo": echo}})
    assert result.changed == ["mcp"] and result.warnings == []
    await ask(app, session.id)
    assert "echo_echo" in tool_names(a.requests[0])
    (manager,) = harness.state.mcp.managers()
    await reconfigure(app, base, {})
    await ask(app, session.id)
    assert not any(name.startswith("echo_") for name in tool_names(a.requests[1]))
    assert harness.state.mcp.managers() == [] and manager.tools() == []  # stopped: no turn was running
