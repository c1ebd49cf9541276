"""The pre-flight's cheap upper bound: bytes never undercount, and a fitting request loads no encoding."""

from __future__ import annotations

from typing import Any

import pytest

from core.context.encoding import CL100K, O200K, Encoder, EncodingLoader
from core.context.tokens import TokenCounter

TEXTS = [
    "plain ascii, the quick brown fox",
    "東京タワーと富士山 ñandú Ω≈ç√",
    "emoji 🧪🚀👩‍💻 and a lone surrogate \ud800 kept",
    "    indented\n\tcode(x) -> y  # comment\n" * 50,
    "<|endoftext|> special text stays ordinary",
    "",
]


def request(text: str) -> tuple[list[str], list[dict[str, Any]], list[dict[str, Any]]]:
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": [{"type": "text", "text": text}, {"type": "image_url", "image_url": {}}]},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "c", "function": {"name": "read", "arguments": f'{{"q": "{text}"}}'}}],
        },
        {"role": "tool", "tool_call_id": "c", "content": text},
        {"role": "user", "content": [{"type": "file", "data": text}]},
    ]
    tools = [{"name": "read", "description": text, "parameters": {"type": "object"}}]
    return [text, "You are a coding agent."], messages, tools


@pytest.mark.parametrize("encoding", [CL100K, O200K])
@pytest.mark.parametrize("text", TEXTS)
def test_the_byte_bound_is_never_below_the_count(encoding: str, text: str) -> None:
    counter = TokenCounter(encoding, loader=EncodingLoader())
    assert counter.exact
    system, messages, tools = request(text)
    exact = counter.estimate_request(system, messages, tools)
    assert counter.estimate_request(system, messages, tools, upper_bound=True) >= exact


def test_the_bound_also_covers_the_chars_over_4_fallback() -> None:
    def missing(name: str) -> Encoder:
        raise OSError(f"no {name}")

    counter = TokenCounter(CL100K, loader=EncodingLoader(missing))
    for text in TEXTS:
        system, messages, tools = request(text)
        bound = counter.estimate_request(system, messages, tools, upper_bound=True)
        assert bound >= counter.estimate_request(system, messages, tools)


def test_the_encoding_loads_at_the_first_exact_count_only() -> None:
    loads: list[str] = []

    def load(name: str) -> Encoder:
        loads.append(name)
        real = EncodingLoader().get(name)
        assert real is not None
        return real

    counter = TokenCounter(O200K, loader=EncodingLoader(load))
    system, messages, tools = request("hello")
    assert counter.estimate_request(system, messages, tools, upper_bound=True) > 0
    assert loads == []  # creating the counter and bounding a request load nothing
    assert counter.count_text("hello world") == 2
    counter.count_text("again")
    assert loads == [O200K]
