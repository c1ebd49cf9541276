"""Prune: after a loop ends, mark old tool outputs so the model is sent a placeholder instead.

Walking back from the newest message: the last ``protect_turns`` user turns are left alone, then
completed tool outputs are counted until ``protect_tokens`` of the newest output is kept; every
older output is a candidate. The walk stops at a summary (what lies before it is not sent) or at an
output pruned before (everything older was pruned then). Protected tools (``skill``: instructions
the model keeps following) are never pruned. Candidates are marked only when together they free
more than ``minimum`` tokens, so that a prune is worth breaking the provider's prompt cache for.

Marking sets ``state.time.compacted``; the output stays in the store, and convert sends
"[Old tool result content cleared]" in its place.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Sequence
from typing import Protocol

from core.context.filter import model_view
from core.context.tokens import CLEARED_OUTPUT, TokenCounter
from core.message.models import (
    AssistantMessage,
    MessageWithParts,
    ToolPart,
    UserMessage,
    now_ms,
)

log = logging.getLogger(__name__)

PROTECTED_TOOLS = frozenset({"skill"})
PROTECT_TURNS = 2


class PruneSettings(Protocol):
    """The part of ``CompactionConfig`` prune reads (AGENTLS_DISABLE_PRUNE is folded into ``prune``)."""

    @property
    def prune(self) -> bool: ...
    @property
    def prune_minimum(self) -> int: ...
    @property
    def prune_protect(self) -> int: ...


class PartStore(Protocol):
    """The part of ``core.session.sessions.Sessions`` prune uses."""

    async def messages(self, session_id: str) -> list[MessageWithParts]: ...
    async def mark_compacted(self, parts: list[ToolPart]) -> object: ...


def _is_turn_start(message: MessageWithParts) -> bool:
    # A compaction request is bookkeeping, not something the user asked.
    return isinstance(message.info, UserMessage) and not any(p.type == "compaction" for p in message.parts)


def select_prunable(
    history: Sequence[MessageWithParts],
    *,
    counter: TokenCounter,
    protect_turns: int = PROTECT_TURNS,
    protect_tokens: int = 40_000,
    minimum: int = 20_000,
    protected_tools: Collection[str] = PROTECTED_TOOLS,
) -> list[ToolPart]:
    """The completed tool parts to mark, newest first; empty when they would free too little."""
    turns = 0
    kept = 0
    freed = 0
    selected: list[ToolPart] = []
    for message in reversed(history):
        if _is_turn_start(message):
            turns += 1
        if turns < protect_turns:
            continue
        if isinstance(message.info, AssistantMessage) and message.info.summary:
            break
        for part in reversed(message.parts):
            if not isinstance(part, ToolPart) or part.state.status != "completed":
                continue
            if part.tool in protected_tools:
                continue
            if part.state.time.compacted:
                return _worth_it(selected, freed, minimum)
            tokens = counter.count_output(part)
            if kept + tokens <= protect_tokens:
                kept += tokens
                continue
            # Once the budget is spent every older output goes, even a small one.
            kept = protect_tokens
            freed += tokens
            selected.append(part)
    return _worth_it(selected, freed, minimum)


def _worth_it(selected: list[ToolPart], freed: int, minimum: int) -> list[ToolPart]:
    return selected if freed > minimum else []


async def prune(sessions: PartStore, session_id: str, config: PruneSettings, counter: TokenCounter) -> int:
    """Mark old tool outputs of a session as compacted; returns the tokens freed (0: nothing done)."""
    if not config.prune:
        return 0
    view = model_view(await sessions.messages(session_id))
    parts = select_prunable(
        view, counter=counter, protect_tokens=config.prune_protect, minimum=config.prune_minimum
    )
    if not parts:
        return 0
    placeholder = counter.count_text(CLEARED_OUTPUT)
    freed = sum(counter.count_output(p) - placeholder for p in parts)
    stamp = now_ms()
    marked: list[ToolPart] = []
    for part in parts:
        state = part.state
        assert state.status == "completed"
        # Shallow copies down to the mark: a deep copy of every output cost more than the write.
        time = state.time.model_copy(update={"compacted": stamp})
        marked.append(part.model_copy(update={"state": state.model_copy(update={"time": time})}))
    # One transaction: a prune of a long session marks hundreds of parts, and a commit per part
    # held the database (and the turn's end) for seconds.
    await sessions.mark_compacted(marked)
    log.info("pruned %d tool outputs (%d tokens) in %s", len(parts), freed, session_id)
    return freed
