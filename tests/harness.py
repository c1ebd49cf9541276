"""The typed test harness: an agent opened as a front end opens it, with the services it was built on.

A test drives the agent through ``core.api.Agent`` (``Harness.agent``), as every front end does;
what only a test needs — seeding the store, whether the loop still runs a turn, the config in
effect — it reads from the wiring the agent was built on (``Harness.wiring``), never from private
members of the agent. ``wait_for`` waits for an event through the door.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from core.api import Agent, Layer
from core.app import open_app
from core.app_config import ConfigState
from core.bus import Bus
from core.config.schema import Config
from core.editor import EditorIntelligence
from core.events import Event
from core.permission.service import Permissions
from core.session.sessions import Sessions
from core.storage.store import Store
from core.tools.base import Tool
from core.tools.registry import ToolRegistry
from core.wiring import Wiring
from core.workspace import Workspace

E = TypeVar("E", bound=Event)


@dataclass(frozen=True)
class Harness:
    """An opened agent and what it was built on."""

    agent: Agent
    wiring: Wiring

    @property
    def bus(self) -> Bus:
        return self.wiring.stores.bus

    @property
    def sessions(self) -> Sessions:
        return self.wiring.stores.sessions

    @property
    def store(self) -> Store:
        return self.wiring.stores.store

    @property
    def permissions(self) -> Permissions:
        return self.wiring.permissions

    @property
    def tools(self) -> ToolRegistry:
        return self.wiring.tools

    @property
    def state(self) -> ConfigState:
        """The config state in effect now (a reconfigure replaces it whole)."""
        return self.wiring.settings.current

    @property
    def config(self) -> Config:
        return self.state.config

    @property
    def project_id(self) -> str:
        return self.wiring.stores.project_id

    def is_busy(self, session_id: str) -> bool:
        """Whether the loop still runs a turn of the session."""
        return self.wiring.loop.is_busy(session_id)

    async def close(self) -> None:
        await self.agent.close()


async def open_test_agent(
    directory: Path,
    *,
    config: dict[str, Any] | None = None,
    layers: Sequence[Layer] = (),
    data_dir: Path | None = None,
    warm: bool = False,
    tools: Sequence[Tool[Any]] = (),
    workspace: Workspace | None = None,
    editor: EditorIntelligence | None = None,
) -> Harness:
    """Open the agent of ``directory`` (``config``: one layer named "test" under ``layers``); the
    caller closes it (``Harness.close``), or uses ``running_agent``."""
    named = [Layer("test", config, None)] if config is not None else []
    opened = await open_app(
        directory,
        workspace=workspace,
        config_layers=[*named, *layers],
        data_dir=data_dir,
        warm=warm,
        tools=tools,
        editor=editor,
    )
    return Harness(agent=opened.agent, wiring=opened.wiring)


@asynccontextmanager
async def running_agent(directory: Path, **options: Any) -> AsyncIterator[Harness]:
    """``open_test_agent`` for a block: the agent is closed when it ends, however it ends."""
    harness = await open_test_agent(directory, **options)
    try:
        yield harness
    finally:
        await harness.close()


async def wait_for(
    agent: Agent,
    event_type: type[E],
    predicate: Callable[[E], bool] = lambda _e: True,
    timeout: float = 30.0,
) -> E:
    """The next event of ``event_type`` that satisfies ``predicate`` (TimeoutError after ``timeout``)."""
    with agent.subscribe(event_type) as sub:
        async with asyncio.timeout(timeout):
            async for event in sub:
                if isinstance(event, event_type) and predicate(event):
                    return event
    raise AssertionError(f"the agent's events ended before a {event_type.__name__}")
