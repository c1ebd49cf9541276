"""What the loop needs from the running agent: one protocol, implemented by ``core.app``."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from core.agent.agents import Agents
from core.agent.info import AgentInfo
from core.bus import Bus
from core.config.schema import Config
from core.errors import ContextOverflowError
from core.llm import events as ev
from core.llm.model import ModelInfo
from core.llm.request import LLMRequest
from core.message.models import AssistantMessage, MessageWithParts, ModelRef, SubtaskPart, UserMessage
from core.permission.rules import Ruleset
from core.permission.service import Permissions
from core.session.retry import RetryPolicy
from core.session.services import StepServices
from core.session.sessions import Sessions
from core.session.system import InstructionFiles
from core.storage.store import Store
from core.tools.base import Tool
from core.tools.context import ToolContext
from core.workspace import Workspace

if TYPE_CHECKING:
    from core.session.loop import SessionLoop
    from core.session.mode import Controls

StreamFn = Callable[[LLMRequest, asyncio.Event], AsyncIterator[ev.StreamEvent]]


class ContextHooks(Protocol):
    """Context management as the loop sees it (core.context implements it)."""

    @property
    def auto(self) -> bool: ...

    async def history(self, session_id: str) -> list[MessageWithParts]: ...

    def is_overflow(self, message: AssistantMessage, model: ModelInfo) -> bool: ...

    def fixed_tokens(self, request: LLMRequest, model: ModelInfo) -> int: ...

    async def preflight_overflow(
        self, request: LLMRequest, model: ModelInfo, history: list[MessageWithParts]
    ) -> bool: ...

    async def compact(
        self,
        session_id: str,
        *,
        auto: bool,
        model: ModelInfo,
        abort: asyncio.Event,
        overhead: int = 0,
        before: int = 0,
    ) -> ContextOverflowError | None: ...

    async def prune(self, session_id: str) -> None: ...


class Runtime(Protocol):
    """Services and decisions the session loop delegates."""

    @property
    def sessions(self) -> Sessions: ...

    @property
    def bus(self) -> Bus: ...

    @property
    def config(self) -> Config: ...

    @property
    def agents(self) -> Agents: ...

    @property
    def permissions(self) -> Permissions: ...

    @property
    def workspace(self) -> Workspace: ...

    @property
    def directory(self) -> Path: ...

    @property
    def worktree(self) -> Path: ...

    @property
    def is_git(self) -> bool: ...

    @property
    def instructions(self) -> InstructionFiles: ...

    @property
    def stream(self) -> StreamFn: ...

    @property
    def step_services(self) -> StepServices: ...

    @property
    def retry(self) -> RetryPolicy: ...

    @property
    def context(self) -> ContextHooks: ...

    def pin_config(self) -> None:
        """Keep the config in effect now for the rest of the calling task (a turn) and its tasks."""

    def carry_model(self, ref: ModelRef) -> ModelRef: ...

    def resolve_model(self, ref: str) -> ModelInfo: ...

    def small_model(self, user: UserMessage) -> ModelInfo | None: ...

    def ruleset_for(self, agent: AgentInfo, session_id: str) -> Ruleset: ...

    async def session_controls(self, session_id: str) -> Controls:
        """The session's mode and effort (loaded before ``ruleset_for`` reads the mode)."""
        ...

    def tools_for(self, agent: AgentInfo, user: UserMessage, ruleset: Ruleset) -> dict[str, Tool[Any]]: ...

    def skills(self) -> list[tuple[str, str]]: ...

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

    async def cleanup_revert(self, session_id: str) -> None: ...

    async def run_subtask(
        self, session_id: str, user: UserMessage, part: SubtaskPart, abort: asyncio.Event
    ) -> None: ...


class AgentHost(Runtime, Protocol):
    """What the loop's helpers (compaction, context management, subtasks) use of the running
    agent, on top of the loop's ``Runtime``: typed here so that they never import ``core.app``."""

    @property
    def store(self) -> Store: ...

    @property
    def project_id(self) -> str: ...

    @property
    def loop(self) -> SessionLoop: ...

    def is_busy(self, session_id: str) -> bool: ...

    def set_session_rules(self, session_id: str, ruleset: Ruleset) -> None: ...
