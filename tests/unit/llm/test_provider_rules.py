"""Per-provider request rules: cache markers on tool-call-only turns for Claude hosts, reasoning sent
back where a provider requires it, and PDF / image attachments for the models that take them."""

from __future__ import annotations

import json
from typing import Any

import pytest

from core.config.schema import Config
from core.llm.litellm_route import _kwargs
from core.llm.model import resolve_model
from core.llm.request import LLMRequest
from demo import FakeModelServer, Turn
from tests.unit.llm.conftest import collect, model_for, request_for

EPHEMERAL = {"type": "ephemeral"}
CALL = {"id": "call_1", "type": "function", "function": {"name": "read", "arguments": '{"filePath": "a.py"}'}}
TOOL_TURN: list[dict[str, Any]] = [
    {"role": "user", "content": "Fix a.py"},
    {"role": "assistant", "content": None, "tool_calls": [CALL]},
    {"role": "tool", "tool_call_id": "call_1", "content": "1: print('hi')"},
]


def hosted(provider: str, model: str, **options: Any) -> LLMRequest:
    """A request for ``provider/model`` as litellm would receive it (no network is touched)."""
    config = Config.model_validate({"provider": {provider: {"options": {"api_key": "k", **options}}}})
    return LLMRequest(resolve_model(config, f"{provider}/{model}"), ["sys"], list(TOOL_TURN))


@pytest.mark.parametrize(
    ("provider", "model"),
    [
        ("openrouter", "anthropic/claude-sonnet-4"),
        ("bedrock", "anthropic.claude-3-5-sonnet-20240620-v1:0"),
        ("vertex_ai", "claude-sonnet-4@20250514"),
        ("anthropic", "claude-sonnet-4-5"),
    ],
)
def test_a_tool_call_only_assistant_message_gets_a_cache_marker_on_claude_hosts(
    provider: str, model: str
) -> None:
    messages = _kwargs(hosted(provider, model))["messages"]
    assistant = next(m for m in messages if m["role"] == "assistant")
    assert assistant["tool_calls"][-1]["cache_control"] == EPHEMERAL
    assert "cache_control" not in json.dumps(assistant.get("content"))  # no empty text block invented
    assert json.dumps(messages).count("cache_control") == 3  # the one system block and the last two


def test_no_marker_on_tool_calls_for_models_without_cache_control() -> None:
    messages = _kwargs(hosted("openrouter", "openai/gpt-4o"))["messages"]
    assert "cache_control" not in json.dumps(messages)


async def test_the_marked_tool_call_reaches_anthropic_as_a_marked_tool_use_block(
    srv: FakeModelServer,
) -> None:
    srv.script(Turn.text("ok"))
    await collect(request_for(model_for(srv, "anthropic", "litellm"), messages=list(TOOL_TURN)))
    body = srv.requests[0].body
    assert isinstance(body, dict)
    tool_use = [b for m in body["messages"] for b in m["content"] if b.get("type") == "tool_use"]
    assert tool_use and tool_use[-1].get("cache_control") == EPHEMERAL


def turn_with_reasoning() -> list[dict[str, Any]]:
    """An earlier turn and the current one, each with reasoning on its assistant messages."""
    return [
        {"role": "user", "content": "first question"},
        {"role": "assistant", "content": "old answer", "reasoning_content": "old thoughts"},
        {"role": "user", "content": "Fix a.py"},
        {"role": "assistant", "content": None, "reasoning_content": "I must read a.py", "tool_calls": [CALL]},
        {"role": "tool", "tool_call_id": "call_1", "content": "1: print('hi')"},
        {
            "role": "user",
            "content": [{"type": "text", "text": "Attachments returned by the tool calls above:"}],
        },
    ]


def sent_reasoning(srv: FakeModelServer) -> list[str | None]:
    body = srv.requests[-1].body
    assert isinstance(body, dict)
    return [m.get("reasoning_content") for m in body["messages"] if m["role"] == "assistant"]


@pytest.mark.parametrize("route", ["openai", "litellm"])
@pytest.mark.parametrize(
    ("name", "options", "expected"),
    [
        ("deepseek-reasoner", {}, [None, "I must read a.py"]),  # required within a turn's tool loop
        ("kimi-k2-thinking", {}, [None, "I must read a.py"]),
        ("model-a", {}, [None, None]),  # most OpenAI-compatible servers reject it: dropped
        ("model-a", {"agentls_reasoning": "send"}, [None, "I must read a.py"]),
        ("deepseek-reasoner", {"agentls_reasoning": "drop"}, [None, None]),
    ],
)
async def test_reasoning_is_sent_back_by_the_providers_rule(
    srv: FakeModelServer, route: str, name: str, options: dict[str, Any], expected: list[str | None]
) -> None:
    model = {"limit": {"context": 100_000, "output": 4_096}, "options": options}
    config = Config.model_validate(
        {
            "provider": {
                "fake": {
                    "litellm_provider": "openai",
                    "options": {"api_base": srv.openai_base, "api_key": "k", "agentls_route": route},
                    "models": {name: model},
                }
            }
        }
    )
    srv.script(Turn.text("ok"))
    await collect(LLMRequest(resolve_model(config, f"fake/{name}"), ["sys"], turn_with_reasoning()))
    assert sent_reasoning(srv) == expected


def test_unsigned_reasoning_is_kept_in_the_history_for_the_provider_to_decide() -> None:
    from core.message.models import MessageAdapter, MessageWithParts, PartAdapter
    from core.session.convert import to_model_messages

    info = {
        "id": "msg_2",
        "sessionID": "ses_1",
        "role": "assistant",
        "time": {"created": 1},
        "parentID": "msg_1",
        "providerID": "p",
        "modelID": "m",
        "agent": "build",
        "mode": "build",
    }
    parts = [
        {"type": "reasoning", "text": "thinking in ", "time": {"start": 1}},
        {"type": "reasoning", "text": "steps", "time": {"start": 2}},
        {"type": "text", "text": "done"},
    ]
    message = MessageWithParts(
        info=MessageAdapter.validate_python(info),
        parts=[
            PartAdapter.validate_python({"sessionID": "ses_1", "messageID": "msg_2", "id": f"prt_{i}", **p})
            for i, p in enumerate(parts)
        ],
    )
    [assistant] = to_model_messages([message])
    assert assistant["reasoning_content"] == "thinking in steps"
    assert "thinking_blocks" not in assistant
