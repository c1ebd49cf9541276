"""The loop's view of context management: history, overflow checks, compaction and prune."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Protocol

from core.context import overflow
from core.context.filter import filter_compacted
from core.context.prune import prune
from core.context.tokens import TokenCounter
from core.errors import ContextOverflowError, NotFoundError
from core.llm.model import ModelInfo
from core.llm.request import LLMRequest
from core.message.models import AssistantMessage, MessageWithParts, UserMessage
from core.session.records import Models, Settings, Stores
from core.session.requests import RequestBuilder, StepPlan

log = logging.getLogger(__name__)


class Compaction(Protocol):
    """A session's summary (``core.session.compactor.Compactor``, made by the wiring)."""

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
        """Summarise the session; the error that ends the turn when it could not."""
        ...

    async def run_manual(self, session_id: str) -> MessageWithParts:
        """A compaction the user asked for; the summary message."""
        ...


class ContextManager:
    """Implements ``core.session.runtime.ContextHooks`` over core.context for one agent.

    ``requests`` builds a session's next request (for the fixed tokens of a manual compaction);
    ``compaction`` makes the compaction of one run from this manager (whose counters and
    overheads it reads)."""

    def __init__(
        self,
        stores: Stores,
        settings: Settings,
        models: Models,
        requests: RequestBuilder,
        compaction: Callable[[ContextManager], Compaction],
    ) -> None:
        self._stores, self._settings, self._models = stores, settings, models
        self._requests, self._compaction = requests, compaction
        self._counters: dict[str, TokenCounter] = {}
        self._seeded: set[tuple[str, str]] = set()  # (session, encoding) whose stored counts were read

    @property
    def auto(self) -> bool:
        """Whether compaction may run by itself (config ``compaction.auto``)."""
        return self._settings.config.compaction.auto

    def counter(self, model: ModelInfo) -> TokenCounter:
        """One token counter (with its per-part cache) per model, for the app's lifetime."""
        counter = self._counters.get(model.model_id)
        if counter is None:
            counter = self._counters[model.model_id] = TokenCounter.for_model(model)
        return counter

    async def history(self, session_id: str) -> list[MessageWithParts]:
        """The history the model sees: from the newest finished summary on, oldest first."""
        return await filter_compacted(self._stores.sessions.stream(session_id))

    def is_overflow(self, message: AssistantMessage, model: ModelInfo) -> bool:
        """Whether the step's usage leaves no room for another (only when auto-compaction is on)."""
        return overflow.should_auto_compact(message.tokens, model.limit, self._settings.config.compaction)

    def fixed_tokens(self, request: LLMRequest, model: ModelInfo) -> int:
        """Tokens a request sends besides the history: system prompt and tool schemas."""
        tools = [
            {"name": t.name, "description": t.description, "parameters": t.parameters} for t in request.tools
        ]
        return self.counter(model).estimate_request(request.system, [], tools)

    async def preflight_overflow(
        self, request: LLMRequest, model: ModelInfo, history: list[MessageWithParts]
    ) -> bool:
        """Whether the request, estimated before sending, cannot fit (only when auto is on).

        The history is counted by parts, as compaction counts it, so that the two never disagree
        about whether a compacted history fits; part counts stored by an earlier process are used.
        """
        if not self.auto:
            return False
        counter, reserved = self.counter(model), self._settings.config.compaction.reserved
        tools = [
            {"name": t.name, "description": t.description, "parameters": t.parameters} for t in request.tools
        ]
        bound = counter.estimate_request(request.system, request.messages, tools, upper_bound=True)
        if not overflow.preflight(bound, model.limit, reserved):
            return False  # fits even counted as bytes: no need to tokenise it (or load the encoding)
        if history:
            await self._seed(counter, history[0].info.sessionID)
        # Off the event loop: a history too long to fit as bytes may hold a part of megabytes (a
        # 1 MB tool call tokenises in ~100 ms) or load the encoding (~0.3 s), and the server must
        # keep answering meanwhile. The encoder lets go of the GIL; the counter's caches are safe
        # to fill from a thread.
        estimate = await asyncio.to_thread(self._estimate, counter, request, model, history)
        return overflow.preflight(estimate, model.limit, reserved)

    def _estimate(
        self, counter: TokenCounter, request: LLMRequest, model: ModelInfo, history: list[MessageWithParts]
    ) -> int:
        return self.fixed_tokens(request, model) + counter.count_messages(history)

    async def _seed(self, counter: TokenCounter, session_id: str) -> None:
        key = (session_id, counter.tag)
        if key not in self._seeded:
            self._seeded.add(key)
            counter.seed(await self._stores.store.part_token_counts(session_id))

    async def save_counts(self) -> None:
        """Keep the token counts made since the last save beside their parts (one transaction)."""
        for counter in self._counters.values():
            fresh = counter.take_fresh()
            if fresh:
                await self._stores.store.save_token_counts(fresh)

    async def overhead(self, session_id: str, user: UserMessage, model: ModelInfo) -> int:
        """The fixed tokens of the session's next request, for a compaction outside the loop."""
        agents = self._settings.agents
        try:
            agent = agents.get(user.agent)
        except NotFoundError:
            agent = agents.default()
        plan = StepPlan(session_id, [], user, agent, model, step=1, last_finished_id=None)
        request, _tools = await self._requests.build(plan)
        return self.fixed_tokens(request, model)

    async def compact(
        self,
        session_id: str,
        *,
        auto: bool,
        model: ModelInfo,
        abort: asyncio.Event,
        overhead: int = 0,
        before: int = 0,
    ) -> ContextOverflowError | None:
        """Summarise the session; the error that ends the turn when it could not."""
        compactor = self._compactor()
        return await compactor.run(
            session_id, auto=auto, model=model, abort=abort, overhead=overhead, before=before
        )

    async def compact_now(self, session_id: str) -> MessageWithParts:
        """A manual compaction (refused while the session is busy)."""
        return await self._compactor().run_manual(session_id)

    def _compactor(self) -> Compaction:
        return self._compaction(self)

    async def prune(self, session_id: str) -> None:
        """After a turn: clear old tool outputs (``compaction.prune``), keep the turn's token counts."""
        try:
            await self._prune(session_id)
        finally:
            await self.save_counts()

    async def _prune(self, session_id: str) -> None:
        config = self._settings.config.compaction
        if not config.prune:
            return
        model = await self._session_model(session_id)
        if model is None:
            return
        freed = await prune(self._stores.sessions, session_id, config, self.counter(model))
        if freed:
            log.info("session %s: pruned %d tokens of old tool output", session_id, freed)

    async def _session_model(self, session_id: str) -> ModelInfo | None:
        async for msg in self._stores.sessions.stream(session_id):
            if isinstance(msg.info, AssistantMessage):
                try:
                    return self._models.resolve(f"{msg.info.providerID}/{msg.info.modelID}")
                except Exception as exc:  # the model left the config: prune with a default counter
                    log.info("cannot resolve %s for prune: %s", msg.info.modelID, exc)
                    return None
        return None
