"""ControlsService over a real store, real controls and real permission dialogs: the model an
effort is checked against, what a choice stores and publishes, and the edit dialogs ``auto`` lets go."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from core.agent.agents import Agents
from core.bus import Bus
from core.config.schema import Config
from core.errors import ConfigError, InvalidInputError, NotFoundError
from core.events import PermissionAsked, SessionEffortChanged
from core.llm.model import resolve_model
from core.message.models import ModelRef, UserMessage, UserTime
from core.permission.request import PermissionAsk
from core.permission.rules import Rule
from core.permission.service import Permissions
from core.session.controls_service import ControlsService
from core.session.mode import SessionControls
from core.session.records import Models, Stores
from core.session.retry import RetryPolicy
from core.session.services import StepServices
from core.session.sessions import Sessions
from core.storage import Store


def _config(model: str | None) -> Config:
    thinking = {"agentls_thinking": "openai"}
    return Config.model_validate(
        {
            "model": model,
            "provider": {
                "fake": {
                    "litellm_provider": "openai",
                    "options": {"api_base": "http://127.0.0.1:9"},
                    "models": {"m": {"options": thinking}, "plain": {}},
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
        raise AssertionError("choosing controls pins no config")


@dataclass
class World:
    service: ControlsService
    sessions: Sessions
    permissions: Permissions
    bus: Bus
    project_id: str
    tree: Path
    children: dict[str, list[str]]


async def _world(tmp_path: Path, model: str | None) -> AsyncIterator[World]:
    store = await Store.open(tmp_path / "agentls.db")
    bus = Bus()
    sessions = Sessions(store, bus)
    tree = tmp_path / "tree"
    tree.mkdir()
    project = await store.ensure_project(tree)
    config = _config(model)
    settings = FakeSettings(
        config, Agents.load(config, tree, tmp_path / "no-config"), StepServices(sessions, bus), RetryPolicy()
    )
    permissions = Permissions(bus, store, project.id)
    children: dict[str, list[str]] = {}
    service = ControlsService(
        SessionControls(sessions, bus, tmp_path / "data", project.id),
        Stores(store=store, sessions=sessions, bus=bus, project_id=project.id),
        settings,
        Models(
            stream=lambda request, abort: (_ for _ in ()).throw(AssertionError("no model request")),
            resolve=lambda ref: resolve_model(config, ref),
            small=lambda user: None,
            carry=lambda ref: ModelRef(providerID=ref.providerID, modelID="m"),  # a moved default
        ),
        permissions,
        lambda session_id: children.get(session_id, []),
    )
    try:
        yield World(service, sessions, permissions, bus, project.id, tree, children)
    finally:
        await sessions.close()
        await store.close()


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[World]:
    async for made in _world(tmp_path, "fake/m"):
        yield made


@pytest.fixture
async def no_model(tmp_path: Path) -> AsyncIterator[World]:
    async for made in _world(tmp_path, None):
        yield made


async def test_an_effort_is_checked_against_the_configured_model_and_published(world: World) -> None:
    session = await world.sessions.create(world.project_id, str(world.tree))
    seen = world.bus.subscribe(SessionEffortChanged)
    state = await world.service.effort(session.id)
    assert (state.effort, state.levels, state.model) == ("default", ("low", "medium", "high"), "fake/m")
    assert seen.get_nowait() is None  # reading publishes nothing
    state = await world.service.effort(session.id, "high")
    assert state.effort == "high"
    event = seen.get_nowait()
    assert isinstance(event, SessionEffortChanged) and (event.effort, event.levels) == (
        "high",
        list(state.levels),
    )
    with pytest.raises(InvalidInputError, match="its levels: low, medium, high"):
        await world.service.effort(session.id, "extreme")
    assert (await world.service.effort(session.id, "default")).effort == "default"


async def test_the_session_model_is_its_last_prompts_as_carried(world: World) -> None:
    session = await world.sessions.create(world.project_id, str(world.tree))
    plain = ModelRef(providerID="fake", modelID="plain")
    user = UserMessage(id="msg_1", sessionID=session.id, time=UserTime(created=1), agent="build", model=plain)
    await world.sessions.update_message(user)
    assert await world.service.session_model(session.id) == "fake/m"  # the carry moved it
    with pytest.raises(NotFoundError):
        await world.service.session_model("ses_missing")


async def test_an_effort_needs_a_model(no_model: World) -> None:
    session = await no_model.sessions.create(no_model.project_id, str(no_model.tree))
    state = await no_model.service.effort(session.id)
    assert (state.model, state.levels) == (None, ())
    with pytest.raises(ConfigError, match="no model is configured"):
        await no_model.service.effort(session.id, "high")
    assert (await no_model.service.effort(session.id, "default")).effort == "default"


async def test_auto_lets_the_sessions_and_its_childrens_edit_dialogs_go_ahead(world: World) -> None:
    parent = await world.sessions.create(world.project_id, str(world.tree))
    child = await world.sessions.create(world.project_id, str(world.tree))
    other = await world.sessions.create(world.project_id, str(world.tree))
    world.children[parent.id] = [child.id]
    asked = world.bus.subscribe(PermissionAsked)
    ask_all = [Rule("*", "*", "ask")]

    def dialog(session_id: str, permission: str) -> asyncio.Task[None]:
        request = PermissionAsk(permission=permission, patterns=["a.py"])
        return asyncio.ensure_future(world.permissions.ask(session_id, None, None, request, ask_all))

    waiting = [dialog(child.id, "edit"), dialog(parent.id, "bash"), dialog(other.id, "edit")]
    for _ in waiting:
        await asyncio.wait_for(asked.get(), timeout=5)
    state = await world.service.mode(parent.id, "auto")
    assert state.mode == "auto" and [m.id for m in state.modes] == ["ask", "auto", "plan"]
    await asyncio.wait_for(waiting[0], timeout=5)  # the child's edit went ahead
    still = {(r.sessionID, r.permission) for r in world.permissions.pending()}
    assert still == {(parent.id, "bash"), (other.id, "edit")}
    with pytest.raises(InvalidInputError, match="unknown mode"):
        await world.service.mode(parent.id, "yolo")
    for task in waiting[1:]:
        task.cancel()
    await asyncio.gather(*waiting[1:], return_exceptions=True)
