"""When a session's context is too full: the arithmetic behind compaction triggers.

``usable(limit, reserved)`` is the prompt size a model can take while leaving room for its answer:

| limit.input | reserved (config) | usable                                   |
|-------------|-------------------|------------------------------------------|
| set         | None              | input − min(20,000, output cap)          |
| set         | R                 | input − R                                |
| unset       | None              | context − output cap                     |
| unset       | R                 | context − R                              |

where output cap = min(limit.output, 32,000), or 32,000 when the model states no output limit.
A separate input limit already excludes the answer, so its default reserve is only a margin for
the next step's growth (the new tool results and the answer just produced); a context-only limit
has to hold the answer too. A configured ``compaction.reserved`` replaces either default. A
context of 0 means the limit is unknown: nothing ever overflows.
"""

from __future__ import annotations

from typing import Protocol

from core.message.models import Tokens

OUTPUT_TOKEN_MAX = 32_000
INPUT_MARGIN = 20_000


class LimitLike(Protocol):
    """What overflow needs of a model's limit (``ModelInfo.limit`` or config's ``ModelLimit``)."""

    @property
    def context(self) -> int: ...
    @property
    def input(self) -> int | None: ...
    @property
    def output(self) -> int: ...


class CompactionSwitch(Protocol):
    """The part of ``CompactionConfig`` the triggers read."""

    @property
    def auto(self) -> bool: ...
    @property
    def reserved(self) -> int | None: ...


def output_cap(limit: LimitLike) -> int:
    """The answer size reserved for: the model's output limit, at most 32,000."""
    return min(limit.output, OUTPUT_TOKEN_MAX) or OUTPUT_TOKEN_MAX


def usable(limit: LimitLike, reserved: int | None = None) -> int:
    """Prompt tokens the model can take (0 when the context limit is unknown)."""
    if limit.context <= 0:
        return 0
    if limit.input:
        margin = reserved if reserved is not None else min(INPUT_MARGIN, output_cap(limit))
        return max(0, limit.input - margin)
    margin = reserved if reserved is not None else output_cap(limit)
    return max(0, limit.context - margin)


def context_tokens(tokens: Tokens) -> int:
    """The window a finished step filled: everything sent (fresh, cache-read, cache-written) and produced.

    ``core.llm.usage`` keeps the parts disjoint: ``input`` excludes cache reads and writes, and
    ``output`` excludes ``reasoning``. Cache writes are prompt tokens as much as fresh input (leaving
    them out lets the first cached request of a huge history pass unnoticed), and reasoning is
    generated into the same window as the answer.
    """
    return tokens.input + tokens.cache.read + tokens.cache.write + tokens.output + tokens.reasoning


def is_overflow(tokens: Tokens, limit: LimitLike, reserved: int | None = None) -> bool:
    """Whether the last finished step's usage leaves no room for the next one."""
    if limit.context <= 0:
        return False
    return context_tokens(tokens) > usable(limit, reserved)


def preflight(estimate: int, limit: LimitLike, reserved: int | None = None) -> bool:
    """True when a request estimated at ``estimate`` tokens would not fit (compact first)."""
    if limit.context <= 0:
        return False
    return estimate > usable(limit, reserved)


def should_auto_compact(tokens: Tokens, limit: LimitLike, config: CompactionSwitch) -> bool:
    """The loop's trigger: overflow of the last finished step, only when ``compaction.auto``."""
    return config.auto and is_overflow(tokens, limit, config.reserved)
