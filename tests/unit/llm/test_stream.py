"""Scripted answers decoded into events, identically by the lean decoders and by litellm."""

from __future__ import annotations

import pytest

from core.llm.events import (
    FinishStep,
    ReasoningDelta,
    ReasoningEnd,
    ReasoningStart,
    StreamEvent,
    TextDelta,
    TextEnd,
    TextStart,
    ToolCall,
    ToolInputDelta,
    ToolInputStart,
)
from demo import FakeModelServer, Turn
from tests.unit.llm.conftest import COST, ROUTE_IDS, ROUTES, collect, model_for, request_for

pytestmark = pytest.mark.parametrize(("protocol", "route"), ROUTES, ids=ROUTE_IDS)


def _kinds(events: list[StreamEvent]) -> list[str]:
    return [type(e).__name__ for e in events]


async def test_text_arrives_in_as_many_deltas_as_scripted(
    srv: FakeModelServer, protocol: str, route: str
) -> None:
    srv.script(Turn.text("Hello world", chunks=5))
    events = await collect(request_for(model_for(srv, protocol, route)))
    assert events[0] == TextStart("text-1")
    deltas = [e for e in events if isinstance(e, TextDelta)]
    assert len(deltas) == 5 and "".join(d.text for d in deltas) == "Hello world"
    assert _kinds(events) == ["TextStart"] + ["TextDelta"] * 5 + ["TextEnd", "FinishStep"]
    finish = events[-1]
    assert isinstance(finish, FinishStep) and finish.reason == "stop"


async def test_reasoning_precedes_text_and_keeps_the_anthropic_signature(
    srv: FakeModelServer, protocol: str, route: str
) -> None:
    srv.script(Turn.reasoning("Let me think.", chunks=3, signature="sig-abc").text("Done", chunks=2))
    events = await collect(request_for(model_for(srv, protocol, route)))
    assert events[0] == ReasoningStart("reasoning-1")
    assert "".join(e.text for e in events if isinstance(e, ReasoningDelta)) == "Let me think."
    [end] = [e for e in events if isinstance(e, ReasoningEnd)]
    expected = {"anthropic": {"signature": "sig-abc"}} if protocol == "anthropic" else None
    assert end.metadata == expected
    assert events.index(end) < events.index(TextStart("text-2"))
    assert TextEnd("text-2") in events


async def test_parallel_tool_calls_complete_in_order_with_their_fragments(
    srv: FakeModelServer, protocol: str, route: str
) -> None:
    srv.script(
        Turn.text("Reading both.")
        .tool_call("read", {"filePath": "a.py"}, fragments=4, id="call_a")
        .tool_call("read", {"filePath": "b/c.py", "offset": 10}, fragments=3, id="call_b")
    )
    events = await collect(request_for(model_for(srv, protocol, route)))
    calls = [e for e in events if isinstance(e, ToolCall)]
    assert calls == [
        ToolCall("call_a", "read", {"filePath": "a.py"}, '{"filePath": "a.py"}', None),
        ToolCall(
            "call_b",
            "read",
            {"filePath": "b/c.py", "offset": 10},
            '{"filePath": "b/c.py", "offset": 10}',
            None,
        ),
    ]
    for call in calls:
        fragments = [e.delta for e in events if isinstance(e, ToolInputDelta) and e.id == call.id]
        assert "".join(fragments) == call.raw and len(fragments) > 1
        start = events.index(ToolInputStart(call.id, "read"))
        assert start < events.index(call)
    # The first call is complete before the second one starts: the loop may run it at once.
    assert events.index(calls[0]) < events.index(ToolInputStart("call_b", "read"))
    assert events.index(TextEnd("text-1")) < events.index(ToolInputStart("call_a", "read"))
    finish = events[-1]
    assert isinstance(finish, FinishStep) and finish.reason == "tool-calls"


@pytest.mark.parametrize(
    ("raw", "problem"),
    [('{"filePath": "a.py"', "not valid JSON"), ("[1, 2]", "must be a JSON object, not list")],
)
async def test_unusable_tool_arguments_become_a_call_with_an_error(
    srv: FakeModelServer, protocol: str, route: str, raw: str, problem: str
) -> None:
    srv.script(Turn.tool_call("read", raw, fragments=3, id="call_x"))
    events = await collect(request_for(model_for(srv, protocol, route)))
    [call] = [e for e in events if isinstance(e, ToolCall)]
    assert call.input is None and call.raw == raw
    assert call.error is not None and problem in call.error


async def test_a_tool_called_without_arguments_gets_an_empty_object(
    srv: FakeModelServer, protocol: str, route: str
) -> None:
    srv.script(Turn.tool_call("list", {}, id="call_e"))
    events = await collect(request_for(model_for(srv, protocol, route)))
    [call] = [e for e in events if isinstance(e, ToolCall)]
    assert call.input == {} and call.error is None


async def test_usage_maps_to_tokens_with_input_excluding_cache_and_cost_from_config(
    srv: FakeModelServer, protocol: str, route: str
) -> None:
    srv.script(Turn.text("ok").usage(input=1000, output=200, cache_read=300, cache_write=400, reasoning=50))
    finish = (await collect(request_for(model_for(srv, protocol, route))))[-1]
    assert isinstance(finish, FinishStep)
    tokens = finish.tokens
    assert (tokens.input, tokens.cache.read, tokens.cache.write) == (1000, 300, 400)
    # OpenAI reports reasoning apart; Anthropic counts thinking in output (litellm may estimate a split).
    assert tokens.output + tokens.reasoning == 250
    if protocol == "openai":
        assert (tokens.output, tokens.reasoning) == (200, 50)
    expected = (
        1000 * COST["input"] + 250 * COST["output"] + 300 * COST["cache_read"] + 400 * COST["cache_write"]
    ) / 1e6
    assert finish.cost == pytest.approx(expected)


@pytest.mark.parametrize(
    ("scripted", "normalised"), [("length", "length"), ("content-filter", "content-filter")]
)
async def test_finish_reasons_are_normalised(
    srv: FakeModelServer, protocol: str, route: str, scripted: str, normalised: str
) -> None:
    srv.script(Turn.text("cut").finish(scripted))
    finish = (await collect(request_for(model_for(srv, protocol, route))))[-1]
    assert isinstance(finish, FinishStep) and finish.reason == normalised


async def test_a_hundred_identical_chunks_do_not_fail_the_stream(
    srv: FakeModelServer, protocol: str, route: str
) -> None:
    # litellm compares chunks longer than two characters; 150 of them pass its default limit of 100.
    srv.script(Turn.text("===" * 150, chunks=150))
    events = await collect(request_for(model_for(srv, protocol, route)))
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "===" * 150
