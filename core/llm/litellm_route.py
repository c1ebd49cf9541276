"""The litellm route: every provider without a lean decoder, through ``litellm.acompletion``.

litellm is imported on first use only (it takes seconds), with its network cost-map fetch off and
its console output suppressed. Its chunks have the chat-completions shape, so the lean OpenAI
state machine decodes them and both routes yield the same events.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
from collections.abc import AsyncIterator
from types import ModuleType
from typing import Any

from core.llm import anthropic_request, errors, openai_request, own_env, transport
from core.llm.chat_decoder import ChatChunkDecoder
from core.llm.events import StreamEvent
from core.llm.request import LLMRequest

log = logging.getLogger(__name__)

# litellm fails a stream after this many identical chunks; a model may legitimately repeat a
# token (a long run of "=" or spaces) far more often than that.
REPEATED_CHUNK_LIMIT = 1_000_000
_NO_KEY = "agentls-no-key"  # litellm's OpenAI and Anthropic clients insist on some key

_module: ModuleType | None = None
_lock: asyncio.Lock | None = None


def _configure(module: ModuleType) -> ModuleType:
    setattr(module, "suppress_debug_info", True)  # noqa: B010 - litellm has no typed settings
    setattr(module, "REPEATED_STREAMING_CHUNK_LIMIT", REPEATED_CHUNK_LIMIT)  # noqa: B010
    return module


async def load_litellm() -> ModuleType:
    """litellm, imported once in a worker thread so the event loop keeps answering meanwhile."""
    global _module, _lock
    if _module is not None:
        return _module
    _lock = _lock or asyncio.Lock()
    async with _lock:
        if _module is None:
            # Offline-safe: without this litellm downloads its cost map at import time.
            # For this process only (``core.llm.own_env``), as is the tiktoken folder litellm's
            # import sets.
            own_env.set_own("LITELLM_LOCAL_MODEL_COST_MAP", "True", keep_user=True)
            own_env.set_own("REPEATED_STREAMING_CHUNK_LIMIT", str(REPEATED_CHUNK_LIMIT), keep_user=True)
            own_env.remember("TIKTOKEN_CACHE_DIR")
            _module = _configure(await asyncio.to_thread(importlib.import_module, "litellm"))
    return _module


def _kwargs(request: LLMRequest) -> dict[str, Any]:
    model = request.model
    keep_thinking = model.family == "anthropic"
    kwargs: dict[str, Any] = {
        "model": model.api_model,
        "messages": openai_request.messages(request, keep_thinking=keep_thinking),
        "stream": True,
        "stream_options": {"include_usage": True},
        "num_retries": 0,  # the session loop owns retries
        "max_retries": 0,
        **openai_request.sampling(request),
    }
    if request.tools:
        kwargs["tools"] = openai_request.tools(request)
    if model.api_base:
        base = model.api_base
        # litellm appends /v1/messages itself; an api_base given as ".../v1" must not double it.
        if model.litellm_provider == "anthropic" and base.rstrip("/").endswith("/v1"):
            base = anthropic_request.url(base).removesuffix("/v1/messages")
        kwargs["api_base"] = base
    if model.api_key:
        kwargs["api_key"] = model.api_key
    elif model.litellm_provider in ("openai", "anthropic"):
        kwargs["api_key"] = _NO_KEY
    if model.headers:
        kwargs["extra_headers"] = dict(model.headers)
    if model.timeout:
        kwargs["timeout"] = model.timeout
    kwargs.update(request.call_options())
    return kwargs


async def litellm_stream(request: LLMRequest, abort: asyncio.Event) -> AsyncIterator[StreamEvent]:
    """Stream through litellm, with its exceptions classified like the lean routes' failures."""
    import httpx
    import openai

    provider = request.model.provider_id
    guard = transport.AbortGuard(abort)
    decoder = ChatChunkDecoder(request.model, provider)
    out: list[StreamEvent] = []
    response: Any = None
    try:
        litellm = await guard.run(load_litellm())
        model = request.model
        stall = transport.StallWatch(model.first_byte_timeout, model.chunk_timeout, provider)
        try:
            response = await guard.run(litellm.acompletion(**_kwargs(request)), stall)
            chunks = response.__aiter__()
            while True:
                try:
                    chunk = await guard.run(anext(chunks), stall)
                except StopAsyncIteration:
                    break
                stall.got_bytes()
                decoder.feed(chunk.model_dump(), out)
                for event in out:
                    yield event
                    guard.check()
                out.clear()
        except (openai.OpenAIError, httpx.HTTPError) as exc:
            if isinstance(exc, httpx.HTTPError):
                raise errors.from_transport(exc, provider=provider) from exc
            raise errors.from_litellm(exc, provider=provider) from exc
        decoder.end(out, done=False)
        for event in out:
            yield event
    finally:
        guard.close()
        close = getattr(response, "aclose", None)
        if close is not None:
            try:
                await close()
            except (openai.OpenAIError, httpx.HTTPError) as exc:
                log.debug("closing a litellm stream failed: %s", exc)
