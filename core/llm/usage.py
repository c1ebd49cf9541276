"""Token usage as providers report it → ``Tokens`` (input excludes cache reads and writes) and cost."""

from __future__ import annotations

from typing import Any

from core.llm.model import ModelCost
from core.message.models import CacheTokens, Tokens


def _int(value: Any) -> int:
    return int(value) if isinstance(value, int | float) else 0


def from_openai(usage: dict[str, Any] | None) -> Tokens:
    """OpenAI-shaped usage (also litellm's): prompt_tokens include cached and cache-write tokens."""
    if not usage:
        return Tokens()
    prompt_details = usage.get("prompt_tokens_details") or {}
    completion_details = usage.get("completion_tokens_details") or {}
    read = _int(prompt_details.get("cached_tokens")) or _int(usage.get("cache_read_input_tokens"))
    write = _int(usage.get("cache_creation_input_tokens")) or _int(
        prompt_details.get("cache_creation_tokens")
    )
    reasoning = _int(completion_details.get("reasoning_tokens"))
    return Tokens(
        input=max(0, _int(usage.get("prompt_tokens")) - read - write),
        output=max(0, _int(usage.get("completion_tokens")) - reasoning),
        reasoning=reasoning,
        cache=CacheTokens(read=read, write=write),
    )


def from_anthropic(usage: dict[str, Any]) -> Tokens:
    """Anthropic usage: input_tokens already exclude cache reads and writes; thinking is in output."""
    return Tokens(
        input=_int(usage.get("input_tokens")),
        output=_int(usage.get("output_tokens")),
        cache=CacheTokens(
            read=_int(usage.get("cache_read_input_tokens")),
            write=_int(usage.get("cache_creation_input_tokens")),
        ),
    )


def cost_of(tokens: Tokens, cost: ModelCost) -> float:
    """USD for one step; reasoning tokens are billed as output."""
    return (
        tokens.input * cost.input
        + (tokens.output + tokens.reasoning) * cost.output
        + tokens.cache.read * cost.cache_read
        + tokens.cache.write * cost.cache_write
    )
