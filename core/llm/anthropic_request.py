"""``LLMRequest`` (OpenAI chat format) → an Anthropic Messages request.

Anthropic wants the system prompt apart, strict user/assistant alternation, tool results as
``tool_result`` blocks at the head of a user message, and thinking blocks sent back unchanged
(with their signatures) ahead of the assistant's text and tool calls.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from core.llm import cache, media
from core.llm.openai_request import LITELLM_ONLY
from core.llm.request import LLMRequest

log = logging.getLogger(__name__)

API_VERSION = "2023-06-01"


def _media(url: str, block_type: str) -> dict[str, Any]:
    if url.startswith("data:"):
        header, _, data = url.partition(",")
        media_type = header[5:].split(";", 1)[0]
        if media_type == "application/pdf":
            block_type = "document"
        return {"type": block_type, "source": {"type": "base64", "media_type": media_type, "data": data}}
    return {"type": block_type, "source": {"type": "url", "url": url}}


def _blocks(content: Any) -> list[dict[str, Any]]:
    """OpenAI message content (a string or a list of parts) as Anthropic content blocks."""
    if content is None:
        return []
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    blocks: list[dict[str, Any]] = []
    for part in content:
        kind = part.get("type")
        if kind == "text":
            if part.get("text"):
                blocks.append({"type": "text", "text": part["text"]})
        elif kind == "image_url":
            image = part["image_url"]
            blocks.append(_media(image if isinstance(image, str) else image["url"], "image"))
        elif kind == "file":
            data = (part.get("file") or {}).get("file_data")
            if data:
                blocks.append(_media(data, "document"))
        else:
            log.warning("dropping a %r content part Anthropic cannot take", kind)
    return blocks


def _assistant_blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    for thinking in message.get("thinking_blocks") or []:
        if thinking.get("type") == "redacted_thinking":
            blocks.append({"type": "redacted_thinking", "data": thinking["data"]})
        elif thinking.get("signature"):  # unsigned thinking would be rejected; it is only a summary
            blocks.append(
                {"type": "thinking", "thinking": thinking["thinking"], "signature": thinking["signature"]}
            )
    blocks.extend(_blocks(message.get("content")))
    for call in message.get("tool_calls") or []:
        function = call["function"]
        try:
            arguments = json.loads(function.get("arguments") or "{}")
        except ValueError:
            arguments = None
        blocks.append(
            {
                "type": "tool_use",
                "id": call["id"],
                "name": function["name"],
                # A call whose arguments were not an object was answered with a tool error already.
                "input": arguments if isinstance(arguments, dict) else {},
            }
        )
    return blocks


def _tool_result(message: dict[str, Any]) -> dict[str, Any]:
    content = message.get("content")
    result: dict[str, Any] = {"type": "tool_result", "tool_use_id": message["tool_call_id"]}
    result["content"] = content if isinstance(content, str) else _blocks(content)
    return result


def convert(request: LLMRequest) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(system blocks, messages) in Anthropic's format, cache markers applied when the model takes them."""
    system = [{"type": "text", "text": s} for s in request.system if s]
    messages: list[dict[str, Any]] = []

    def append(role: str, blocks: list[dict[str, Any]]) -> None:
        if not blocks:
            return  # Anthropic rejects empty content
        if messages and messages[-1]["role"] == role:
            messages[-1]["content"].extend(blocks)  # alternation: merge same-role neighbours
        else:
            messages.append({"role": role, "content": list(blocks)})

    for message in media.adapt(request.messages, request.model):
        role = message.get("role")
        if role == "system":
            system.extend(_blocks(message.get("content")))
        elif role == "assistant":
            append("assistant", _assistant_blocks(message))
        elif role == "tool":
            append("user", [_tool_result(message)])
        else:
            append("user", _blocks(message.get("content")))
    if request.model.supports_cache_control:
        cache.mark_anthropic(system, messages)
    return system, messages


def _tool_choice(choice: str | dict[str, Any]) -> dict[str, Any]:
    if isinstance(choice, dict):
        name = (choice.get("function") or {}).get("name") or choice.get("name")
        return {"type": "tool", "name": name}
    return {"type": {"required": "any"}.get(choice, choice)}


def body(request: LLMRequest) -> dict[str, Any]:
    """The full streaming request body."""
    system, messages = convert(request)
    out: dict[str, Any] = {
        "model": request.model.wire_model,
        "max_tokens": request.max_tokens or request.model.limit.output,
        "messages": messages,
        "stream": True,
    }
    if system:
        out["system"] = system
    if request.tools:
        out["tools"] = [
            {"name": t.name, "description": t.description, "input_schema": t.parameters}
            for t in request.tools
        ]
        if request.tool_choice is not None:
            out["tool_choice"] = _tool_choice(request.tool_choice)
    if request.temperature is not None:
        out["temperature"] = request.temperature
    if request.top_p is not None:
        out["top_p"] = request.top_p
    options = request.call_options()
    out.update({k: v for k, v in options.items() if k not in LITELLM_ONLY})
    out.update(options.get("extra_body") or {})
    return out


def url(api_base: str) -> str:
    """The messages endpoint under ``api_base`` (with or without a trailing ``/v1``)."""
    base = api_base.rstrip("/")
    if base.endswith("/messages"):
        return base
    return f"{base}/messages" if base.endswith("/v1") else f"{base}/v1/messages"


def headers(request: LLMRequest) -> dict[str, str]:
    """API key, version and the configured extra headers."""
    model = request.model
    out = {"anthropic-version": API_VERSION}
    if model.api_key:
        out["x-api-key"] = model.api_key
    out.update(model.headers)
    out.update(request.call_options().get("extra_headers") or {})
    return out
