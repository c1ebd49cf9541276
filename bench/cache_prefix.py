"""What a provider's prefix cache makes of one task's model requests.

Providers cache a request by its leading bytes: tools, then the system prompt, then the conversation.
A request that starts with the bytes of the one before it pays full price only for what it adds; a
change anywhere early (a date, a reordered tool, a moved marker) makes everything after it uncached.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

# The order a provider reads a request in; whatever else the body holds is not cached content.
_CACHED_ORDER = ("tools", "system", "messages")


def _content(value: Any) -> Any:
    # A cache breakpoint (Anthropic's `cache_control`) marks where to cache, it is not content: the
    # loop moves the last one forward every step, and the provider still serves the prefix before it.
    if isinstance(value, dict):
        return {k: _content(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [_content(v) for v in value]
    return value


def wire_text(body: dict[str, Any]) -> str:
    """The cacheable part of a request body as compact JSON, in the order a provider caches it."""
    ordered = {key: _content(body[key]) for key in _CACHED_ORDER if key in body}
    return json.dumps(ordered, ensure_ascii=False, separators=(",", ":"))


def _common(a: bytes, b: bytes) -> int:
    """How many leading bytes ``a`` and ``b`` share."""
    n = min(len(a), len(b))
    return next((i for i in range(n) if a[i] != b[i]), n)


def _size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode())


@dataclass(frozen=True)
class PrefixFigures:
    """Bytes of one task's requests, as a prefix cache sees them."""

    requests: int
    first_bytes: int  # the whole first request (tools, system, conversation)
    system_bytes: int  # the system prompt alone, within it
    tools_bytes: int  # the tool specs alone, within it
    first_kept: int  # bytes of the first request every later request starts with
    unstable_steps: list[int]  # steps whose request does not start with the whole previous one
    total_bytes: int  # every request's bytes, summed
    uncached_bytes: int  # the first request, then what each later request adds to the one before

    @property
    def stable(self) -> bool:
        """Each request starts with the previous one (short of the closing brackets)."""
        return not self.unstable_steps


def figures(bodies: Sequence[dict[str, Any]]) -> PrefixFigures:
    """The figures of a task, from its request bodies in the order they were sent."""
    if not bodies:
        raise ValueError("no requests: the task never reached the model")
    texts = [wire_text(body).encode() for body in bodies]
    sizes = [len(text) for text in texts]
    first = bodies[0]
    system = first.get("system") or [m for m in first.get("messages", []) if m.get("role") == "system"]
    uncached, unstable = sizes[0], []
    for step in range(1, len(texts)):
        shared = _common(texts[step - 1], texts[step])
        # JSON closes its lists and objects: at most `]}` of the previous request cannot be shared.
        if shared < sizes[step - 1] - 2:
            unstable.append(step)
        uncached += sizes[step] - shared
    return PrefixFigures(
        requests=len(texts),
        first_bytes=sizes[0],
        system_bytes=_size(system),
        tools_bytes=_size(first.get("tools", [])),
        first_kept=min(_common(texts[0], text) for text in texts[1:]) if len(texts) > 1 else sizes[0],
        unstable_steps=unstable,
        total_bytes=sum(sizes),
        uncached_bytes=uncached,
    )


def report(name: str, f: PrefixFigures) -> str:
    """The figures as lines for a bench's output."""
    stability = (
        "each request starts with the previous one byte for byte"
        if f.stable
        else f"NOT byte-stable: steps {f.unstable_steps} rewrite earlier bytes"
    )
    return "\n".join(
        [
            f"{name}: first request {f.first_bytes:,} bytes (system prompt {f.system_bytes:,}, "
            f"tool specs {f.tools_bytes:,}); {f.first_kept:,} of them start every later request",
            f"  {f.requests} requests, {f.total_bytes:,} bytes in all, {f.uncached_bytes:,} uncached "
            f"bytes per task; {stability}",
        ]
    )
