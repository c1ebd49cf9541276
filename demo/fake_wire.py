"""Render a scripted ``Turn`` as OpenAI chat-completions or Anthropic messages, streamed or whole."""

from __future__ import annotations

import json
import time
from typing import Any

from demo.fake_script import Fault, ReasoningStep, TextStep, ToolCallStep, Turn, Usage, split

_OPENAI_FINISH = {
    "stop": "stop",
    "tool-calls": "tool_calls",
    "length": "length",
    "content-filter": "content_filter",
}
_ANTHROPIC_FINISH = {
    "stop": "end_turn",
    "tool-calls": "tool_use",
    "length": "max_tokens",
    "content-filter": "refusal",
}
_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    529: "overloaded_error",
}


def _dump(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"))


def call_ids(turn: Turn, first: int) -> list[str]:
    """The id of each tool call of the turn: scripted ones, else ``call_<n>`` counting from ``first``."""
    ids: list[str] = []
    for step in turn.steps:
        if isinstance(step, ToolCallStep):
            ids.append(step.id or f"call_{first + len(ids)}")
    return ids


# --- OpenAI chat completions -------------------------------------------------------------------


def openai_usage(u: Usage) -> dict[str, Any]:
    """OpenAI usage: prompt_tokens include cached tokens, completion_tokens include reasoning."""
    prompt = u.input + u.cache_read + u.cache_write
    completion = u.output + u.reasoning
    usage: dict[str, Any] = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": {"cached_tokens": u.cache_read},
        "completion_tokens_details": {"reasoning_tokens": u.reasoning},
    }
    if u.cache_write:
        usage["prompt_tokens_details"]["cache_creation_tokens"] = u.cache_write
        usage["cache_creation_input_tokens"] = u.cache_write
    return usage


def openai_stream(turn: Turn, model: str, ids: list[str], include_usage: bool) -> list[str]:
    """The ``data:`` payloads of a chat-completions stream, ``[DONE]`` last."""
    base = {
        "id": "chatcmpl-fake",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": model,
    }

    def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
        return _dump({**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})

    out = [chunk({"role": "assistant", "content": ""})]
    calls = iter(ids)
    index = 0
    for step in turn.steps:
        if isinstance(step, TextStep):
            out.extend(chunk({"content": piece}) for piece in split(step.text, step.chunks))
        elif isinstance(step, ReasoningStep):
            if step.redacted is None:
                out.extend(chunk({"reasoning_content": p}) for p in split(step.text, step.chunks))
        else:
            head = {"index": index, "id": next(calls), "type": "function"}
            out.append(chunk({"tool_calls": [{**head, "function": {"name": step.name, "arguments": ""}}]}))
            for frag in split(step.arguments, step.fragments):
                out.append(chunk({"tool_calls": [{"index": index, "function": {"arguments": frag}}]}))
            index += 1
    reason = turn.finish_reason()
    out.append(chunk({}, _OPENAI_FINISH.get(reason, reason)))
    if include_usage:
        out.append(_dump({**base, "choices": [], "usage": openai_usage(turn.usage_)}))
    out.append("[DONE]")
    return out


def openai_json(turn: Turn, model: str, ids: list[str]) -> dict[str, Any]:
    """A whole (non-streamed) chat completion."""
    message: dict[str, Any] = {"role": "assistant", "content": None}
    texts = [s.text for s in turn.steps if isinstance(s, TextStep)]
    reasoning = [s.text for s in turn.steps if isinstance(s, ReasoningStep) and s.redacted is None]
    tools = [s for s in turn.steps if isinstance(s, ToolCallStep)]
    if texts:
        message["content"] = "".join(texts)
    if reasoning:
        message["reasoning_content"] = "".join(reasoning)
    if tools:
        message["tool_calls"] = [
            {"id": cid, "type": "function", "function": {"name": s.name, "arguments": s.arguments}}
            for cid, s in zip(ids, tools, strict=True)
        ]
    reason = turn.finish_reason()
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": _OPENAI_FINISH.get(reason, reason)}],
        "usage": openai_usage(turn.usage_),
    }


# --- Anthropic messages ------------------------------------------------------------------------


def _anthropic_blocks(turn: Turn, ids: list[str]) -> list[dict[str, Any]]:
    calls = iter(ids)
    blocks: list[dict[str, Any]] = []
    for step in turn.steps:
        if isinstance(step, TextStep):
            blocks.append({"type": "text", "text": step.text})
        elif isinstance(step, ReasoningStep):
            if step.redacted is not None:
                blocks.append({"type": "redacted_thinking", "data": step.redacted})
            else:
                blocks.append({"type": "thinking", "thinking": step.text, "signature": step.signature or ""})
        else:
            blocks.append({"type": "tool_use", "id": next(calls), "name": step.name, "input": step.arguments})
    return blocks


