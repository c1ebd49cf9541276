"""What one model step is given: the request, its tools, and the loop's decisions for it."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import field
from typing import Any

from core.errors import ContextOverflowError
from core.hooks.service import Hooks
from core.llm.request import LLMRequest
from core.message.models import AssistantMessage
from core.record import struct
from core.tools.base import Tool
from core.tools.context import ToolContext

# (message_id, call_id) -> the call's context, its ``ask`` bound to those ids and the step's ruleset.
ContextFactory = Callable[[str, str], ToolContext]


@struct
class StepInput:
    """Everything one step needs besides the shared services."""

    assistant: AssistantMessage
    request: LLMRequest
    tools: dict[str, Tool[Any]]
    make_context: ContextFactory
    abort: asyncio.Event
    # (tool, canonical input) of the latest tool calls before this step, oldest first.
    recent_calls: list[tuple[str, str]] = field(default_factory=list)
    check_overflow: Callable[[AssistantMessage], bool] = lambda _m: False
    compact_on_overflow_error: bool = False
    # Turns a provider overflow the loop will not compact for into an error that says what to do.
    explain_overflow: Callable[[ContextOverflowError], ContextOverflowError] = lambda exc: exc
    # The user's hooks (PreToolUse and PostToolUse run around each call) and the mode they are told.
    hooks: Hooks | None = None
    permission_mode: str = "default"
