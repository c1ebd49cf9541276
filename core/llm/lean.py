"""The lean routes: OpenAI chat-completions and Anthropic messages over core.llm.http, decoded here.

litellm's own stream wrapper costs hundreds of µs per chunk; these paths parse each SSE event once
and hand it to a small state machine.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any

from core.errors import ConfigError
from core.llm import anthropic_request, errors, openai_request, transport
from core.llm.anthropic_decoder import AnthropicDecoder
from core.llm.chat_decoder import ChatChunkDecoder
from core.llm.events import StreamEvent
from core.llm.request import LLMRequest

# The decoder's own call: ``json.loads`` wraps it in checks that cost as much again (~1 µs a chunk).
_decode = json.JSONDecoder().raw_decode
_SPACE = " \t\n\r"  # JSON's whitespace, which json.loads allows around the value


def parse_chunk(data: str, provider: str) -> dict[str, Any]:
    """One SSE event's JSON object; anything else is the provider's malformed stream."""
    if data[:1] in _SPACE:
        data = data.strip(_SPACE)
    try:
        value, end = _decode(data)
    except ValueError:
        raise errors.malformed(data, provider) from None
    if not isinstance(value, dict) or (end != len(data) and data[end:].strip(_SPACE)):
        raise errors.malformed(data, provider)
    return value


def _base(request: LLMRequest) -> str:
    if not request.model.api_base:
        raise ConfigError(f"model {request.model.provider_id}/{request.model.model_id} has no api_base")
    return request.model.api_base.rstrip("/")


async def _batches(
    request: LLMRequest, url: str, headers: dict[str, str], body: dict[str, Any], guard: transport.AbortGuard
) -> AsyncGenerator[list[str], None]:
    """The SSE ``data`` payloads of one response, a network read's worth at a time.

    Batches, not single events, so that this shared layer costs nothing per chunk on the hot path.
    """
    model = request.model
    provider = model.provider_id
    stall = transport.StallWatch(model.first_byte_timeout, model.chunk_timeout, provider)
    response = await transport.open_sse(
        url,
        headers,
        json.dumps(body).encode(),
        timeout=model.timeout,
        guard=guard,
        provider=provider,
        stall=stall,
    )
    try:
        async for batch in transport.sse_batches(response, guard, provider, stall):
            yield [data for _, data in batch]
    finally:
        await response.aclose()


async def openai_stream(request: LLMRequest, abort: asyncio.Event) -> AsyncIterator[StreamEvent]:
    """Stream an OpenAI-compatible chat completion."""
    provider = request.model.provider_id
    url = f"{_base(request)}/chat/completions"
    guard = transport.AbortGuard(abort)
    decoder = ChatChunkDecoder(request.model, provider)
    out: list[StreamEvent] = []
    batches = _batches(request, url, openai_request.headers(request), openai_request.body(request), guard)
    try:
        done = False
        async for batch in batches:
            for data in batch:
                if data == "[DONE]":
                    done = True
                    break
                decoder.feed(parse_chunk(data, provider), out)
                for event in out:
                    yield event
                    guard.check()
                out.clear()
            if done:
                break
        decoder.end(out, done=done)
        for event in out:
            yield event
    finally:
        await batches.aclose()
        guard.close()


async def anthropic_stream(request: LLMRequest, abort: asyncio.Event) -> AsyncIterator[StreamEvent]:
    """Stream an Anthropic message."""
    provider = request.model.provider_id
    url = anthropic_request.url(_base(request))
    guard = transport.AbortGuard(abort)
    decoder = AnthropicDecoder(request.model, provider)
    out: list[StreamEvent] = []
    batches = _batches(
        request, url, anthropic_request.headers(request), anthropic_request.body(request), guard
    )
    try:
        async for batch in batches:
            for data in batch:
                decoder.feed(parse_chunk(data, provider), out)
                for event in out:
                    yield event
                    guard.check()
                out.clear()
                if decoder.finished:
                    break
            if decoder.finished:
                break
        decoder.end(out)
        for event in out:
            yield event
    finally:
        await batches.aclose()
        guard.close()
