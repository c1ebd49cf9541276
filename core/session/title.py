"""Session titles: one line from the small model, or the first line of the prompt when that fails.

A new session is called ``New session - <time>`` until its first prompt. The prompt's first line is
its title at once (``provisional_title``: a user reads what the session is about while the model
works), and the small model's title replaces it once the answer has started — unless the user (or
another client) renamed the session meanwhile: only the placeholder or the provisional title is
ever replaced.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable

from core.errors import AgentError
from core.llm import events as ev
from core.llm.model import ModelInfo
from core.llm.request import LLMRequest
from core.message.title_text import clean_title
from core.prompts import load

log = logging.getLogger(__name__)

MAX_TITLE = 50
DEFAULT_PREFIX = "New session - "

StreamFn = Callable[[LLMRequest, asyncio.Event], AsyncIterator[ev.StreamEvent]]


def is_placeholder(title: str) -> bool:
    """Whether ``title`` is the one a session gets when created without a title."""
    return title.startswith(DEFAULT_PREFIX)


def provisional_title(prompt_text: str) -> str | None:
    """What a session shows until the model's title arrives: the prompt's first line (None for a
    prompt without text, such as one image: the placeholder stays)."""
    return fallback_title(prompt_text) if prompt_text.strip() else None


def replaceable(title: str, provisional: str | None) -> bool:
    """Whether the model's title may replace ``title`` (nobody chose it since the prompt)."""
    return is_placeholder(title) or (provisional is not None and title == provisional)


def fallback_title(prompt_text: str) -> str:
    """The first non-empty line of the prompt, trimmed to the title length."""
    for line in prompt_text.splitlines():
        line = line.strip()
        if line:
            return _trim(line)
    return "Untitled"


def _trim(text: str) -> str:
    text = clean_title(text).strip(" \"'`.")
    return text if len(text) <= MAX_TITLE else text[: MAX_TITLE - 1].rstrip() + "…"


async def generate_title(stream: StreamFn, model: ModelInfo | None, prompt_text: str) -> str:
    """Ask the small model for a title; fall back to the prompt's first line on any failure."""
    if model is None:
        return fallback_title(prompt_text)
    request = LLMRequest(
        model=model,
        system=[load("session/title.md")],
        messages=[{"role": "user", "content": [{"type": "text", "text": prompt_text[:4000]}]}],
        tools=[],
        max_tokens=64,
    )
    chunks: list[str] = []
    try:
        async with asyncio.timeout(30):
            async for event in stream(request, asyncio.Event()):
                if isinstance(event, ev.TextDelta):
                    chunks.append(event.text)
    except (AgentError, TimeoutError) as exc:
        log.info("title generation failed, using the prompt's first line: %s", exc)
        return fallback_title(prompt_text)
    title = next((line for line in "".join(chunks).splitlines() if line.strip()), "")
    return _trim(title) if title.strip() else fallback_title(prompt_text)
