"""ContextResolver from its records, without an app: items are counted with the session's last
prompt's model (else the configured one, else the default encoding), and a URL is fetched only in a
session, its permission dialog belonging to the session rather than to a tool call."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from core.agent.agents import Agents
from core.agent.info import AgentInfo
from core.bus import Bus
from core.config.schema import Config
from core.context.tokens import TokenCounter
from core.errors import ConfigError, NotFoundError
from core.events import PermissionAsked
from core.llm.model import ModelInfo, resolve_model
from core.message.context_items import TerminalItem, UrlItem
from core.message.models import ModelRef, UserMessage, UserTime
from core.permission.rules import Rule, Ruleset
from core.permission.service import Permissions
from core.session.context_resolver import ContextResolver
from core.session.records import Models, Place, Stores
from core.session.retry import RetryPolicy
from core.session.services import StepServices
from core.session.sessions import Sessions
from core.storage import Store
from core.tools.base import ToolSet
from core.tools.context import ToolContext
from core.workspace import DiskWorkspace
from tests.unit.tools.harness import allow_all

CONFIG = Config.model_validate(
    {
        "model": "fake/m",
        "provider": {
            "fake": {
                "litellm_provider": "openai",
                "options": {"api_base": "http://127.0.0.1:9"},
                "models": {"m": {}, "plain": {}},
            }
        },
    }
)


@dataclass
class FakeSettings:
    """``Settings``: one fixed config state."""

    config: Config
    agents: Agents
    step_services: StepServices
    retry: RetryPolicy

    def pin(self) -> None:
        raise AssertionError("resolving context pins no config")


@dataclass
class FakePolicy:
    """``Policy``: webfetch asks; each call's own context would allow everything."""

    root: Path
    rules: Ruleset = field(default_factory=lambda: [Rule("*", "*", "allow"), Rule("webfetch", "*", "ask")])

    def ruleset_for(self, agent: AgentInfo, session_id: str) -> Ruleset:
        return self.rules

    def set_session_rules(self, session_id: str, ruleset: Ruleset) -> None:
        raise AssertionError("not used")

    def tools_for(self, agent: AgentInfo, user: UserMessage, ruleset: Ruleset) -> ToolSet:
        raise AssertionError("not used")

    def skills(self) -> list[tuple[str, str]]:
        return []

    def mcp_instructions(self, offered: object) -> list[tuple[str, str]]:
        return []

    def tool_context(
        self,
        session_id: str,
        agent: AgentInfo,
        abort: asyncio.Event,
        ruleset: Ruleset,
        message_id: str,
        call_id: str,
    ) -> ToolContext:
        return allow_all(self.root, self.root / "data", call_id=call_id)

    def cancel_dialogs(self, session_id: str) -> None:
        raise AssertionError("not used")


@dataclass
class World:
    resolver: ContextResolver
    sessions: Sessions
    permissions: Permissions
    bus: Bus
    project_id: str
    tree: Path
    counted_with: list[str]


async def no_mcp_servers(server: str | None, uri: str) -> tuple[str, list[Any]]:
    raise NotFoundError(f"no running MCP server lists the resource {uri}")


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[World]:
    store = await Store.open(tmp_path / "agentls.db")
    bus = Bus()
    sessions = Sessions(store, bus)
    tree = tmp_path / "tree"
    tree.mkdir()
    project = await store.ensure_project(tree)
    settings = FakeSettings(
        CONFIG, Agents.load(CONFIG, tree, tmp_path / "no-config"), StepServices(sessions, bus), RetryPolicy()
    )
    permissions = Permissions(bus, store, project.id)
    counted_with: list[str] = []

    def counter(model: ModelInfo) -> TokenCounter:
        counted_with.append(model.model_id)
        return TokenCounter()

    def resolve(ref: str) -> ModelInfo:
        if ref == "gone/x":
            raise ConfigError("no provider gone")
        return resolve_model(CONFIG, ref)

    resolver = ContextResolver(
        Stores(store=store, sessions=sessions, bus=bus, project_id=project.id),
        Place(directory=tree, worktree=tree, is_git=False, data_dir=tmp_path / "data"),
        settings,
        Models(
            stream=lambda request, abort: (_ for _ in ()).throw(AssertionError("no model request")),
            resolve=resolve,
            small=lambda user: None,
            carry=lambda ref: ref,
        ),
        counter,
        FakePolicy(tree),
        permissions,
        DiskWorkspace(tree),
        no_mcp_servers,
    )
    try:
        yield World(resolver, sessions, permissions, bus, project.id, tree, counted_with)
    finally:
        await sessions.close()
        await store.close()


async def _prompted_with(world: World, provider: str, model: str) -> str:
    session = await world.sessions.create(world.project_id, str(world.tree))
    ref = ModelRef(providerID=provider, modelID=model)
    user = UserMessage(id="msg_1", sessionID=session.id, time=UserTime(created=1), agent="build", model=ref)
    await world.sessions.update_message(user)
    return session.id


async def test_items_are_counted_with_the_sessions_last_model(world: World) -> None:
    item = TerminalItem(kind="terminal", text="make: *** [all] Error 2")
    [resolved] = await world.resolver.resolve(await _prompted_with(world, "fake", "plain"), [item])
    assert resolved.error is None and "Error 2" in resolved.text and resolved.tokens > 0
    await world.resolver.resolve(None, [item])  # no session: the configured model
    assert world.counted_with == ["plain", "m"]
    [resolved] = await world.resolver.resolve(await _prompted_with(world, "gone", "x"), [item])
    assert resolved.tokens > 0 and world.counted_with == ["plain", "m"]  # the default encoding


async def test_a_url_is_fetched_only_in_a_session_asking_there(world: World) -> None:
    item = UrlItem(kind="url", url="http://127.0.0.1:9/page")
    [resolved] = await world.resolver.resolve(None, [item])
    assert resolved.error is not None and "sessionID" in resolved.error
    session_id = await _prompted_with(world, "fake", "m")
    asked = world.bus.subscribe(PermissionAsked)
    resolving = asyncio.ensure_future(world.resolver.resolve(session_id, [item]))
    event = await asyncio.wait_for(asked.get(), timeout=5)
    assert isinstance(event, PermissionAsked)
    request = event.request
    assert (request.sessionID, request.messageID, request.callID) == (session_id, None, None)
    assert request.permission == "webfetch"
    await world.permissions.reply(request.id, "reject")
    [resolved] = await asyncio.wait_for(resolving, timeout=5)
    assert resolved.error is not None and resolved.text == ""