def anthropic_stream(turn: Turn, model: str, ids: list[str]) -> list[tuple[str, str]]:
    """The ``(event, data)`` pairs of a messages stream."""
    u = turn.usage_
    start_usage = {
        "input_tokens": u.input,
        "cache_creation_input_tokens": u.cache_write,
        "cache_read_input_tokens": u.cache_read,
        "output_tokens": 1,
    }
    message: dict[str, Any] = {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": start_usage,
    }
    out = [("message_start", {"type": "message_start", "message": message}), ("ping", {"type": "ping"})]

    def delta(i: int, body: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        return ("content_block_delta", {"type": "content_block_delta", "index": i, "delta": body})

    for i, (step, block) in enumerate(zip(turn.steps, _anthropic_blocks(turn, ids), strict=True)):
        empty = {**block}
        if isinstance(step, TextStep):
            empty["text"] = ""
        elif isinstance(step, ReasoningStep) and step.redacted is None:
            empty.update(thinking="", signature="")
        elif isinstance(step, ToolCallStep):
            empty["input"] = {}
        out.append(
            ("content_block_start", {"type": "content_block_start", "index": i, "content_block": empty})
        )
        if isinstance(step, TextStep):
            out.extend(delta(i, {"type": "text_delta", "text": p}) for p in split(step.text, step.chunks))
        elif isinstance(step, ReasoningStep) and step.redacted is None:
            out.extend(
                delta(i, {"type": "thinking_delta", "thinking": p}) for p in split(step.text, step.chunks)
            )
            if step.signature:
                out.append(delta(i, {"type": "signature_delta", "signature": step.signature}))
        elif isinstance(step, ToolCallStep):
            frags = split(step.arguments, step.fragments)
            out.extend(delta(i, {"type": "input_json_delta", "partial_json": f}) for f in frags)
        out.append(("content_block_stop", {"type": "content_block_stop", "index": i}))
    reason = turn.finish_reason()
    stop = {"stop_reason": _ANTHROPIC_FINISH.get(reason, reason), "stop_sequence": None}
    out.append(
        (
            "message_delta",
            {"type": "message_delta", "delta": stop, "usage": {"output_tokens": u.output + u.reasoning}},
        )
    )
    out.append(("message_stop", {"type": "message_stop"}))
    return [(event, _dump(data)) for event, data in out]


def anthropic_json(turn: Turn, model: str, ids: list[str]) -> dict[str, Any]:
    """A whole (non-streamed) message."""
    blocks = _anthropic_blocks(turn, ids)
    for block in blocks:
        if block["type"] == "tool_use":
            try:
                block["input"] = json.loads(block["input"])
            except ValueError:  # a whole message always carries an object; keep the text visible
                block["input"] = {"_raw": block["input"]}
    reason = turn.finish_reason()
    u = turn.usage_
    return {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": blocks,
        "stop_reason": _ANTHROPIC_FINISH.get(reason, reason),
        "stop_sequence": None,
        "usage": {
            "input_tokens": u.input,
            "cache_creation_input_tokens": u.cache_write,
            "cache_read_input_tokens": u.cache_read,
            "output_tokens": u.output + u.reasoning,
        },
    }


# --- errors ------------------------------------------------------------------------------------


def stream_error(kind: str, anthropic: bool) -> str:
    """An error reported inside a stream that already answered 200 (one whole SSE event)."""
    message = f"fake model server: scripted in-stream {kind}"
    if anthropic:
        return (
            f"event: error\ndata: {_dump({'type': 'error', 'error': {'type': kind, 'message': message}})}\n\n"
        )
    return f"data: {_dump({'error': {'message': message, 'type': kind, 'code': None}})}\n\n"


def error_body(fault: Fault, anthropic: bool) -> str:
    """The body of an error answer, shaped like the endpoint's real errors unless scripted."""
    if isinstance(fault.body, str):
        return fault.body
    if fault.body is not None:
        return _dump(fault.body)
    if fault.context_overflow:
        if anthropic:
            message = "prompt is too long: 210000 tokens > 200000 maximum"
            return _dump({"type": "error", "error": {"type": "invalid_request_error", "message": message}})
        message = (
            "This model's maximum context length is 128000 tokens. However, your messages resulted in "
            "130000 tokens. Please reduce the length of the messages."
        )
        err = {
            "message": message,
            "type": "invalid_request_error",
            "param": "messages",
            "code": "context_length_exceeded",
        }
        return _dump({"error": err})
    kind = _ERROR_TYPES.get(fault.status, "api_error")
    message = f"fake model server: scripted {fault.status} ({kind})"
    if anthropic:
        return _dump({"type": "error", "error": {"type": kind, "message": message}})
    return _dump({"error": {"message": message, "type": kind, "param": None, "code": None}})
