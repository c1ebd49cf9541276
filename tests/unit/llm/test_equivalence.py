"""The lean decoders and litellm yield the very same events for the same scripted answer."""

from __future__ import annotations

import dataclasses

import pytest

from core.llm.events import FinishStep, ReasoningEnd, StreamEvent
from demo import FakeModelServer, Turn
from tests.unit.llm.conftest import collect, model_for, request_for


def _turn() -> Turn:
    return (
        Turn.reasoning("First, look at the files. " * 5, chunks=7, signature="sig-xyz")
        .text("I will read two files.\n", chunks=6)
        .tool_call("read", {"filePath": "src/ä.py", "limit": 20}, fragments=5, id="call_one")
        .tool_call("glob", {"pattern": "**/*.py"}, fragments=2, id="call_two")
        .tool_call("bash", '{"command": "ls', fragments=2, id="call_bad")
        .usage(input=1200, output=80, cache_read=600, cache_write=100, reasoning=30)
    )


def _comparable(events: list[StreamEvent]) -> list[StreamEvent]:
    # Anthropic folds thinking into output tokens; litellm estimates a reasoning share of them.
    out = []
    for event in events:
        if isinstance(event, FinishStep):
            tokens = event.tokens.model_copy(
                update={"output": event.tokens.output + event.tokens.reasoning, "reasoning": 0}
            )
            event = dataclasses.replace(event, tokens=tokens)
        out.append(event)
    return out


@pytest.mark.parametrize("protocol", ["openai", "anthropic"])
async def test_lean_and_litellm_routes_agree_event_for_event(srv: FakeModelServer, protocol: str) -> None:
    srv.script(_turn(), _turn())
    lean = await collect(request_for(model_for(srv, protocol, protocol)))
    via_litellm = await collect(request_for(model_for(srv, protocol, "litellm")))
    assert len(lean) == 33  # 1+7+1 reasoning, 1+6+1 text, 3 calls of 1+n+1, finish
    assert _comparable(lean) == _comparable(via_litellm)


async def test_redacted_thinking_travels_as_reasoning_metadata(srv: FakeModelServer) -> None:
    srv.script(Turn.redacted_thinking("opaque-bytes").text("Hi"))
    events = await collect(request_for(model_for(srv, "anthropic", "anthropic")))
    [end] = [e for e in events if isinstance(e, ReasoningEnd)]
    assert end.metadata == {"anthropic": {"redacted_data": "opaque-bytes"}}
