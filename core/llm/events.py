"""The events a model stream yields, the same whichever provider or decoder produced them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.message.models import Tokens


@dataclass(frozen=True, slots=True)
class TextStart:
    id: str


@dataclass(frozen=True, slots=True)
class TextDelta:
    id: str
    text: str


@dataclass(frozen=True, slots=True)
class TextEnd:
    id: str


@dataclass(frozen=True, slots=True)
class ReasoningStart:
    id: str


@dataclass(frozen=True, slots=True)
class ReasoningDelta:
    id: str
    text: str


@dataclass(frozen=True, slots=True)
class ReasoningEnd:
    id: str
    # What must travel back with the reasoning on the next request, e.g.
    # {"anthropic": {"signature": "..."}} or {"anthropic": {"redacted_data": "..."}}.
    metadata: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class ToolInputStart:
    id: str  # the provider's tool call id
    name: str


@dataclass(frozen=True, slots=True)
class ToolInputDelta:
    id: str
    delta: str


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A complete tool call; ``error`` (and ``input`` None) when the arguments are not a JSON object."""

    id: str
    name: str
    input: dict[str, Any] | None
    raw: str
    error: str | None = None


@dataclass(frozen=True, slots=True)
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
