"""Compaction as the loop runs it: as often as the history overflows, but never in circles.

Every overflow (a step's reported usage, the pre-flight estimate, a provider's "context too long")
compacts, counting the system prompt and tool schemas the next request sends besides the history.
The loop passes ``unproven`` while no step has fitted since the last compaction: an overflow then
means compacting made no progress, and the turn ends with a typed error instead of summarising the
summary again. A failure becomes the turn's answer: an assistant message carrying the error.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

from core import ids
from core.context.compaction import no_progress
from core.context.overflow import context_tokens
from core.errors import ContextOverflowError, InvalidInputError
from core.events import SessionError
from core.llm.request import LLMRequest
from core.message.models import AssistantMessage, AssistantTime, MessageError, MessageWithParts, now_ms
from core.session.requests import RequestBuilder, StepPlan
from core.session.runtime import Runtime


class LoopCompaction:
    """The loop's compaction step (see the module docstring)."""

    def __init__(self, rt: Runtime, requests: RequestBuilder) -> None:
        self._rt = rt
        self._requests = requests

    async def compact(
        self,
        plan: StepPlan,
        unproven: bool,
        abort: asyncio.Event,
        request: LLMRequest | None = None,
        reported: AssistantMessage | None = None,
    ) -> bool:
        """Compact for an overflow; False when the turn must end (the error is recorded).

        ``reported``: the step whose provider-reported usage overflowed, the size compaction must beat.
        """
        rt = self._rt
        if unproven:
            error: ContextOverflowError | None = no_progress(plan.model.model_id)
        else:
            if request is None:
                request, _tools = await self._requests.build(replace(plan, history=[]))
            overhead = rt.context.fixed_tokens(request, plan.model)
            error = await rt.context.compact(
                plan.session_id,
                auto=True,
                model=plan.model,
                abort=abort,
                overhead=overhead,
                before=_overflowed_size(reported, plan.model),
            )
        if error is None:
            return True
        if not abort.is_set():
            await self._end_with_error(plan, error)
        return False

    async def _end_with_error(self, plan: StepPlan, error: ContextOverflowError) -> None:
        """Make the error the turn's answer: on the failed summary, or on a new assistant message."""
        rt = self._rt
        failure = MessageError(name="context-overflow", message=str(error))
        newest = await _newest(rt, plan.session_id)
        info = newest.info
        if isinstance(info, AssistantMessage) and info.time.completed is None:
            info = info.model_copy(
                update={"error": failure, "time": info.time.model_copy(update={"completed": now_ms()})}
            )
        elif isinstance(info, AssistantMessage) and info.summary and info.error is not None:
            info = info.model_copy(update={"error": failure})
        else:
            now = now_ms()
            info = AssistantMessage(
                id=ids.ascending("msg"),
                sessionID=plan.session_id,
                parentID=plan.user.id,
                time=AssistantTime(created=now, completed=now),
                error=failure,
                providerID=plan.model.provider_id,
                modelID=plan.model.model_id,
                agent=plan.agent.name,
                mode=plan.agent.name,
            )
        await rt.stores.sessions.update_message(info)
        rt.stores.bus.publish(SessionError(sessionID=plan.session_id, error=failure))


def _overflowed_size(step: AssistantMessage | None, model: Any) -> int:
    """How big the request that overflowed was, by the provider's word (0: not known)."""
    if step is None:
        return 0
    if step.error is not None and step.error.name == "context-overflow":
        return int(model.limit.context)  # refused outright: it did not fit the window
    return context_tokens(step.tokens)


async def _newest(rt: Runtime, session_id: str) -> MessageWithParts:
    async for msg in rt.stores.sessions.stream(session_id):
        return msg
    raise InvalidInputError(f"session {session_id} is empty")
