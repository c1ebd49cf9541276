"""The events a model stream yields, the same whichever provider or decoder produced them."""

from __future__ import annotations

import dataclasses
from typing import Any, cast

from core.message.models import Tokens
from core.record import record


class _Shown:
    """One ``__repr__`` for every stream event, instead of one made for each class at import
    (``repr=False`` below: dataclasses compiles each generated method from source)."""

    __slots__ = ()

    def __repr__(self) -> str:
        shown = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in dataclasses.fields(cast(Any, self)))
        return f"{type(self).__name__}({shown})"


@record(slots=True, repr=False)
class TextStart(_Shown):
    id: str


@record(slots=True, repr=False)
class TextDelta(_Shown):
    id: str
    text: str


@record(slots=True, repr=False)
class TextEnd(_Shown):
    id: str


@record(slots=True, repr=False)
class ReasoningStart(_Shown):
    id: str


@record(slots=True, repr=False)
class ReasoningDelta(_Shown):
    id: str
    text: str


@record(slots=True, repr=False)
class ReasoningEnd(_Shown):
    id: str
    # What must travel back with the reasoning on the next request, e.g.
    # {"anthropic": {"signature": "..."}} or {"anthropic": {"redacted_data": "..."}}.
    metadata: dict[str, Any] | None = None


@record(slots=True, repr=False)
class ToolInputStart(_Shown):
    id: str  # the provider's tool call id
    name: str


@record(slots=True, repr=False)
class ToolInputDelta(_Shown):
    id: str
    delta: str


@record(slots=True, repr=False)
class ToolCall(_Shown):
    """A complete tool call; ``error`` (and ``input`` None) when the arguments are not a JSON object."""

    id: str
    name: str
    input: dict[str, Any] | None
    raw: str
    error: str | None = None


@record(slots=True, repr=False)
class FinishStep(_Shown):
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
