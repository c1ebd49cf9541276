"""Compaction: replace the older part of a session's context with a summary, once, or fail clearly.

``compact`` stores a user message holding a ``CompactionPart`` (or reuses the one a manual
``agentls compact`` stored), has the hidden tool-less ``compaction`` agent summarise the planned
messages (``deps.summarize``, the loop's processor), marks the answer ``summary: true`` and checks
that the summary plus the verbatim tail fits the model's usable context. It makes exactly one
summary request: a failure or a summary that does not fit raises ``CompactionFailedError`` with
what to do, and the summary is marked failed so the view stays as it was. An automatic compaction
then adds the synthetic "continue" user message so the loop resumes the interrupted turn.

Room is counted as the next request will use it: the usable context minus ``overhead`` (system
prompt and tool schemas). An automatic compaction must also shrink the request (``before``), or the
loop would compact again at once; and a prompt too big to fit even alone is refused with its own
error before anything is stored, since summarising it would only lose what the user asked.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Protocol

from core import ids
from core.context.filter import compaction_part, is_finished_summary, model_view
from core.context.overflow import LimitLike, usable
from core.context.plan import CompactionPlan, build_compaction_request, continue_text, previous_summary
from core.context.tokens import TokenCounter
from core.errors import AbortedError, AgentError, CompactionFailedError, ContextOverflowError
from core.events import Event, SessionCompacted
from core.message.models import (
    AnyPart,
    AssistantMessage,
    CompactionPart,
    MessageError,
    MessageWithParts,
    TextPart,
    UserMessage,
    UserTime,
    now_ms,
)
from core.record import record

log = logging.getLogger(__name__)

# The verbatim tail may take at most this share of the usable context, so that the summary and
# the next steps still have room after it.
TAIL_SHARE = 0.5


class CompactionSettings(Protocol):
    """The part of ``CompactionConfig`` compaction reads."""

    @property
    def auto(self) -> bool: ...
    @property
    def tail_turns(self) -> int: ...
    @property
    def reserved(self) -> int | None: ...


@record
class SummaryRequest:
    """What ``CompactionDeps.summarize`` runs: the compaction agent over ``messages`` + ``prompt``."""

    session_id: str
    parent: UserMessage  # the compaction request; the summary answers it (parentID)
    messages: list[MessageWithParts]  # model order, to convert and send before the prompt
    prompt: str  # the final user message of the request


class CompactionDeps(Protocol):
    """What compaction needs from the running agent (the loop's runtime implements it)."""

    @property
    def limit(self) -> LimitLike: ...
    @property
    def settings(self) -> CompactionSettings: ...
    @property
    def counter(self) -> TokenCounter: ...

    async def history(self, session_id: str) -> list[MessageWithParts]:
        """Every message of the session, oldest first (``Sessions.messages``)."""
        ...

    async def update_message(self, info: UserMessage | AssistantMessage) -> object: ...

    async def update_part(self, part: AnyPart) -> object: ...

    async def summarize(self, request: SummaryRequest) -> MessageWithParts:
        """Run the tool-less compaction agent; returns its finished assistant message.

        Raises an ``AgentError`` (or returns a message with ``error`` set) when the call fails.
        """
        ...

    def publish(self, event: Event) -> None: ...


@record
class CompactionOutcome:
    """A successful compaction: the summary, the tail it kept and the context before and after."""

    summary_id: str
    request_id: str
    tail_start: str | None
    tokens_before: int
    tokens_after: int
    continued: bool


def should_compact_on_error(config: CompactionSettings) -> bool:
    """Whether a provider context-overflow error may trigger a compaction (``compaction.auto``)."""
    return config.auto


def overflow_without_auto(model_id: str) -> ContextOverflowError:
    """The error that ends a turn which overflowed while automatic compaction is off."""
    return ContextOverflowError(
        f"The conversation no longer fits the context window of {model_id}, and automatic compaction "
        "is off (compaction.auto = false). Run a manual compaction (`agentls compact`), enable "
        "compaction.auto, or start a new session."
    )


def no_progress(model_id: str) -> CompactionFailedError:
    """The error that ends a turn whose context overflowed again right after a compaction."""
    return CompactionFailedError(
        f"The context of {model_id} overflowed again right after it was compacted, so compacting once "
        "more cannot make progress (it would only summarise the summary). Start a new session, or "
        "lower compaction.tail_turns / raise compaction.reserved so that compaction keeps less."
    )


def _failure(detail: str) -> CompactionFailedError:
    return CompactionFailedError(
        f"Compaction could not bring the context under the model's limit: {detail}. Start a new "
        "session, or raise compaction.reserved / lower compaction.tail_turns so that less is kept."
    )


def prompt_too_large(context: int, tokens: int, room: int) -> ContextOverflowError:
    """The error for a prompt that cannot fit even alone: summarising it would only lose it."""
    return ContextOverflowError(
        f"This prompt alone exceeds the model's context window of {context:,} tokens: with the system "
        f"prompt and tools it takes about {tokens:,} tokens, and {room:,} fit beside the answer. "
        "Shorten the prompt or attach less, or use a model with a larger context window.",
        status=None,
    )


def _check_prompt_fits(view: Sequence[MessageWithParts], deps: CompactionDeps, overhead: int) -> None:
    prompt = _newest_prompt(view)
    if prompt is None:
        return
    tokens = deps.counter.count_message(prompt) + overhead
    room = usable(deps.limit, deps.settings.reserved)
    if tokens > room:
        raise prompt_too_large(deps.limit.context, tokens, room)


def _newest_prompt(view: Sequence[MessageWithParts]) -> MessageWithParts | None:
    """The user's newest own message (not a compaction request, not a synthetic "continue")."""
    for message in sorted(view, key=lambda m: m.info.id, reverse=True):
        if not isinstance(message.info, UserMessage) or compaction_part(message) is not None:
            continue
        if any(not (isinstance(p, TextPart) and p.synthetic) for p in message.parts):
            return message
    return None


async def compact(
    session_id: str,
    *,
    auto: bool,
    deps: CompactionDeps,
    overhead: int = 0,
    summary_room: int | None = None,
    before: int = 0,
) -> CompactionOutcome:
    """Summarise the session's older context once.

    ``overhead``: the tokens every request of the session sends besides its history (system prompt
    and tool schemas), so the compacted history leaves room for them. ``summary_room``: what the
    summary request may take when another model than the session's writes the summary.
    ``before``: the size of the request that overflowed as the provider reported it (0: unknown);
    an automatic compaction must end below it and below the estimate of the history it replaces.
    """
    history = await deps.history(session_id)
    view = model_view(history)
    _check_prompt_fits(view, deps, overhead)
    room = usable(deps.limit, deps.settings.reserved) - overhead
    request = _pending_request(history)
    plan = build_compaction_request(
        view,
        previous_summary(view),
        deps.settings.tail_turns,
        counter=deps.counter,
        tail_budget=int(room * TAIL_SHARE),
        request_budget=room if summary_room is None else summary_room,
    )
    if not plan.summarize:
        raise _failure("there is nothing older than the kept turns to summarise")
    if request is not None:
        # A request stored by a manual compaction keeps its own flag: no "continue" after it.
        stored = compaction_part(request)
        auto = stored.auto if stored is not None else auto
    request = await _store_request(session_id, history, request, auto, plan, deps)
    estimate = deps.counter.count_messages(view)
    summary = await _summarize(session_id, request, plan, deps)
    after = deps.counter.count_messages([request, summary, *plan.tail])
    if after > room:
        await _mark_failed(summary, deps, f"the summary and kept turns still take {after} tokens")
        raise _failure(f"the summary and the kept turns take {after} tokens, {room} fit")
    before = max(estimate + overhead, before)
    if auto and after + overhead >= before:
        # An automatic compaction that does not shrink the request would be followed by another.
        await _mark_failed(summary, deps, f"the summary did not shrink the context ({before} → {after})")
        raise _failure(
            f"the summary and the kept turns take {after} tokens, no fewer than the {before} they replace"
        )
    log.info(
        "compacted %s: %d → %d tokens (%d outputs cleared, %d messages dropped from the request)",
        session_id,
        before,
        after + overhead,
        plan.cleared_outputs,
        plan.dropped_messages,
    )
    deps.publish(
        SessionCompacted(sessionID=session_id, auto=auto, tokensBefore=before, tokensAfter=after + overhead)
    )
    if auto:
        await _add_continue(session_id, history, deps)
    return CompactionOutcome(
        summary_id=summary.info.id,
        request_id=request.info.id,
        tail_start=plan.tail_start,
        tokens_before=before,
        tokens_after=after + overhead,
        continued=auto,
    )


def _pending_request(history: Sequence[MessageWithParts]) -> MessageWithParts | None:
    """A compaction request nobody answered yet (stored by a manual compaction), if it is the newest."""
    if not history:
        return None
    newest = max(history, key=lambda m: m.info.id)
    return newest if compaction_part(newest) is not None else None


def _last_user(history: Sequence[MessageWithParts]) -> UserMessage:
    for message in sorted(history, key=lambda m: m.info.id, reverse=True):
        if isinstance(message.info, UserMessage) and compaction_part(message) is None:
            return message.info
    raise _failure("the session has no user message")


async def _store_request(
    session_id: str,
    history: Sequence[MessageWithParts],
    pending: MessageWithParts | None,
    auto: bool,
    plan: CompactionPlan,
    deps: CompactionDeps,
) -> MessageWithParts:
    if pending is not None:
        part = compaction_part(pending)
        assert part is not None
        marked = part.model_copy(update={"tailStart": plan.tail_start})
        await deps.update_part(marked)
        return pending.model_copy(update={"parts": [marked if p.id == part.id else p for p in pending.parts]})
    last = _last_user(history)
    info = UserMessage(
        id=ids.ascending("msg"),
        sessionID=session_id,
        time=UserTime(created=now_ms()),
        agent=last.agent,
        model=last.model,
    )
    new_part = CompactionPart(
        id=ids.ascending("prt"), sessionID=session_id, messageID=info.id, auto=auto, tailStart=plan.tail_start
    )
    await deps.update_message(info)
    await deps.update_part(new_part)
    return MessageWithParts(info=info, parts=[new_part])


async def _summarize(
    session_id: str, request: MessageWithParts, plan: CompactionPlan, deps: CompactionDeps
) -> MessageWithParts:
    assert isinstance(request.info, UserMessage)
    ask = SummaryRequest(
        session_id=session_id, parent=request.info, messages=plan.summarize, prompt=plan.prompt
    )
    try:
        summary = await deps.summarize(ask)
    except AbortedError:
        raise
    except AgentError as exc:
        raise _failure(f"the summary request failed ({exc})") from exc
    info = summary.info
    if not isinstance(info, AssistantMessage):
        raise _failure("the summary request returned no assistant message")
    if info.error is not None:
        raise _failure(f"the summary request failed ({info.error.message})")
    if not any(isinstance(p, TextPart) and p.text.strip() for p in summary.parts):
        await _mark_failed(summary, deps, "the summary is empty")
        raise _failure("the model returned an empty summary")
    if not info.summary or not info.finish:
        info = info.model_copy(update={"summary": True, "finish": info.finish or "stop"})
        await deps.update_message(info)
        summary = summary.model_copy(update={"info": info})
    assert is_finished_summary(summary)
    return summary


async def _mark_failed(summary: MessageWithParts, deps: CompactionDeps, detail: str) -> None:
    # An error keeps filter_compacted from treating the summary as a boundary.
    info = summary.info
    assert isinstance(info, AssistantMessage)
    error = MessageError(name="context-overflow", message=f"compaction failed: {detail}")
    await deps.update_message(info.model_copy(update={"error": error}))


async def _add_continue(session_id: str, history: Sequence[MessageWithParts], deps: CompactionDeps) -> None:
    last = _last_user(history)
    info = UserMessage(
        id=ids.ascending("msg"),
        sessionID=session_id,
        time=UserTime(created=now_ms()),
        agent=last.agent,
        model=last.model,
    )
    part = TextPart(
        id=ids.ascending("prt"), sessionID=session_id, messageID=info.id, text=continue_text(), synthetic=True
    )
    await deps.update_message(info)
    await deps.update_part(part)
