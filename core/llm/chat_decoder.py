"""OpenAI chat-completion chunks → ``StreamEvent``s.

The lean OpenAI decoder and the litellm route (whose chunks have the same shape) share this state
machine, so both paths yield the same events for the same answer.
"""

from __future__ import annotations

from typing import Any

from core import ids
from core.llm import errors, usage
from core.llm.arguments import parse_arguments
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
from core.llm.model import ModelInfo

FINISH_REASONS = {
    "stop": "stop",
    "tool_calls": "tool-calls",
    "function_call": "tool-calls",
    "length": "length",
    "content_filter": "content-filter",
}


def tool_call(call_id: str, name: str, raw: str) -> ToolCall:
    """The complete call, with ``error`` set when its arguments cannot be used."""
    value, error = parse_arguments(raw)
    return ToolCall(call_id, name, value, raw, error)


class ChatChunkDecoder:
    """Feed parsed chunks in order; ``end()`` closes the step and yields its ``FinishStep``."""

    def __init__(self, model: ModelInfo, provider: str = "provider") -> None:
        self._model = model
        self._provider = provider
        self._text: str | None = None  # id of the open text block
        self._reasoning: str | None = None
        self._signature: str | None = None
        self._blocks = 0
        self._call_index: int | None = None
        self._call_id = ""
        self._call_name = ""
        self._call_args: list[str] = []
        self._had_calls = False
        self._finish: str | None = None
        self._usage: dict[str, Any] | None = None

    def feed(self, chunk: dict[str, Any], out: list[StreamEvent]) -> None:
        """Append the events of one chunk to ``out``."""
        if chunk.get("usage"):
            self._usage = chunk["usage"]
        if (error := chunk.get("error")) is not None:  # OpenAI-compatible servers report mid-stream
            raise errors.from_stream_error(error, provider=self._provider)
        choices = chunk.get("choices")
        if not choices:
            return
        choice = choices[0]
        delta = choice.get("delta")
        if delta:
            if reasoning := delta.get("reasoning_content") or delta.get("reasoning"):
                if self._reasoning is None:
                    self._close_text(out)
                    self._reasoning = self._new_id("reasoning")
                    out.append(ReasoningStart(self._reasoning))
                out.append(ReasoningDelta(self._reasoning, reasoning))
            if blocks := delta.get("thinking_blocks"):
                self._thinking_blocks(blocks, out)
            if text := delta.get("content"):
                if self._text is None:
                    self._close_reasoning(out)
                    self._text = self._new_id("text")
                    out.append(TextStart(self._text))
                out.append(TextDelta(self._text, text))
            if calls := delta.get("tool_calls"):
                self._tool_calls(calls, out)
        if reason := choice.get("finish_reason"):
            self._finish = reason
            self._close_all(out)

    def end(self, out: list[StreamEvent], *, done: bool) -> None:
        """Close the step; ``done`` says the stream ended with ``[DONE]`` rather than by EOF alone."""
        if self._finish is None and not done:
            raise errors.dropped(self._provider)
        self._close_all(out)
        reason = FINISH_REASONS.get(self._finish or "", "unknown")
        if reason == "stop" and self._had_calls:
            reason = "tool-calls"  # some OpenAI-compatible servers say stop after calling tools
        tokens = usage.from_openai(self._usage)
        out.append(FinishStep(reason, tokens, usage.cost_of(tokens, self._model.cost)))

    # --- blocks ----------------------------------------------------------------------------------

    def _new_id(self, kind: str) -> str:
        self._blocks += 1
        return f"{kind}-{self._blocks}"

    def _thinking_blocks(self, blocks: list[dict[str, Any]], out: list[StreamEvent]) -> None:
        # litellm's Anthropic route: the signature arrives in a later chunk than the thinking text.
        for block in blocks:
            if block.get("type") == "redacted_thinking":
                self._close_text(out)
                self._close_reasoning(out)
                rid = self._new_id("reasoning")
                out.append(ReasoningStart(rid))
                out.append(ReasoningEnd(rid, {"anthropic": {"redacted_data": block.get("data", "")}}))
            elif block.get("signature"):
                self._signature = block["signature"]

    def _tool_calls(self, calls: list[dict[str, Any]], out: list[StreamEvent]) -> None:
        for call in calls:
            index = call.get("index", 0)
            function = call.get("function") or {}
            if index != self._call_index:
                self._close_text(out)
                self._close_reasoning(out)
                self._close_call(out)
                self._call_index = index
                self._call_id = call.get("id") or ids.ascending("tool")
                self._call_name = function.get("name") or ""
                self._had_calls = True
                out.append(ToolInputStart(self._call_id, self._call_name))
            if args := function.get("arguments"):
                self._call_args.append(args)
                out.append(ToolInputDelta(self._call_id, args))

    def _close_text(self, out: list[StreamEvent]) -> None:
        if self._text is not None:
            out.append(TextEnd(self._text))
            self._text = None

    def _close_reasoning(self, out: list[StreamEvent]) -> None:
        if self._reasoning is not None:
            meta = {"anthropic": {"signature": self._signature}} if self._signature else None
            out.append(ReasoningEnd(self._reasoning, meta))
            self._reasoning = None
            self._signature = None

    def _close_call(self, out: list[StreamEvent]) -> None:
        if self._call_index is not None:
            out.append(tool_call(self._call_id, self._call_name, "".join(self._call_args)))
            self._call_index = None
            self._call_args = []

    def _close_all(self, out: list[StreamEvent]) -> None:
        self._close_reasoning(out)
        self._close_text(out)
        self._close_call(out)
