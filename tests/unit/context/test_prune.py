"""Prune: thresholds, protection rules, marking through the session store."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from core.bus import Bus
from core.config.schema import CompactionConfig
from core.context.encoding import Encoder, EncodingLoader
from core.context.prune import prune, select_prunable
from core.context.tokens import TokenCounter
from core.events import PartUpdated
from core.message.models import AnyPart, MessageWithParts, ToolPart, ToolStateError, ToolTimeError
from core.session.sessions import Sessions
from core.storage import Store

from .history import SESSION, assistant, compaction_user, turn, user


def _no_encoding(name: str) -> Encoder:
    raise OSError("estimates only")


@pytest.fixture
def counter() -> TokenCounter:
    # chars/4 makes the arithmetic exact: "x" * 4000 is 1,000 tokens.
    return TokenCounter(loader=EncodingLoader(_no_encoding))


def out(k_tokens: int) -> str:
    return "x" * (4000 * k_tokens)


def tool_turns(n: int, k_tokens: int, tool: str = "read") -> list[MessageWithParts]:
    history: list[MessageWithParts] = []
    for i in range(n):
        history += turn(f"step {i}", tools=[(tool, out(k_tokens))])
    return history


def outputs(parts: list[ToolPart]) -> list[str]:
    return [p.id for p in parts]


def tool_parts(history: list[MessageWithParts]) -> list[ToolPart]:
    return [p for m in history for p in m.parts if isinstance(p, ToolPart)]


def test_old_outputs_beyond_the_newest_40k_are_selected(counter: TokenCounter) -> None:
    history = tool_turns(10, 10)  # ten outputs of 10k tokens
    selected = select_prunable(history, counter=counter)
    parts = tool_parts(history)
    # The last two turns are protected; of the other eight the newest four fill the 40k budget.
    assert outputs(selected) == outputs(list(reversed(parts[:4])))


def test_nothing_is_selected_when_it_frees_too_little(counter: TokenCounter) -> None:
    history = tool_turns(8, 10)  # six unprotected outputs: 60k, 20k over the budget
    assert select_prunable(history, counter=counter) == []  # 20k is not more than 20k
    assert len(select_prunable(history, counter=counter, minimum=19_999)) == 2


def test_thresholds_are_configurable(counter: TokenCounter) -> None:
    history = tool_turns(6, 10)
    assert len(select_prunable(history, counter=counter, protect_tokens=0, minimum=0)) == 4
    assert len(select_prunable(history, counter=counter, protect_turns=0, protect_tokens=0, minimum=0)) == 6


def test_last_two_turns_are_protected_whatever_their_size(counter: TokenCounter) -> None:
    history = tool_turns(2, 100)
    assert select_prunable(history, counter=counter, protect_tokens=0, minimum=0) == []


def test_skill_output_is_never_pruned(counter: TokenCounter) -> None:
    history = tool_turns(4, 30, tool="skill") + tool_turns(2, 1)
    assert select_prunable(history, counter=counter, protect_tokens=0, minimum=0) == []


def test_walk_stops_at_a_summary(counter: TokenCounter) -> None:
    before = tool_turns(5, 30)
    c = compaction_user()
    s = assistant(c, text="summary", summary=True)
    after = tool_turns(2, 1)
    selected = select_prunable([*before, c, s, *after], counter=counter, protect_tokens=0, minimum=0)
    assert selected == []


def test_walk_stops_at_an_output_pruned_before(counter: TokenCounter) -> None:
    history = tool_turns(8, 30)
    first = tool_parts(history)[3]
    first.state.time.compacted = 1  # type: ignore[union-attr]
    selected = select_prunable(history, counter=counter, protect_tokens=0, minimum=0)
    assert outputs(selected) == outputs(list(reversed(tool_parts(history)[4:6])))


def test_only_completed_outputs_count(counter: TokenCounter) -> None:
    history = tool_turns(5, 30)
    msg = history[1]  # the oldest tool call failed instead
    part = msg.parts[-1]
    assert isinstance(part, ToolPart)
    msg.parts[-1] = part.model_copy(
        update={"state": ToolStateError(input={}, error="boom " * 9000, time=ToolTimeError(start=1, end=2))}
    )
    selected = select_prunable(history, counter=counter, protect_tokens=0, minimum=0)
    assert part.id not in outputs(selected)
    assert len(selected) == 2


class MemoryStore:
    """An in-memory stand-in for Sessions: the two calls prune makes."""

    def __init__(self, history: list[MessageWithParts]) -> None:
        self.history = history
        self.updated: list[AnyPart] = []
        self.batches = 0

    async def messages(self, session_id: str) -> list[MessageWithParts]:
        assert session_id == SESSION
        return [m.model_copy(deep=True) for m in self.history]

    async def mark_compacted(self, parts: list[ToolPart]) -> object:
        self.batches += 1
        for part in parts:
            self.updated.append(part)
            for message in self.history:
                message.parts = [part if p.id == part.id else p for p in message.parts]
        return parts


async def test_prune_marks_parts_through_the_store_and_keeps_outputs(counter: TokenCounter) -> None:
    history = tool_turns(10, 10)
    store = MemoryStore(history)
    freed = await prune(store, SESSION, CompactionConfig(), counter)
    assert freed == 4 * 10_000 - 4 * counter.count_text("[Old tool result content cleared]")
    assert len(store.updated) == 4 and store.batches == 1
    for part in tool_parts(store.history)[:4]:
        assert part.state.status == "completed"
        assert part.state.time.compacted is not None
        assert part.state.output == out(10)  # nothing deleted
    assert all(p.state.time.compacted is None for p in tool_parts(store.history)[4:])  # type: ignore[union-attr]
    # A second prune finds nothing new to free.
    assert await prune(store, SESSION, CompactionConfig(), counter) == 0


async def test_prune_switched_off_does_nothing(counter: TokenCounter) -> None:
    store = MemoryStore(tool_turns(10, 10))
    assert await prune(store, SESSION, CompactionConfig(prune=False), counter) == 0
    assert store.updated == []


async def test_prune_reads_thresholds_from_config(counter: TokenCounter) -> None:
    store = MemoryStore(tool_turns(10, 10))
    config = CompactionConfig(prune_protect=70_000, prune_minimum=5_000)
    assert await prune(store, SESSION, config, counter) > 0
    assert len(store.updated) == 1


async def test_prune_walks_the_model_view_and_stops_at_the_summary(counter: TokenCounter) -> None:
    old = tool_turns(3, 30)
    tail = tool_turns(3, 30)
    c = compaction_user(tail_start=tail[0].info.id)
    s = assistant(c, text="summary", summary=True)
    k = user("Continue if you have next steps", synthetic=True)
    history = [*old, *tail, c, s, k, assistant(k, text="ok"), *tool_turns(1, 1)]
    store = MemoryStore(history)
    config = CompactionConfig(prune_protect=0, prune_minimum=0)
    assert await prune(store, SESSION, config, counter) > 0
    # Only the tail, sent after the summary, is pruned; what the summary replaced is left alone.
    assert {p.id for p in store.updated} == {p.id for p in tool_parts(tail)}


async def test_prune_writes_every_mark_in_one_transaction(counter: TokenCounter, tmp_path: Path) -> None:
    store = await Store.open(tmp_path / "agentls.db")
    bus = Bus()
    sessions = Sessions(store, bus)
    try:
        project = await store.ensure_project(tmp_path)
        session = await sessions.create(project, str(tmp_path))
        for message in tool_turns(30, 10):
            info = message.info.model_copy(update={"sessionID": session.id})
            await sessions.update_message(info)
            await store.upsert_parts([p.model_copy(update={"sessionID": session.id}) for p in message.parts])
        sub = bus.subscribe(PartUpdated)
        before = store.write_transactions
        assert await prune(sessions, session.id, CompactionConfig(), counter) > 0
        assert store.write_transactions == before + 1
        marked = [e.part for e in drain(sub)]
        assert len(marked) == 24  # every part but the newest 40k tokens' worth, each announced
        stored = [p for m in await sessions.messages(session.id) for p in m.parts if isinstance(p, ToolPart)]
        assert sum(1 for p in stored if p.state.time.compacted) == 24  # type: ignore[union-attr]
    finally:
        await sessions.close()
        await store.close()


def drain(sub: Any) -> list[Any]:
    events = []
    while (event := sub.get_nowait()) is not None:
        events.append(event)
    return events
