"""The typed service records the loop and its helpers are built from (``core.wiring`` builds them).

Each helper names the records it uses, never the app: ``Compactor`` and ``ContextManager`` take
stores, settings and models; ``Subtasks`` adds the place, the policy and the turns it starts. Tests
build them from fakes. What depends on the config (``Settings``) is read through the state in
effect: the one the running turn pinned, else the current one, so a reconfigure swaps it whole.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Collection, Sequence
from pathlib import Path
from typing import Protocol

from core.agent.agents import Agents
from core.agent.info import AgentInfo
from core.bus import Bus
from core.config.schema import Config
from core.hooks.service import Hooks
from core.llm import events as ev
from core.llm.model import ModelInfo
from core.llm.request import LLMRequest
from core.message.models import MessageWithParts, ModelRef, UserMessage
from core.message.prompt_input import AgentInput, ContextInput, FileInput, TextInput
from core.permission.rules import Ruleset
from core.record import record
from core.session.retry import RetryPolicy
from core.session.services import StepServices
from core.session.sessions import Sessions
from core.storage.store import Store
from core.tools.base import ToolSet
from core.tools.context import ToolContext

StreamFn = Callable[[LLMRequest, asyncio.Event], AsyncIterator[ev.StreamEvent]]


@record(eq=False, repr=False)  # never compared or printed
class Stores:
    """Where sessions live and what is published about them."""

    store: Store
    sessions: Sessions
    bus: Bus
    project_id: str


@record(eq=False, repr=False)  # never compared or printed
class Place:
    """Where the agent works: the project's folder, its worktree, and the agent's data folder."""

    directory: Path
    worktree: Path
    is_git: bool
    data_dir: Path


class Settings(Protocol):
    """The config state in effect (pinned by the running turn, else the current one)."""

    @property
    def config(self) -> Config: ...

    @property
    def agents(self) -> Agents: ...

    @property
    def retry(self) -> RetryPolicy: ...

    @property
    def step_services(self) -> StepServices: ...

    @property
    def hooks(self) -> Hooks: ...

    def pin(self) -> None:
        """Keep the state in effect now for the rest of the calling task (a turn) and its tasks."""


@record(eq=False, repr=False)  # never compared or printed
class Models:
    """Model requests: the stream, and which model a reference or a session's titles use."""

    stream: StreamFn
    resolve: Callable[[str], ModelInfo]
    small: Callable[[UserMessage], ModelInfo | None]
    carry: Callable[[ModelRef], ModelRef]


class Policy(Protocol):
    """What a call may do: its rules, the tools offered, and each call's context."""

    def ruleset_for(self, agent: AgentInfo, session_id: str) -> Ruleset: ...

    def set_session_rules(self, session_id: str, ruleset: Ruleset) -> None: ...

    def tools_for(self, agent: AgentInfo, user: UserMessage, ruleset: Ruleset) -> ToolSet: ...

    def skills(self) -> list[tuple[str, str]]: ...

    def mcp_instructions(self, offered: Collection[str]) -> list[tuple[str, str]]:
        """(server, text) of the MCP servers with a tool in ``offered`` that gave instructions."""

    def tool_context(
        self,
        session_id: str,
        agent: AgentInfo,
        abort: asyncio.Event,
        ruleset: Ruleset,
        message_id: str,
        call_id: str,
    ) -> ToolContext:
        """One call's context; its ``ask`` is bound here, once, to the call's ids and ``ruleset``."""

    def cancel_dialogs(self, session_id: str) -> None: ...


class Turns(Protocol):
    """Running turns (the session loop), as subtasks and compaction use it."""

    def is_busy(self, session_id: str) -> bool: ...

    async def prompt(
        self,
        session_id: str,
        inputs: Sequence[TextInput | FileInput | AgentInput | ContextInput],
        *,
        agent: str | None = None,
        model: str | None = None,
        no_reply: bool = False,
        subagent: bool = False,
    ) -> MessageWithParts: ...

    async def abort(self, session_id: str) -> None: ...
