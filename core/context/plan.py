"""What a compaction summarises and what it keeps verbatim, decided before the summary is asked for.

The model's view of the history (``filter.model_view``) is split at a turn boundary: the newest
``tail_turns`` turns stay as they are, everything older is sent to the compaction agent together
with the prompt from ``prompts/compaction.txt``. The pair of a previous compaction is not sent
again: its summary goes into the prompt instead, so that the new summary updates it.

Two guards keep the compaction itself from overflowing, a failure OpenCode users hit: the tail is
shortened (down to no tail) while it takes more than its budget, and a head too big for one request
is sent with its oldest tool outputs cleared and, if that is not enough, its oldest turns dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib import resources
from string import Template

from core.context.filter import compaction_part, is_finished_summary
from core.context.tokens import TokenCounter
from core.message.models import AssistantMessage, MessageWithParts, TextPart, ToolPart, UserMessage
from core.record import record


@record
class CompactionPlan:
    """The messages to summarise (model order), the verbatim tail and the rendered prompt."""

    summarize: list[MessageWithParts]
    tail: list[MessageWithParts]
    tail_start: str | None
    previous_summary: str | None
    prompt: str
    cleared_outputs: int = 0
    dropped_messages: int = 0


def _prompt_file(name: str) -> str:
    return resources.files("prompts").joinpath(name).read_text(encoding="utf-8").strip()


def render_prompt(previous_summary: str | None) -> str:
    """The request for the summary, with the previous summary to update when there is one."""
    request = _prompt_file("compaction.txt")
    if not previous_summary:
        return request
    previous = Template(_prompt_file("compaction-previous.txt"))
    return previous.substitute(previous_summary=previous_summary.strip()) + "\n\n" + request


def continue_text() -> str:
    """The synthetic user message that resumes a turn after an automatic compaction."""
    return _prompt_file("compaction-continue.txt")


def summary_text(message: MessageWithParts) -> str:
    """The text of a summary message."""
    return "".join(p.text for p in message.parts if isinstance(p, TextPart) and not p.ignored).strip()


def previous_summary(view: Sequence[MessageWithParts]) -> str | None:
    """The summary the model's view starts from, if the session was compacted before."""
    for message in view[:2]:
        if is_finished_summary(message):
            return summary_text(message) or None
    return None


def _is_compaction_pair(message: MessageWithParts) -> bool:
    if compaction_part(message) is not None:
        return True
    return isinstance(message.info, AssistantMessage) and bool(message.info.summary)


def _turn_starts(messages: Sequence[MessageWithParts]) -> list[int]:
    return [i for i, m in enumerate(messages) if isinstance(m.info, UserMessage)]


def build_compaction_request(
    history: Sequence[MessageWithParts],
    previous_summary: str | None,
    tail_turns: int,
    *,
    counter: TokenCounter | None = None,
    tail_budget: int | None = None,
    request_budget: int | None = None,
) -> CompactionPlan:
    """Plan a compaction of the model's view ``history`` (budgets apply when a counter is given)."""
    body = [m for m in history if not _is_compaction_pair(m)]
    starts = _turn_starts(body)
    # At least one turn is always summarised, or the compaction could not shrink anything.
    keep = min(tail_turns, max(0, len(starts) - 1))
    while keep > 0 and counter is not None and tail_budget is not None:
        if counter.count_messages(body[starts[-keep] :]) <= tail_budget:
            break
        keep -= 1
    cut = starts[-keep] if keep else len(body)
    head, tail = body[:cut], body[cut:]
    prompt = render_prompt(previous_summary)
    cleared = dropped = 0
    if counter is not None and request_budget is not None:
        head, cleared, dropped = _fit(head, request_budget - counter.count_text(prompt), counter)
    return CompactionPlan(
        summarize=head,
        tail=tail,
        tail_start=tail[0].info.id if tail else None,
        previous_summary=previous_summary,
        prompt=prompt,
        cleared_outputs=cleared,
        dropped_messages=dropped,
    )


def _fit(
    head: list[MessageWithParts], budget: int, counter: TokenCounter
) -> tuple[list[MessageWithParts], int, int]:
    """Shrink the messages to summarise under ``budget``: clear old outputs, then drop old turns."""
    total = counter.count_messages(head)
    if total <= budget:
        return head, 0, 0
    fitted: list[MessageWithParts] = []
    cleared = 0
    for message in head:
        if total <= budget or not any(_clearable(p) for p in message.parts):
            fitted.append(message)
            continue
        parts = list(message.parts)
        for i, part in enumerate(parts):
            if total <= budget or not isinstance(part, ToolPart) or not _clearable(part):
                continue
            assert part.state.status == "completed"
            time = part.state.time.model_copy(update={"compacted": 1})
            copy = part.model_copy(update={"state": part.state.model_copy(update={"time": time})})
            total += counter.count_part(copy) - counter.count_part(part)
            parts[i] = copy
            cleared += 1
        fitted.append(message.model_copy(update={"parts": parts}))
    dropped = 0
    # Whole turns go from the front, so that what is sent still starts with a user message.
    while fitted and (total > budget or not isinstance(fitted[0].info, UserMessage)) and len(fitted) > 1:
        total -= counter.count_message(fitted.pop(0))
        dropped += 1
    return fitted, cleared, dropped


def _clearable(part: object) -> bool:
    return (
        isinstance(part, ToolPart) and part.state.status == "completed" and part.state.time.compacted is None
    )
