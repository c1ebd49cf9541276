"""The events a model stream yields, the same whichever provider or decoder produced them.

The deltas are made for every chunk of a stream, so their methods are the ones ``dataclasses``
generates (see ``core.record``'s ``generated``); the rest, made once per part or step, share the
records' methods."""

from __future__ import annotations

from typing import Any

from core.message.models import Tokens
from core.record import record


@record(slots=True)
class TextStart:
    id: str


@record(slots=True, generated=True)
class TextDelta:
    id: str
    text: str


@record(slots=True)
class TextEnd:
    id: str


@record(slots=True)
class ReasoningStart:
    id: str


@record(slots=True, generated=True)
class ReasoningDelta:
    id: str
    text: str


@record(slots=True)
class ReasoningEnd:
    id: str
    # What must travel back with the reasoning on the next request, e.g.
    # {"anthropic": {"signature": "..."}} or {"anthropic": {"redacted_data": "..."}}.
    metadata: dict[str, Any] | None = None


@record(slots=True)
class ToolInputStart:
    id: str  # the provider's tool call id
    name: str


@record(slots=True, generated=True)
class ToolInputDelta:
    id: str
    delta: str


@record(slots=True)
class ToolCall:
    """A complete tool call; ``error`` (and ``input`` None) when the arguments are not a JSON object."""

    id: str
    name: str
    input: dict[str, Any] | None
    raw: str
    error: str | None = None


@record(slots=True)
class FinishStep:
    """The end of one model step: reason is stop | tool-calls | length | content-filter | unknown."""

    reason: str
    tokens: Tokens
    cost: float


StreamEvent = (
    TextStart
    | TextDelta
    | TextEnd
    | ReasoningStart
    | ReasoningDelta
    | ReasoningEnd
    | ToolInputStart
    | ToolInputDelta
    | ToolCall
    | FinishStep
)
