"""Anthropic messages stream events → ``StreamEvent``s."""

from __future__ import annotations

from typing import Any

from core.llm import errors, usage
from core.llm.chat_decoder import tool_call
from core.llm.events import (
    FinishStep,
    ReasoningDelta,
    ReasoningEnd,
    ReasoningStart,
    StreamEvent,
    TextDelta,
    TextEnd,
    TextStart,
    ToolInputDelta,
    ToolInputStart,
)
from core.llm.model import ModelInfo

STOP_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "tool-calls",
    "max_tokens": "length",
    "refusal": "content-filter",
}


class _Block:
    __slots__ = ("args", "id", "kind", "name", "redacted", "signature")

    def __init__(self, kind: str, block_id: str, name: str = "") -> None:
        self.kind = kind  # text | thinking | tool_use | ignored
        self.id = block_id
        self.name = name
        self.args: list[str] = []
        self.signature: str | None = None
        self.redacted: str | None = None


class AnthropicDecoder:
    """Feed parsed stream events in order; ``end()`` checks the message finished."""

    def __init__(self, model: ModelInfo, provider: str = "anthropic") -> None:
        self._model = model
        self._provider = provider
        self._blocks: dict[int, _Block] = {}
        self._count = 0
        self._usage: dict[str, Any] = {}
        self._stop: str | None = None
        self._finished = False

    def feed(self, data: dict[str, Any], out: list[StreamEvent]) -> None:
        """Append the events of one stream event to ``out``."""
        kind = data.get("type")
        if kind == "content_block_delta":
            self._delta(self._blocks[data["index"]], data["delta"], out)
        elif kind == "content_block_start":
            self._start(data["index"], data["content_block"], out)
        elif kind == "content_block_stop":
            self._stop_block(self._blocks.pop(data["index"]), out)
        elif kind == "message_start":
            self._usage.update((data.get("message") or {}).get("usage") or {})
        elif kind == "message_delta":
            self._stop = (data.get("delta") or {}).get("stop_reason") or self._stop
            # Later usage is cumulative: output grows, and newer APIs repeat the input counts here.
            self._usage.update({k: v for k, v in (data.get("usage") or {}).items() if v is not None})
        elif kind == "message_stop":
            self._finish(out)
        elif kind == "error":
            raise errors.from_stream_error(data.get("error"), provider=self._provider)

    @property
    def finished(self) -> bool:
        """Whether ``message_stop`` arrived."""
        return self._finished

    def end(self, out: list[StreamEvent]) -> None:
        """At the end of the bytes: a message that never said it stopped was cut off."""
        if self._finished:
            return
        if self._stop is None:
            raise errors.dropped(self._provider)
        self._finish(out)  # message_delta arrived, message_stop was lost: nothing is missing

    def _finish(self, out: list[StreamEvent]) -> None:
        if self._finished:
            return
        self._finished = True
        for index in sorted(self._blocks):
            self._stop_block(self._blocks.pop(index), out)
        tokens = usage.from_anthropic(self._usage)
        reason = STOP_REASONS.get(self._stop or "", "unknown")
        out.append(FinishStep(reason, tokens, usage.cost_of(tokens, self._model.cost)))

    def _start(self, index: int, block: dict[str, Any], out: list[StreamEvent]) -> None:
        kind = block.get("type")
        if kind in ("text", "thinking", "redacted_thinking"):
            self._count += 1  # numbered like the chat decoder's blocks, so both routes agree
        if kind == "text":
            b = self._blocks[index] = _Block("text", f"text-{self._count}")
            out.append(TextStart(b.id))
            if block.get("text"):
                out.append(TextDelta(b.id, block["text"]))
        elif kind in ("thinking", "redacted_thinking"):
            b = self._blocks[index] = _Block("thinking", f"reasoning-{self._count}")
            b.redacted = block.get("data") if kind == "redacted_thinking" else None
            b.signature = block.get("signature") or None
            out.append(ReasoningStart(b.id))
            if block.get("thinking"):
                out.append(ReasoningDelta(b.id, block["thinking"]))
        elif kind == "tool_use":
            b = self._blocks[index] = _Block("tool_use", block["id"], block.get("name", ""))
            out.append(ToolInputStart(b.id, b.name))
        else:  # server tools, citations and future block kinds carry nothing the loop uses
            self._blocks[index] = _Block("ignored", "")

    @staticmethod
    def _delta(b: _Block, delta: dict[str, Any], out: list[StreamEvent]) -> None:
        kind = delta.get("type")
        if kind == "text_delta":
            out.append(TextDelta(b.id, delta["text"]))
        elif kind == "thinking_delta":
            out.append(ReasoningDelta(b.id, delta["thinking"]))
        elif kind == "signature_delta":
            b.signature = delta["signature"]
        elif kind == "input_json_delta" and (fragment := delta.get("partial_json")):
            b.args.append(fragment)
            out.append(ToolInputDelta(b.id, fragment))

    @staticmethod
    def _stop_block(b: _Block, out: list[StreamEvent]) -> None:
        if b.kind == "text":
            out.append(TextEnd(b.id))
        elif b.kind == "thinking":
            meta: dict[str, Any] = {}
            if b.signature:
                meta["signature"] = b.signature
            if b.redacted is not None:
                meta["redacted_data"] = b.redacted
            out.append(ReasoningEnd(b.id, {"anthropic": meta} if meta else None))
        elif b.kind == "tool_use":
            out.append(tool_call(b.id, b.name, "".join(b.args)))
