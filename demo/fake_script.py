"""The scripting language of the fake model server: a ``Turn`` is one scripted model response.

A turn is built by chaining, starting from the class or from an instance::

    Turn.reasoning("Let me look", signature="sig-1").text("Hello", chunks=5).usage(input=10, output=3)
    Turn.tool_call("read", {"filePath": "a.py"}, fragments=4).tool_call("glob", {"pattern": "*.py"})
    Turn.fault(429, retry_after="1")
    Turn.text("Hello world", chunks=10).drop(after=3)

Steps are wire-neutral; ``demo.fake_wire`` renders them as OpenAI or Anthropic streams.
"""

from __future__ import annotations

import asyncio
import functools
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Concatenate, Generic, ParamSpec

P = ParamSpec("P")


@dataclass(frozen=True, slots=True)
class TextStep:
    text: str
    chunks: int


@dataclass(frozen=True, slots=True)
class ReasoningStep:
    text: str
    chunks: int
    signature: str | None  # Anthropic sends it in a signature_delta before the block stops
    redacted: str | None = None  # Anthropic redacted_thinking data instead of text


@dataclass(frozen=True, slots=True)
class ToolCallStep:
    name: str
    arguments: str  # raw JSON text (possibly invalid, on purpose)
    fragments: int
    id: str | None


Step = TextStep | ReasoningStep | ToolCallStep


@dataclass(slots=True)
class Usage:
    """Token counts as a test thinks of them; each wire format renders them its own way."""

    input: int = 10  # uncached prompt tokens
    output: int = 10  # completion tokens, reasoning excluded
    cache_read: int = 0
    cache_write: int = 0
    reasoning: int = 0


@dataclass(slots=True)
class Fault:
    """An HTTP error answer instead of a stream."""

    status: int
    body: Any = None  # dict → JSON; str → as is; None → an error body shaped for the endpoint
    headers: dict[str, str] = field(default_factory=dict)
    context_overflow: bool = False


Delay = float | asyncio.Event  # seconds, or an event the test sets


class _chain(Generic[P]):
    """Lets a builder method start a new ``Turn`` from the class or extend an existing one."""

    def __init__(self, method: Callable[Concatenate[Turn, P], Turn]) -> None:
        self._method = method
        self.__doc__ = method.__doc__

    def __get__(self, obj: Turn | None, owner: type[Turn]) -> Callable[P, Turn]:
        target = obj if obj is not None else owner()
        return functools.partial(self._method, target)


def split(text: str, pieces: int) -> list[str]:
    """``text`` cut into ``pieces`` non-empty parts of near-equal size (fewer if it is shorter)."""
    pieces = max(1, min(pieces, len(text))) if text else 1
    size, extra = divmod(len(text), pieces)
    out: list[str] = []
    start = 0
    for i in range(pieces):
        end = start + size + (1 if i < extra else 0)
        out.append(text[start:end])
        start = end
    return out


@dataclass(slots=True)
class Turn:
    """One scripted answer: content steps, usage, finish reason, and optional faults."""

    steps: list[Step] = field(default_factory=list)
    usage_: Usage = field(default_factory=Usage)
    finish_: str | None = None  # None: tool-calls when the turn has tool calls, else stop
    fault_: Fault | None = None
    first_byte: Delay | None = None
    stall_after: int | None = None
    stall_until: Delay | None = None  # None: until the client goes away
    drop_after: int | None = None
    malformed_after: int | None = None
    error_after: int | None = None
    error_kind: str = "overloaded_error"

    @_chain
    def text(self, text: str, chunks: int = 1) -> Turn:
        """Assistant text sent in ``chunks`` deltas."""
        self.steps.append(TextStep(text, chunks))
        return self

    @_chain
    def reasoning(self, text: str, chunks: int = 1, signature: str | None = "sig-fake") -> Turn:
        """Reasoning (OpenAI ``reasoning_content``) or thinking with a signature (Anthropic)."""
        self.steps.append(ReasoningStep(text, chunks, signature))
        return self

    @_chain
    def redacted_thinking(self, data: str) -> Turn:
        """An Anthropic ``redacted_thinking`` block (OpenAI streams skip it)."""
        self.steps.append(ReasoningStep("", 1, None, redacted=data))
        return self

    @_chain
    def tool_call(
        self, name: str, arguments: dict[str, Any] | str, fragments: int = 1, id: str | None = None
    ) -> Turn:
        """A tool call whose JSON arguments arrive in ``fragments`` pieces (a str is sent verbatim)."""
        raw = arguments if isinstance(arguments, str) else json.dumps(arguments)
        self.steps.append(ToolCallStep(name, raw, fragments, id))
        return self

    @_chain
    def fault(
        self,
        status: int,
        body: Any = None,
        headers: dict[str, str] | None = None,
        retry_after: str | None = None,
        retry_after_ms: str | None = None,
    ) -> Turn:
        """Answer with an HTTP error instead of a stream."""
        all_headers = dict(headers or {})
        if retry_after is not None:
            all_headers["retry-after"] = retry_after
        if retry_after_ms is not None:
            all_headers["retry-after-ms"] = retry_after_ms
        self.fault_ = Fault(status, body, all_headers)
        return self

    @_chain
    def context_overflow(self) -> Turn:
        """A 400 whose body says the prompt is too long, shaped like the endpoint's real one."""
        self.fault_ = Fault(400, context_overflow=True)
        return self

    def usage(
        self, input: int = 10, output: int = 10, cache_read: int = 0, cache_write: int = 0, reasoning: int = 0
    ) -> Turn:
        """The token counts reported at the end of the stream."""
        self.usage_ = Usage(input, output, cache_read, cache_write, reasoning)
        return self

    def finish(self, reason: str) -> Turn:
        """Override the finish reason: stop | tool-calls | length | content-filter, or a raw wire value."""
        self.finish_ = reason
        return self

    def slow_first_byte(self, delay: Delay) -> Turn:
        """Hold the response headers back for ``delay`` seconds or until the event is set."""
        self.first_byte = delay
        return self

    def stall(self, after: int, until: Delay | None = None) -> Turn:
        """Stop sending after ``after`` stream events, until ``until`` (or until the client leaves)."""
        self.stall_after, self.stall_until = after, until
        return self

    def drop(self, after: int) -> Turn:
        """Close the connection abruptly after ``after`` stream events."""
        self.drop_after = after
        return self

    def malformed(self, after: int) -> Turn:
        """Send a ``data:`` line that is not JSON after ``after`` stream events."""
        self.malformed_after = after
        return self

    def stream_error(self, after: int, kind: str = "overloaded_error") -> Turn:
        """End the stream after ``after`` events with an in-stream error event of type ``kind``."""
        self.error_after, self.error_kind = after, kind
        return self

    def finish_reason(self) -> str:
        """The wire-neutral finish reason of this turn."""
        if self.finish_ is not None:
            return self.finish_
        return "tool-calls" if any(isinstance(s, ToolCallStep) for s in self.steps) else "stop"
