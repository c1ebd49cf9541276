"""``LLMRequest`` → the JSON body of an OpenAI chat-completions call (lean route and litellm)."""

from __future__ import annotations

from typing import Any

from core.llm import cache, media, reasoning
from core.llm.request import LLMRequest

# Options litellm understands that are not part of an OpenAI request body.
LITELLM_ONLY = frozenset(
    {"drop_params", "num_retries", "max_retries", "timeout", "extra_headers", "extra_body"}
)


def messages(request: LLMRequest, *, keep_thinking: bool) -> list[dict[str, Any]]:
    """System prompts as system messages, then the history with provider-foreign keys removed."""
    out: list[dict[str, Any]] = [{"role": "system", "content": s} for s in request.system if s]
    # Reasoning goes back only where the provider's rule wants it (see core.llm.reasoning).
    send_from = (
        reasoning.turn_start(request.messages)
        if reasoning.replay_rule(request.model) == "send"
        else len(request.messages)
    )
    for i, message in enumerate(media.adapt(request.messages, request.model)):
        if message.get("role") == "assistant":
            drop = set() if i > send_from else {"reasoning_content"}
            if not keep_thinking:
                drop.add("thinking_blocks")  # Anthropic's signed blocks mean nothing elsewhere
            if drop & message.keys():
                message = {k: v for k, v in message.items() if k not in drop}
        out.append(message)
    if request.model.supports_cache_control:
        return cache.mark_openai(out)
    return cache.strip(out)


def tools(request: LLMRequest) -> list[dict[str, Any]]:
    """Tools in the chat-completions shape."""
    return [
        {
            "type": "function",
            "function": {"name": t.name, "description": t.description, "parameters": t.parameters},
        }
        for t in request.tools
    ]


def sampling(request: LLMRequest) -> dict[str, Any]:
    """temperature, top_p, max tokens and tool_choice when set."""
    body: dict[str, Any] = {}
    if request.temperature is not None:
        body["temperature"] = request.temperature
    if request.top_p is not None:
        body["top_p"] = request.top_p
    if request.max_tokens is not None:
        # OpenAI's reasoning models refuse max_tokens; everything else knows it.
        key = "max_completion_tokens" if request.model.family == "openai-reasoning" else "max_tokens"
        body[key] = request.max_tokens
    if request.tool_choice is not None and request.tools:
        body["tool_choice"] = request.tool_choice
    return body


def body(request: LLMRequest) -> dict[str, Any]:
    """The full streaming request body for the lean OpenAI route."""
    options = request.call_options()
    out: dict[str, Any] = {
        "model": request.model.wire_model,
        "messages": messages(request, keep_thinking=False),
        "stream": True,
        "stream_options": {"include_usage": True},
        **sampling(request),
    }
    if request.tools:
        out["tools"] = tools(request)
    out.update({k: v for k, v in options.items() if k not in LITELLM_ONLY})
    out.update(options.get("extra_body") or {})
    return out


def headers(request: LLMRequest) -> dict[str, str]:
    """Authorization (when there is a key) and the configured extra headers."""
    model = request.model
    out = {"authorization": f"Bearer {model.api_key}"} if model.api_key else {}
    out.update(model.headers)
    out.update(request.call_options().get("extra_headers") or {})
    return out
