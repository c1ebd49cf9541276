"""The small model's edit at one site: the recent edits as context, the site's line rewritten.

An answer that is no single line, or no small model configured, is no suggestion (None). A failed
or timed-out request raises ``ProviderError`` (logged at info: the user asked for nothing, so
nothing is shown to them), so that the caller asks again later instead of taking it for "no edit".
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable

from core.errors import AgentError, ProviderError
from core.llm import events as ev
from core.llm.model import ModelInfo
from core.llm.request import LLMRequest
from core.next_edits.request import NextEditRequest
from core.prompts import load

log = logging.getLogger(__name__)

TIMEOUT = 20.0
StreamFn = Callable[[LLMRequest, asyncio.Event], AsyncIterator[ev.StreamEvent]]


def user_text(request: NextEditRequest) -> str:
    """The user message the model reads."""
    examples = "\n\n".join(request.examples) or "(the edit is the user's own; see the pattern)"
    return (
        f"Pattern: {request.pattern}\n\nRecent edits:\n{examples}\n\n"
        f"File: {request.file}\nLines above:\n{request.before}\n"
        f"Line to rewrite:\n{request.line}\nLines below:\n{request.after}"
    )


def read_answer(text: str, line: str) -> str | None:
    """The rewritten line in the model's answer; None when it is empty, unchanged or not one line."""
    lines = [row for row in text.strip("\n").splitlines() if not row.strip().startswith("```")]
    if len(lines) != 1 or not lines[0].strip():
        return None
    answer = lines[0].rstrip()
    if answer.strip() == line.strip():
        return None
    if not answer.startswith((" ", "\t")):  # models often drop the indentation: keep the line's
        answer = line[: len(line) - len(line.lstrip())] + answer
    return answer if answer != line else None


async def suggest(
    stream: StreamFn,
    small_model: Callable[[], ModelInfo],
    request: NextEditRequest,
    timeout: float = TIMEOUT,
) -> str | None:
    """The small model's rewrite of ``request.line``, or None (no small model, no change); a failed
    or timed-out request raises ``ProviderError``."""
    try:
        model = small_model()
    except AgentError as exc:
        log.info("next edit: no small model: %s", exc)
        return None
    llm_request = LLMRequest(
        model=model,
        system=[load("next_edits/site.md")],
        messages=[{"role": "user", "content": [{"type": "text", "text": user_text(request)}]}],
        tools=[],
        max_tokens=256,
    )
    chunks: list[str] = []
    try:
        async with asyncio.timeout(timeout):
            async for event in stream(llm_request, asyncio.Event()):
                if isinstance(event, ev.TextDelta):
                    chunks.append(event.text)
    except ProviderError as exc:
        log.info("next edit: the small model failed: %s: %s", type(exc).__name__, exc)
        raise
    except (AgentError, TimeoutError) as exc:
        log.info("next edit: the small model failed: %s: %s", type(exc).__name__, exc)
        why = f"timed out after {timeout:g} s" if isinstance(exc, TimeoutError) else str(exc)
        raise ProviderError(f"the small model's next edit failed: {why}", retryable=True) from exc
    return read_answer("".join(chunks), request.line)
