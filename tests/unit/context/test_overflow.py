"""Overflow arithmetic: usable space, the usage count, the pre-flight check."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from core.config.schema import CompactionConfig, ModelLimit
from core.context.overflow import is_overflow, preflight, should_auto_compact, usable
from core.message.models import CacheTokens, Tokens


@dataclass
class Limit:
    context: int
    output: int
    input: int | None = None


@pytest.mark.parametrize(
    ("limit", "reserved", "expected"),
    [
        # context only: the answer (capped at 32k) is reserved
        (Limit(context=200_000, output=64_000), None, 168_000),
        (Limit(context=128_000, output=16_384), None, 111_616),
        (Limit(context=128_000, output=0), None, 96_000),  # no stated output limit: 32k
        (Limit(context=128_000, output=16_384), 50_000, 78_000),  # config overrides
        # separate input limit: a margin of min(20k, output cap)
        (Limit(context=400_000, input=272_000, output=128_000), None, 252_000),
        (Limit(context=400_000, input=272_000, output=8_000), None, 264_000),
        (Limit(context=400_000, input=272_000, output=128_000), 0, 272_000),
        (Limit(context=400_000, input=272_000, output=128_000), 10_000, 262_000),
        # unknown context, or a reserve larger than the window
        (Limit(context=0, output=4_096), None, 0),
        (Limit(context=8_000, output=4_096), 9_000, 0),
    ],
)
def test_usable(limit: Limit, reserved: int | None, expected: int) -> None:
    assert usable(limit, reserved) == expected


def tokens(input: int = 0, output: int = 0, read: int = 0, write: int = 0, reasoning: int = 0) -> Tokens:
    return Tokens(input=input, output=output, reasoning=reasoning, cache=CacheTokens(read=read, write=write))


LIMIT = Limit(context=100_000, output=10_000)  # usable 90,000


@pytest.mark.parametrize(
    ("usage", "overflow"),
    [
        (tokens(input=80_000, output=10_000), False),  # exactly usable
        (tokens(input=80_000, output=10_001), True),
        (tokens(input=10_000, read=75_000, output=5_001), True),  # cache reads are context
        (tokens(input=10_000, write=75_000, output=5_001), True),  # so are cache writes
        (tokens(input=10_000, read=70_000, output=5_000), False),
        (tokens(input=80_000, output=5_000, reasoning=5_001), True),  # reasoning fills the window too
    ],
)
def test_is_overflow(usage: Tokens, overflow: bool) -> None:
    assert is_overflow(usage, LIMIT) is overflow


def test_unknown_context_never_overflows() -> None:
    huge = tokens(input=10**9)
    assert not is_overflow(huge, Limit(context=0, output=0))
    assert not preflight(10**9, Limit(context=0, output=0))


def test_reserved_moves_the_threshold() -> None:
    usage = tokens(input=70_000)
    assert not is_overflow(usage, LIMIT)
    assert is_overflow(usage, LIMIT, reserved=40_000)


def test_preflight() -> None:
    assert not preflight(90_000, LIMIT)
    assert preflight(90_001, LIMIT)
    assert preflight(60_000, LIMIT, reserved=50_000)


def test_config_shapes_are_accepted_and_auto_switch_is_honoured() -> None:
    limit = ModelLimit(context=100_000, output=10_000)
    usage = tokens(input=95_000)
    assert should_auto_compact(usage, limit, CompactionConfig())
    assert not should_auto_compact(usage, limit, CompactionConfig(auto=False))
    assert not should_auto_compact(usage, limit, CompactionConfig(reserved=0))
