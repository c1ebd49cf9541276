"""Running a compaction with the loop's processor: core.context decides, this runs the model."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any, Protocol

from core import ids
from core.context.compaction import CompactionOutcome, CompactionSettings, SummaryRequest, compact
from core.context.overflow import LimitLike, usable
from core.context.tokens import TokenCounter
from core.errors import AgentError, BusyError, CompactionFailedError, ContextOverflowError, InvalidInputError
from core.events import Event
from core.llm.model import ModelInfo
from core.llm.request import LLMRequest
from core.message.models import (
    AnyPart,
    AssistantMessage,
    AssistantTime,
    MessageWithParts,
    UserMessage,
    now_ms,
)
from core.session.convert import to_model_messages
from core.session.processor import Processor
from core.session.records import Models, Settings, Stores
from core.session.step import StepInput
from core.session.system import family_prompt

log = logging.getLogger(__name__)


class ContextMeasures(Protocol):
    """What a compaction asks of the context manager (``core.session.context_hooks``)."""

    def counter(self, model: ModelInfo) -> TokenCounter:
        """The model's token counter."""
        ...

    async def overhead(self, session_id: str, user: UserMessage, model: ModelInfo) -> int:
        """The fixed tokens of the session's next request."""
        ...


class Compactor:
    """Implements core.context's CompactionDeps for one session and model."""

    def __init__(
        self,
        stores: Stores,
        settings: Settings,
        models: Models,
        context: ContextMeasures,
        is_busy: Callable[[str], bool],
        model: ModelInfo | None = None,
        abort: asyncio.Event | None = None,
    ) -> None:
        self._stores, self._settings, self._models = stores, settings, models
        self._is_busy = is_busy
        self._context = context
        self._model = model
        self._abort = abort or asyncio.Event()

    # --- CompactionDeps ------------------------------------------------------------------

    @property
    def limit(self) -> LimitLike:
        assert self._model is not None
        return self._model.limit

    @property
    def settings(self) -> CompactionSettings:
        return self._settings.config.compaction

    @property
    def counter(self) -> TokenCounter:
        assert self._model is not None
        return self._context.counter(self._model)

    async def history(self, session_id: str) -> list[MessageWithParts]:
        return await self._stores.sessions.messages(session_id)

    async def update_message(self, info: UserMessage | AssistantMessage) -> None:
        await self._stores.sessions.update_message(info)

    async def update_part(self, part: AnyPart) -> None:
        await self._stores.sessions.update_part(part)

    def publish(self, event: Event) -> None:
        self._stores.bus.publish(event)

    def _summarizer(self) -> ModelInfo:
        """The model configured for the ``compaction`` agent, else the session's own."""
        assert self._model is not None
        ref = self._settings.agents.get("compaction").model
        return self._models.resolve(ref) if ref else self._model

    def _summary_room(self, summarizer: ModelInfo) -> int | None:
        """What a summary request may take on another model than the session's (None: the same)."""
        if summarizer is self._model:
            return None
        agent = self._settings.agents.get("compaction")
        system = self.counter.count_text(agent.prompt or family_prompt(summarizer.family))
        return usable(summarizer.limit, self.settings.reserved) - system

    async def summarize(self, request: SummaryRequest) -> MessageWithParts:
        """One tool-less step of the hidden ``compaction`` agent over the planned messages."""
        stores, model = self._stores, self._summarizer()
        agent = self._settings.agents.get("compaction")
        msg = AssistantMessage(
            id=ids.ascending("msg"),
            sessionID=request.session_id,
            parentID=request.parent.id,
            time=AssistantTime(created=now_ms()),
            providerID=model.provider_id,
            modelID=model.model_id,
            agent=agent.name,
            mode=agent.name,
            summary=True,
        )
        await stores.sessions.update_message(msg)
        messages = to_model_messages(
            request.messages, media_in_tool_results=model.supports_media_in_tool_results
        )
        messages.append({"role": "user", "content": [{"type": "text", "text": request.prompt}]})
        llm_request = LLMRequest(
            model=model,
            system=[agent.prompt or family_prompt(model.family)],
            messages=messages,
            tools=[],
            max_tokens=min(model.limit.output, 16_000) if model.limit.output else None,
        )
        processor = Processor(self._settings.step_services, self._models.stream, self._settings.retry)

        def no_tools(*_args: Any) -> Any:
            raise InvalidInputError("the compaction agent has no tools")

        await processor.process(
            StepInput(
                assistant=msg,
                request=llm_request,
                tools={},
                make_context=no_tools,
                abort=self._abort,
            )
        )
        return await stores.store.get_message(request.session_id, msg.id)

    # --- running -------------------------------------------------------------------------

    async def run(
        self,
        session_id: str,
        *,
        auto: bool,
        model: ModelInfo,
        abort: asyncio.Event,
        overhead: int = 0,
        before: int = 0,
    ) -> ContextOverflowError | None:
        """Compact from inside the loop; the error that ends the turn when it could not."""
        self._model, self._abort = model, abort
        try:
            await self._compact(session_id, auto, overhead, before)
        except ContextOverflowError as exc:  # CompactionFailedError, or a prompt too big to summarise
            log.warning("session %s: %s", session_id, exc)
            return exc
        except AgentError as exc:
            log.warning("session %s: compaction failed: %s", session_id, exc)
            return CompactionFailedError(f"compaction failed: {exc}")
        return None

    async def run_manual(self, session_id: str) -> MessageWithParts:
        """A compaction the user asked for: refused while busy; returns the summary message."""
        sessions = self._stores.sessions
        await sessions.get(session_id)  # NotFoundError for an unknown id
        if self._is_busy(session_id):
            raise BusyError(f"session {session_id} is busy; abort the turn or wait before compacting")
        user = None
        async for msg in sessions.stream(session_id):
            if isinstance(msg.info, UserMessage):
                user = msg.info
                break
        if user is None:
            raise InvalidInputError(f"session {session_id} has nothing to compact")
        self._model = self._models.resolve(f"{user.model.providerID}/{user.model.modelID}")
        overhead = await self._context.overhead(session_id, user, self._model)
        outcome = await self._compact(session_id, False, overhead)
        return await self._stores.store.get_message(session_id, outcome.summary_id)

    async def _compact(
        self, session_id: str, auto: bool, overhead: int, before: int = 0
    ) -> CompactionOutcome:
        room = self._summary_room(self._summarizer())
        outcome = await compact(
            session_id, auto=auto, deps=self, overhead=overhead, summary_room=room, before=before
        )
        log.info(
            "session %s compacted: %d → %d tokens", session_id, outcome.tokens_before, outcome.tokens_after
        )
        return outcome
