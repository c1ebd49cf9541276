"""compact(): one summary request, a clear error when it fails or does not shrink the context."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from core import ids
from core.config.schema import CompactionConfig, ModelLimit
from core.context.compaction import (
    CompactionDeps,
    SummaryRequest,
    compact,
    overflow_without_auto,
    should_compact_on_error,
)
from core.context.encoding import Encoder, EncodingLoader
from core.context.filter import model_view
from core.context.plan import render_prompt
from core.context.tokens import TokenCounter
from core.errors import AbortedError, CompactionFailedError, ContextOverflowError, ProviderError
from core.events import Event, SessionCompacted
from core.message.models import (
    AnyPart,
    AssistantMessage,
    AssistantTime,
    CompactionPart,
    MessageError,
    MessageWithParts,
    TextPart,
    UserMessage,
)

from .history import SESSION, compaction_user, turn
from .history import ids as msg_ids


def _no_encoding(name: str) -> Encoder:
    raise OSError("estimates only")


@dataclass
class FakeDeps:
    """An in-memory session with a scripted compaction agent."""

    messages: list[MessageWithParts]
    summary_text: str = "## Objective\nFinish the task."
    fail_with: Exception | None = None
    error_in_message: str | None = None
    limit: ModelLimit = field(default_factory=lambda: ModelLimit(context=100_000, output=10_000))
    settings: CompactionConfig = field(default_factory=CompactionConfig)
    counter: TokenCounter = field(default_factory=lambda: TokenCounter(loader=EncodingLoader(_no_encoding)))
    requests: list[SummaryRequest] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)

    async def history(self, session_id: str) -> list[MessageWithParts]:
        return sorted((m.model_copy(deep=True) for m in self.messages), key=lambda m: m.info.id)

    async def update_message(self, info: UserMessage | AssistantMessage) -> object:
        for m in self.messages:
            if m.info.id == info.id:
                m.info = info
                return None
        self.messages.append(MessageWithParts(info=info, parts=[]))
        return None

    async def update_part(self, part: AnyPart) -> object:
        message = next(m for m in self.messages if m.info.id == part.messageID)
        message.parts = [p for p in message.parts if p.id != part.id] + [part]
        return None

    async def summarize(self, request: SummaryRequest) -> MessageWithParts:
        self.requests.append(request)
        if self.fail_with is not None:
            raise self.fail_with
        info = AssistantMessage(
            id=ids.ascending("msg"),
            sessionID=request.session_id,
            parentID=request.parent.id,
            time=AssistantTime(created=1, completed=2),
            providerID="p",
            modelID="m",
            agent="compaction",
            mode="compaction",
            finish="stop",
            error=MessageError(name="api", message=self.error_in_message) if self.error_in_message else None,
        )
        await self.update_message(info)
        part = TextPart(
            id=ids.ascending("prt"), sessionID=request.session_id, messageID=info.id, text=self.summary_text
        )
        await self.update_part(part)
        return MessageWithParts(info=info, parts=[part])

    def publish(self, event: Event) -> None:
        self.events.append(event)

    def view(self) -> list[MessageWithParts]:
        return model_view(sorted(self.messages, key=lambda m: m.info.id))


def session(turns: int = 6, output_chars: int = 40_000) -> list[MessageWithParts]:
    history: list[MessageWithParts] = []
    for i in range(turns):
        history += turn(f"request {i}", tools=[("read", "x" * output_chars)])
    return history


def test_fake_deps_satisfy_the_protocol() -> None:
    deps: CompactionDeps = FakeDeps([])
    assert deps is not None


async def test_auto_compaction_summarises_keeps_tail_and_continues() -> None:
    history = session()
    deps = FakeDeps(list(history))
    outcome = await compact(SESSION, auto=True, deps=deps)

    assert len(deps.requests) == 1
    sent = deps.requests[0]
    assert msg_ids(sent.messages) == msg_ids(history[:8])
    assert sent.prompt == render_prompt(None)
    assert outcome.tail_start == history[8].info.id
    assert outcome.tokens_after < outcome.tokens_before
    assert deps.events == [
        SessionCompacted(
            sessionID=SESSION, auto=True, tokensBefore=outcome.tokens_before, tokensAfter=outcome.tokens_after
        )
    ]

    view = deps.view()
    request, summary, *rest = view
    part = request.parts[0]
    assert isinstance(part, CompactionPart) and part.auto and part.tailStart == history[8].info.id
    assert isinstance(summary.info, AssistantMessage) and summary.info.summary
    assert summary.info.parentID == request.info.id
    assert msg_ids(rest[:4]) == msg_ids(history[8:])
    cont = rest[4]
    assert isinstance(cont.info, UserMessage) and cont.info.agent == "build"
    text = cont.parts[0]
    assert isinstance(text, TextPart) and text.synthetic and text.text == "Continue if you have next steps"
    assert len(rest) == 5


async def test_second_compaction_updates_the_previous_summary() -> None:
    deps = FakeDeps(session(), summary_text="FIRST SUMMARY")
    await compact(SESSION, auto=True, deps=deps)
    deps.messages += session(3)
    deps.summary_text = "SECOND SUMMARY"
    await compact(SESSION, auto=True, deps=deps)

    assert len(deps.requests) == 2
    second = deps.requests[1]
    assert "FIRST SUMMARY" in second.prompt
    assert all(
        "FIRST SUMMARY" not in p.text for m in second.messages for p in m.parts if isinstance(p, TextPart)
    )
    view = deps.view()
    summary = view[1]
    assert isinstance(summary.parts[0], TextPart) and summary.parts[0].text == "SECOND SUMMARY"
    assert sum(1 for m in view if isinstance(m.info, AssistantMessage) and m.info.summary) == 1


async def test_manual_compaction_reuses_the_stored_request_and_does_not_continue() -> None:
    history = session()
    pending = compaction_user(auto=False)
    deps = FakeDeps([*history, pending])
    outcome = await compact(SESSION, auto=True, deps=deps)
    assert outcome.request_id == pending.info.id and not outcome.continued
    view = deps.view()
    assert view[0].info.id == pending.info.id
    stored = view[0].parts[0]
    assert isinstance(stored, CompactionPart) and stored.tailStart == history[8].info.id
    assert len(deps.messages) == len(history) + 2  # the summary only, no "continue"


async def test_summary_that_does_not_shrink_fails_after_exactly_one_request() -> None:
    history = session()
    deps = FakeDeps(list(history), summary_text="y" * 400_000)  # 100k tokens of "summary"
    with pytest.raises(CompactionFailedError, match="Start a new session") as info:
        await compact(SESSION, auto=True, deps=deps)
    assert isinstance(info.value, ContextOverflowError) and info.value.kind == "context-overflow"
    assert "compaction.reserved" in str(info.value)
    assert len(deps.requests) == 1
    assert deps.events == []
    # The summary is marked failed, so the model's view is the history as it was.
    view = deps.view()
    assert msg_ids(view[: len(history)]) == msg_ids(history)
    summary = view[-1]
    assert isinstance(summary.info, AssistantMessage) and summary.info.summary
    assert summary.info.error is not None and summary.info.error.name == "context-overflow"


async def test_provider_failure_becomes_a_compaction_error() -> None:
    deps = FakeDeps(session(), fail_with=ProviderError("upstream 500", status=500))
    with pytest.raises(CompactionFailedError, match="upstream 500"):
        await compact(SESSION, auto=True, deps=deps)
    assert len(deps.requests) == 1 and deps.events == []


async def test_summary_message_with_error_becomes_a_compaction_error() -> None:
    deps = FakeDeps(session(), error_in_message="overloaded")
    with pytest.raises(CompactionFailedError, match="overloaded"):
        await compact(SESSION, auto=True, deps=deps)
    assert not any(
        isinstance(m.info, AssistantMessage) and m.info.summary and m.info.error is None for m in deps.view()
    )


async def test_empty_summary_is_a_failure() -> None:
    deps = FakeDeps(session(), summary_text="   ")
    with pytest.raises(CompactionFailedError, match="empty summary"):
        await compact(SESSION, auto=True, deps=deps)


async def test_abort_is_not_turned_into_a_compaction_error() -> None:
    deps = FakeDeps(session(), fail_with=AbortedError("stopped"))
    with pytest.raises(AbortedError):
        await compact(SESSION, auto=True, deps=deps)


async def test_nothing_to_summarise_is_an_error_before_any_request() -> None:
    deps = FakeDeps([])
    with pytest.raises(CompactionFailedError, match="nothing"):
        await compact(SESSION, auto=False, deps=deps)
    assert deps.requests == [] and deps.messages == []


async def test_overhead_and_reserved_shrink_the_room() -> None:
    # usable = 100k - 60k reserved = 40k; the summary alone takes 20k tokens.
    settings = CompactionConfig(reserved=60_000)
    deps = FakeDeps(session(), summary_text="s" * 80_000, settings=settings)
    with pytest.raises(CompactionFailedError, match="15000 fit"):
        await compact(SESSION, auto=True, deps=deps, overhead=25_000)

    history = session()
    deps = FakeDeps(list(history), summary_text="s" * 80_000, settings=settings)
    outcome = await compact(SESSION, auto=True, deps=deps)
    # The tail may take half of the 40k: one 10k turn is kept verbatim instead of two.
    assert outcome.tail_start == history[10].info.id
    assert outcome.tokens_after <= 40_000


def test_auto_switch_for_provider_overflow_errors() -> None:
    assert should_compact_on_error(CompactionConfig())
    assert not should_compact_on_error(CompactionConfig(auto=False))
    error = overflow_without_auto("gpt-4o")
    assert isinstance(error, ContextOverflowError)
    assert "compaction.auto" in str(error) and "agentls compact" in str(error)


async def test_overhead_shortens_the_kept_tail_so_the_next_request_fits() -> None:
    history = session()  # six turns of ~10k tokens each; usable 90,000
    roomy = FakeDeps(list(history))
    kept = await compact(SESSION, auto=True, deps=roomy)
    assert kept.tail_start == history[8].info.id  # two turns kept verbatim
    tight = FakeDeps(list(history))
    shortened = await compact(SESSION, auto=True, deps=tight, overhead=65_000)
    assert shortened.tail_start == history[10].info.id  # only one fits beside 65k of system and tools
    assert shortened.tokens_after <= 90_000


async def test_an_automatic_compaction_must_shrink_the_request() -> None:
    history = session(turns=3, output_chars=40)  # a small history: a long summary would grow it
    deps = FakeDeps(list(history), summary_text="a summary longer than what it replaces " * 40)
    with pytest.raises(CompactionFailedError, match="no fewer than"):
        await compact(SESSION, auto=True, deps=deps)
    summary = deps.view()[-1]
    assert isinstance(summary.info, AssistantMessage) and summary.info.error is not None
    # What the provider reported as overflowing is the size to beat, when it is larger.
    deps = FakeDeps(list(history), summary_text="a summary longer than what it replaces " * 40)
    outcome = await compact(SESSION, auto=True, deps=deps, before=95_000)
    assert outcome.tokens_before == 95_000 and outcome.tokens_after < 95_000


async def test_a_prompt_that_cannot_fit_alone_is_not_summarised() -> None:
    history = session(turns=2) + turn("x" * 400_000)  # ~100k tokens in the user's own message
    deps = FakeDeps(list(history))
    with pytest.raises(
        ContextOverflowError, match="prompt alone exceeds the model's context window of 100,000"
    ):
        await compact(SESSION, auto=True, deps=deps)
    assert deps.requests == [] and len(deps.messages) == len(history)  # nothing stored, nothing sent
