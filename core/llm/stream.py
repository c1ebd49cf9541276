"""``stream(request, abort)``: the one entry point the session processor calls."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from core.llm.events import StreamEvent
from core.llm.request import LLMRequest


def stream(request: LLMRequest, abort: asyncio.Event) -> AsyncIterator[StreamEvent]:
    """The model's answer as events; raises ``ProviderError`` (or ``ContextOverflowError``) on failure
    and ``AbortedError`` promptly once ``abort`` is set.

    Iterate it inside ``contextlib.aclosing`` so that leaving early closes the HTTP response at once.
    """
    # Imported here so that importing core.llm stays free of the HTTP client (and litellm) until a request.
    if request.model.route == "openai":
        from core.llm.lean import openai_stream

        return openai_stream(request, abort)
    if request.model.route == "anthropic":
        from core.llm.lean import anthropic_stream

        return anthropic_stream(request, abort)
    from core.llm.litellm_route import litellm_stream

    return litellm_stream(request, abort)
