"""Prompt-caching markers: the first two system blocks and the last two messages, nothing else.

Only models with ``supports_cache_control`` get them; an OpenAI-compatible endpoint may reject the
unknown key, so every other route strips any marker that reached it.
"""

from __future__ import annotations

from typing import Any

EPHEMERAL: dict[str, str] = {"type": "ephemeral"}
_UNMARKABLE = frozenset({"thinking", "redacted_thinking"})


def _mark_last_block(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    for i in range(len(blocks) - 1, -1, -1):
        if blocks[i].get("type") not in _UNMARKABLE:
            return [*blocks[:i], {**blocks[i], "cache_control": EPHEMERAL}, *blocks[i + 1 :]]
    return blocks


def mark_anthropic(system: list[dict[str, Any]], messages: list[dict[str, Any]]) -> None:
    """Mark Anthropic-format system blocks and messages in place."""
    for i in range(min(2, len(system))):
        system[i] = {**system[i], "cache_control": EPHEMERAL}
    for message in messages[-2:]:
        if isinstance(message.get("content"), list):
            message["content"] = _mark_last_block(message["content"])


def mark_openai(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """OpenAI-format messages (for litellm) with the first two system and the last two marked."""
    out = list(messages)
    system_seen = 0
    last_two = set(range(max(0, len(out) - 2), len(out)))
    for i, message in enumerate(out):
        is_system = message.get("role") == "system" and system_seen < 2
        system_seen += message.get("role") == "system"
        if not (is_system or i in last_two):
            continue
        content = message.get("content")
        if isinstance(content, str) and content:
            out[i] = {**message, "content": [{"type": "text", "text": content, "cache_control": EPHEMERAL}]}
        elif isinstance(content, list) and content:
            out[i] = {**message, "content": _mark_last_block(content)}
        elif message.get("tool_calls"):
            # A turn of tool calls only: the marker goes on its last call (litellm turns it into
            # a marked tool_use block or a Bedrock cache point; OpenRouter reads it there too).
            calls = list(message["tool_calls"])
            calls[-1] = {**calls[-1], "cache_control": EPHEMERAL}
            out[i] = {**message, "tool_calls": calls}
    return out


def strip(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Messages without any ``cache_control`` key (copies only what changes)."""
    out = []
    for message in messages:
        content = message.get("content")
        calls = message.get("tool_calls")
        if isinstance(calls, list) and any(isinstance(c, dict) and "cache_control" in c for c in calls):
            message = {
                **message,
                "tool_calls": [{k: v for k, v in c.items() if k != "cache_control"} for c in calls],
            }
        if "cache_control" in message:
            message = {k: v for k, v in message.items() if k != "cache_control"}
        if isinstance(content, list) and any("cache_control" in p for p in content if isinstance(p, dict)):
            parts = [
                {k: v for k, v in p.items() if k != "cache_control"} if isinstance(p, dict) else p
                for p in content
            ]
            message = {**message, "content": parts}
        out.append(message)
    return out
