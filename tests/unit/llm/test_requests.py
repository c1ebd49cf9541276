"""What reaches the endpoint: Anthropic conversion of a real history, cache markers only where honoured."""

from __future__ import annotations

import json
from typing import Any

import pytest

from demo import FakeModelServer, Turn
from tests.unit.llm.conftest import ROUTE_IDS, ROUTES, collect, model_for, request_for

PNG = "data:image/png;base64,iVBORw0KGgo="
EPHEMERAL = {"type": "ephemeral"}

HISTORY: list[dict[str, Any]] = [
    {"role": "user", "content": "Fix a.py"},
    {
        "role": "assistant",
        "content": "Let me read it.",
        "reasoning_content": "I should read the file.",
        "thinking_blocks": [
            {"type": "thinking", "thinking": "I should read the file.", "signature": "sig-1"}
        ],
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "read", "arguments": '{"filePath": "a.py"}'},
            },
            {
                "id": "call_2",
                "type": "function",
                "function": {"name": "glob", "arguments": '{"pattern": "*.png"}'},
            },
        ],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": "1: print('hi')"},
    {
        "role": "tool",
        "tool_call_id": "call_2",
        "content": [{"type": "text", "text": "logo.png"}, {"type": "image_url", "image_url": {"url": PNG}}],
    },
    {
        "role": "user",
        "content": [{"type": "text", "text": "Also look at this"}, {"type": "image_url", "image_url": PNG}],
    },
    {"role": "assistant", "content": "Done."},
    {"role": "user", "content": "thanks"},
]
SYSTEM = ["You are agentls.", "Environment: linux", "Instructions: be brief"]


async def _sent(srv: FakeModelServer, protocol: str, route: str) -> dict[str, Any]:
    srv.script(Turn.text("ok"))
    await collect(request_for(model_for(srv, protocol, route), system=SYSTEM, messages=HISTORY))
    [request] = srv.requests
    assert isinstance(request.body, dict)
    return request.body


async def test_anthropic_conversion_of_a_multi_turn_history(srv: FakeModelServer) -> None:
    body = await _sent(srv, "anthropic", "anthropic")
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}
    assert body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "Fix a.py"}]},
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "I should read the file.", "signature": "sig-1"},
                {"type": "text", "text": "Let me read it."},
                {"type": "tool_use", "id": "call_1", "name": "read", "input": {"filePath": "a.py"}},
                {"type": "tool_use", "id": "call_2", "name": "glob", "input": {"pattern": "*.png"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "call_1", "content": "1: print('hi')"},
                {
                    "type": "tool_result",
                    "tool_use_id": "call_2",
                    "content": [{"type": "text", "text": "logo.png"}, image],
                },
                {"type": "text", "text": "Also look at this"},
                image,
            ],
        },
        {"role": "assistant", "content": [{"type": "text", "text": "Done.", "cache_control": EPHEMERAL}]},
        {"role": "user", "content": [{"type": "text", "text": "thanks", "cache_control": EPHEMERAL}]},
    ]
    assert body["system"] == [
        {"type": "text", "text": SYSTEM[0], "cache_control": EPHEMERAL},
        {"type": "text", "text": SYSTEM[1], "cache_control": EPHEMERAL},
        {"type": "text", "text": SYSTEM[2]},
    ]
    assert body["tools"][0]["name"] == "read" and body["tools"][0]["input_schema"]["required"] == ["filePath"]
    assert body["max_tokens"] == 4096 and body["model"] == "claude-a" and body["stream"] is True
    [request] = srv.requests
    assert request.headers["x-api-key"] == "test-key" and request.headers["anthropic-version"] == "2023-06-01"


async def test_openai_request_keeps_the_chat_format_without_anthropic_extras(srv: FakeModelServer) -> None:
    body = await _sent(srv, "openai", "openai")
    messages = body["messages"]
    assert [m["content"] for m in messages[:3]] == SYSTEM and {m["role"] for m in messages[:3]} == {"system"}
    assert messages[3:] == [
        {k: v for k, v in m.items() if k not in ("reasoning_content", "thinking_blocks")} for m in HISTORY
    ]
    assert body["stream_options"] == {"include_usage": True} and body["model"] == "model-a"
    assert body["tools"][0] == {
        "type": "function",
        "function": {"name": "read", "description": "Read a file", "parameters": request_for_params()},
    }
    assert srv.requests[0].headers["authorization"] == "Bearer test-key"


def request_for_params() -> dict[str, Any]:
    return {"type": "object", "properties": {"filePath": {"type": "string"}}, "required": ["filePath"]}


@pytest.mark.parametrize(("protocol", "route"), ROUTES, ids=ROUTE_IDS)
async def test_cache_markers_only_for_anthropic_first_two_system_and_last_two_messages(
    srv: FakeModelServer, protocol: str, route: str
) -> None:
    body = await _sent(srv, protocol, route)
    text = json.dumps(body)
    if protocol == "openai":
        assert "cache_control" not in text
        return
    assert text.count("cache_control") == 4
    system = body["system"]
    assert [("cache_control" in block) for block in system] == [True, True, False]
    last_two = body["messages"][-2:]
    assert all(m["content"][-1].get("cache_control") == EPHEMERAL for m in last_two)


@pytest.mark.parametrize("route", ["openai", "litellm"])
async def test_markers_that_reach_an_openai_endpoint_are_stripped(srv: FakeModelServer, route: str) -> None:
    protocol = "openai"
    marked = [{"role": "user", "content": [{"type": "text", "text": "hi", "cache_control": EPHEMERAL}]}]
    srv.script(Turn.text("ok"))
    await collect(request_for(model_for(srv, protocol, route), messages=marked))
    assert "cache_control" not in json.dumps(srv.requests[0].body)


@pytest.mark.parametrize(("protocol", "route"), ROUTES, ids=ROUTE_IDS)
async def test_sampling_options_reach_the_endpoint(srv: FakeModelServer, protocol: str, route: str) -> None:
    srv.script(Turn.text("ok"))
    request = request_for(model_for(srv, protocol, route), temperature=0.25, top_p=0.5, max_tokens=123)
    await collect(request)
    body = srv.requests[0].body
    assert (body["temperature"], body["top_p"], body["max_tokens"]) == (0.25, 0.5, 123)
