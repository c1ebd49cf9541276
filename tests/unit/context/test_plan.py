"""Compaction plans: what is summarised, what is kept, the rendered prompt."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from core.context.encoding import Encoder, EncodingLoader
from core.context.filter import model_view
from core.context.plan import build_compaction_request, previous_summary, render_prompt
from core.context.tokens import TokenCounter
from core.message.models import MessageWithParts, ToolPart

from .history import assistant, compaction_user, ids, turn, user

SNAPSHOTS = Path(__file__).parent / "snapshots"
PREVIOUS = "## Objective\nShip the CSV export ($5 budget, 100% coverage).\n"


def _no_encoding(name: str) -> Encoder:
    raise OSError("estimates only")


@pytest.fixture
def counter() -> TokenCounter:
    return TokenCounter(loader=EncodingLoader(_no_encoding))  # chars/4: exact arithmetic


def check_snapshot(name: str, text: str) -> None:
    path = SNAPSHOTS / name
    if os.environ.get("UPDATE_SNAPSHOTS"):
        path.write_text(text, encoding="utf-8")
    assert path.read_text(encoding="utf-8") == text, f"{name} changed; UPDATE_SNAPSHOTS=1 to accept"


def test_prompt_snapshot_without_previous_summary() -> None:
    text = render_prompt(None)
    check_snapshot("compaction_prompt.txt", text)
    for heading in ("Objective", "Constraints and preferences", "Decisions", "Work done", "Work in progress"):
        assert f"## {heading}" in text
    assert "## Files" in text and "## Next steps" in text
    assert "previous-summary" not in text


def test_prompt_snapshot_with_previous_summary() -> None:
    text = render_prompt(PREVIOUS)
    check_snapshot("compaction_prompt_previous.txt", text)
    assert PREVIOUS.strip() in text  # "$5" survives the template
    assert text.endswith(render_prompt(None))


def test_plan_keeps_the_last_turns_and_summarises_the_rest() -> None:
    history = turn("a") + turn("b") + turn("c") + turn("d")
    plan = build_compaction_request(history, None, 2)
    assert ids(plan.summarize) == ids(history[:4])
    assert ids(plan.tail) == ids(history[4:])
    assert plan.tail_start == history[4].info.id
    assert plan.prompt == render_prompt(None)


def test_plan_always_summarises_at_least_one_turn() -> None:
    history = turn("a") + turn("b")
    plan = build_compaction_request(history, None, 5)
    assert ids(plan.summarize) == ids(history[:2]) and ids(plan.tail) == ids(history[2:])
    single = turn("only", tools=[("read", "x" * 100)])
    plan = build_compaction_request(single, None, 2)
    assert ids(plan.summarize) == ids(single) and plan.tail == [] and plan.tail_start is None


def test_zero_tail_turns_summarises_everything() -> None:
    history = turn("a") + turn("b")
    plan = build_compaction_request(history, None, 0)
    assert ids(plan.summarize) == ids(history) and plan.tail_start is None


def test_second_compaction_passes_the_previous_summary_in_the_prompt_not_the_messages() -> None:
    first = turn("a") + turn("b") + turn("c")
    c1 = compaction_user(tail_start=first[2].info.id)
    s1 = assistant(c1, text=PREVIOUS, summary=True)
    k = user("Continue if you have next steps", synthetic=True)
    later = [k, assistant(k, text="done"), *turn("e")]
    view = model_view([*first, c1, s1, *later])
    prior = previous_summary(view)
    assert prior == PREVIOUS.strip()
    plan = build_compaction_request(view, prior, 2)
    assert c1.info.id not in ids(plan.summarize) and s1.info.id not in ids(plan.summarize)
    assert ids(plan.summarize) == ids(first[2:6])  # b, c: the old tail, now summarised
    assert ids(plan.tail) == ids(later)
    assert PREVIOUS.strip() in plan.prompt
    assert previous_summary(first) is None


def test_tail_shrinks_to_its_budget(counter: TokenCounter) -> None:
    history = turn("a") + turn("b", tools=[("read", "x" * 40_000)]) + turn("c")
    plan = build_compaction_request(history, None, 2, counter=counter, tail_budget=5_000)
    assert ids(plan.tail) == ids(history[4:])  # turn b (10k tokens) no longer fits the tail
    plan = build_compaction_request(history, None, 2, counter=counter, tail_budget=5)
    assert plan.tail == [] and ids(plan.summarize) == ids(history)


def test_head_too_big_for_one_request_is_cleared_then_trimmed(counter: TokenCounter) -> None:
    history: list[MessageWithParts] = []
    for i in range(6):
        history += turn(f"t{i}", tools=[("read", "x" * 40_000)])  # 10k tokens each
    plan = build_compaction_request(history, None, 0, counter=counter, request_budget=35_000)
    assert plan.cleared_outputs == 3 and plan.dropped_messages == 0
    cleared = [
        p for m in plan.summarize for p in m.parts if isinstance(p, ToolPart) and p.state.time.compacted
    ]  # type: ignore[union-attr]
    assert len(cleared) == 3
    # the oldest go first, and the stored history is left untouched
    assert cleared[0].id == next(p.id for p in history[1].parts if isinstance(p, ToolPart))
    assert all(p.state.time.compacted is None for m in history for p in m.parts if isinstance(p, ToolPart))  # type: ignore[union-attr]
    assert counter.count_messages(plan.summarize) + counter.count_text(plan.prompt) <= 35_000

    huge = turn("a", answer="y" * 80_000) + turn("b", answer="z" * 8_000)
    plan = build_compaction_request(huge, None, 0, counter=counter, request_budget=10_000)
    assert plan.dropped_messages == 2
    assert ids(plan.summarize) == ids(huge[2:])
