"""What the session loop is built from: typed records (``core.session.records``) and two hooks.

``core.wiring`` builds it from the current config; tests build it from fakes. No part of it is the
app: the loop reads the config through ``settings`` (the state its turn pinned), the models through
``models``, what a call may do through ``policy``."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Protocol

from core.errors import ContextOverflowError
from core.llm.model import ModelInfo
from core.llm.request import LLMRequest
from core.message.models import AssistantMessage, MessageWithParts, SubtaskPart, UserMessage
from core.record import record
from core.session.mode import SessionControls
from core.session.records import Models, Place, Policy, Settings, Stores
from core.session.system import InstructionFiles
from core.workspace import Workspace


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


@record(eq=False, repr=False)  # never compared or printed
class Runtime:
    """Services and decisions the session loop delegates."""

    stores: Stores
    place: Place
    settings: Settings
    models: Models
    policy: Policy
    controls: SessionControls  # each session's mode and effort, read by every step's request
    context: ContextHooks
    workspace: Workspace  # the project's files as the host gives them (a prompt's attachments)
    instructions: InstructionFiles
    cleanup_revert: Callable[[str], Awaitable[None]]  # drop reverted messages before a new prompt
    # The loop's task branch: run the subagent the user mentioned (session, user, part, abort).
    run_subtask: Callable[[str, UserMessage, SubtaskPart, asyncio.Event], Awaitable[None]]
