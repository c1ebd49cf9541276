"""The small model's edit at one site: what it is asked, what of its answer is taken, and that a
failure or a timeout is no suggestion rather than an error."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator

import pytest

from core.config.schema import Config
from core.errors import ConfigError, ProviderError
from core.llm import events as ev
from core.llm.model import ModelInfo, resolve_model
from core.llm.request import LLMRequest
from core.next_edits.request import NextEditRequest
from core.next_edits.suggest import read_answer, suggest

REQUEST = NextEditRequest(
    pattern="`value` was renamed to `amount`",
    examples=["--- util.py (line 1)\n-def scale(value):\n+def scale(amount):"],
    file="main.py",
    before="import util",
    line="    print(scale(value=2))",
    after="",
)


def small() -> ModelInfo:
    config = Config.model_validate(
        {
            "provider": {
                "p": {
                    "litellm_provider": "openai",
                    "options": {"api_base": "http://127.0.0.1:9/v1"},
                    "models": {"small": {"limit": {"context": 8000, "output": 100}}},
                }
            }
        }
    )
    return resolve_model(config, "p/small")


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("    print(scale(amount=2))", "    print(scale(amount=2))"),
        ("print(scale(amount=2))", "    print(scale(amount=2))"),  # indentation restored
        ("```python\n    print(scale(amount=2))\n```", "    print(scale(amount=2))"),
        ("    print(scale(value=2))", None),  # unchanged: nothing to offer
        ("", None),
        ("first\nsecond", None),  # not one line
    ],
)
def test_read_answer(answer: str, expected: str | None) -> None:
    assert read_answer(answer, REQUEST.line) == expected


async def test_the_model_reads_the_pattern_the_examples_and_the_site() -> None:
    seen: list[LLMRequest] = []

    async def stream(request: LLMRequest, abort: asyncio.Event) -> AsyncIterator[ev.StreamEvent]:
        seen.append(request)
        yield ev.TextDelta(id="t", text="    print(scale(amount=2))")

    assert await suggest(stream, small, REQUEST) == "    print(scale(amount=2))"
    (request,) = seen
    text = request.messages[0]["content"][0]["text"]
    assert "`value` was renamed to `amount`" in text and "-def scale(value):" in text
    assert "Line to rewrite:\n    print(scale(value=2))" in text
    assert request.tools == [] and "rewritten" in request.system[0]


async def test_an_error_or_a_timeout_raises_logged_at_info_and_no_model_is_no_suggestion(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def failing(request: LLMRequest, abort: asyncio.Event) -> AsyncIterator[ev.StreamEvent]:
        raise ProviderError("overloaded", kind="server", status=529, retryable=True)
        yield ev.TextDelta(id="t", text="")

    never = asyncio.Event()

    async def hanging(request: LLMRequest, abort: asyncio.Event) -> AsyncIterator[ev.StreamEvent]:
        await never.wait()
        yield ev.TextDelta(id="t", text="late")

    def no_model() -> ModelInfo:
        raise ConfigError("no model is configured")

    with caplog.at_level(logging.INFO, logger="core.next_edits.suggest"):
        # Raised, so that the front end asks again later instead of taking it for "no edit".
        with pytest.raises(ProviderError, match="overloaded"):
            await suggest(failing, small, REQUEST)
        with pytest.raises(ProviderError, match=r"timed out after 0\.05 s") as timed_out:
            await suggest(hanging, small, REQUEST, timeout=0.05)
        assert timed_out.value.retryable
        assert await suggest(failing, no_model, REQUEST) is None  # no model: nothing to ask again
    ours = [r for r in caplog.records if r.name == "core.next_edits.suggest"]
    assert {r.levelno for r in ours} == {logging.INFO}
    assert [r.getMessage().split(":")[1].strip() for r in ours] == [
        "the small model failed",
        "the small model failed",
        "no small model",
    ]
