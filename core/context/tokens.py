"""Token counts for estimates, budgets and the pre-flight check.

Provider-reported usage stays the source of truth for overflow; these counts decide what to do
before a request is sent. Counts are cached so that a long session is not re-tokenised on every
step: per part, keyed by the part id and a cheap version of its content, and per long string,
keyed by its length and hash (for request dicts, which carry no ids).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

from core.context.encoding import DEFAULT_LOADER, Encoder, EncodingLoader, encoding_name_for
from core.session.models import (
    AgentPart,
    AnyPart,
    FilePart,
    MessageWithParts,
    ReasoningPart,
    SubtaskPart,
    TextPart,
    ToolPart,
)

# What convert sends instead of a pruned output; counted in its place.
CLEARED_OUTPUT = "[Old tool result content cleared]"
# Rough provider figures: a message's role and separators, a tool call's id/name framing, and an
# image (about one megapixel) whose real cost depends on its size and the provider.
MESSAGE_OVERHEAD = 4
TOOL_CALL_OVERHEAD = 10
IMAGE_TOKENS = 1_600
REQUEST_OVERHEAD = 3
# Strings shorter than this are tokenised directly: hashing them costs about as much.
_TEXT_CACHE_MIN = 256


class ModelLike(Protocol):
    """What the counter needs of ``core.llm.ModelInfo``."""

    @property
    def model_id(self) -> str: ...


class _BoundedCache:
    """A dict that forgets its oldest half when full (counts are cheap to recompute)."""

    def __init__(self, capacity: int) -> None:
        self._data: dict[Any, int] = {}
        self._capacity = capacity

    def get(self, key: Any) -> int | None:
        return self._data.get(key)

    def put(self, key: Any, value: int) -> None:
        if len(self._data) >= self._capacity:
            for old in list(self._data)[: self._capacity // 2]:
                del self._data[old]
        self._data[key] = value

    def __len__(self) -> int:
        return len(self._data)


class TokenCounter:
    """Counts tokens with the model family's encoding, or chars/4 when none can load."""

    def __init__(
        self,
        encoding: str = "cl100k_base",
        *,
        loader: EncodingLoader = DEFAULT_LOADER,
        cache_size: int = 200_000,
    ) -> None:
        self.encoding = encoding
        self._encoder: Encoder | None = loader.get(encoding)
        self._parts = _BoundedCache(cache_size)
        self._texts = _BoundedCache(cache_size)

    @classmethod
    def for_model(cls, model: ModelLike, *, loader: EncodingLoader = DEFAULT_LOADER) -> TokenCounter:
        """A counter for a model; the litellm model string is preferred when it is known."""
        name = getattr(model, "api_model", None) or model.model_id
        return cls(encoding_name_for(str(name)), loader=loader)

    @property
    def exact(self) -> bool:
        """False when counts are the chars/4 estimate."""
        return self._encoder is not None

    def _encode_count(self, text: str) -> int:
        if not text:
            return 0
        if self._encoder is None:
            return math.ceil(len(text) / 4)
        return len(self._encoder.encode_ordinary(text))

    def count_text(self, text: str) -> int:
        """Tokens in a string; long strings are cached by content."""
        if len(text) < _TEXT_CACHE_MIN:
            return self._encode_count(text)
        key = (len(text), hash(text))
        cached = self._texts.get(key)
        if cached is None:
            cached = self._encode_count(text)
            self._texts.put(key, cached)
        return cached

    def count_part(self, part: AnyPart) -> int:
        """Tokens a part adds to a request, as convert renders it."""
        key = _part_key(part)
        if key is None:
            return 0
        cached = self._parts.get(key)
        if cached is None:
            cached = self._count_part_uncached(part)
            self._parts.put(key, cached)
        return cached

    def _count_part_uncached(self, part: AnyPart) -> int:
        # Through count_text, so that the same strings met again in a converted request (tool
        # outputs, long texts) are found in the content cache instead of being tokenised twice.
        if isinstance(part, TextPart | ReasoningPart):
            return self.count_text(part.text)
        if isinstance(part, FilePart):
            return IMAGE_TOKENS if part.mime.startswith("image/") else 0
        if isinstance(part, SubtaskPart):
            return self.count_text(part.prompt)
        if isinstance(part, AgentPart):
            return self.count_text(part.name)
        if isinstance(part, ToolPart):
            state = part.state
            tokens = TOOL_CALL_OVERHEAD + self.count_text(part.tool)
            tokens += self.count_text(json.dumps(state.input))
            if state.status == "completed":
                if state.time.compacted:
                    tokens += self.count_text(CLEARED_OUTPUT)
                else:
                    tokens += self.count_output(part)
                    images = [a for a in state.attachments or [] if a.mime.startswith("image/")]
                    tokens += IMAGE_TOKENS * len(images)
            elif state.status == "error":
                tokens += self.count_text(state.error)
            return tokens
        return 0

    def count_output(self, part: ToolPart) -> int:
        """Tokens of a completed tool part's output as stored (what pruning would free)."""
        if part.state.status != "completed":
            return 0
        key = (part.id, "output", len(part.state.output))
        cached = self._parts.get(key)
        if cached is None:
            cached = self.count_text(part.state.output)
            self._parts.put(key, cached)
        return cached

    def count_message(self, message: MessageWithParts) -> int:
        """Tokens of one message with its parts."""
        return MESSAGE_OVERHEAD + sum(self.count_part(p) for p in message.parts)

    def count_messages(self, messages: Iterable[MessageWithParts]) -> int:
        """Tokens of a history as the model would see it."""
        return sum(self.count_message(m) for m in messages)

    def estimate_request(
        self,
        system: Sequence[str],
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]],
    ) -> int:
        """Tokens of a whole request in OpenAI chat format, for the pre-flight check."""
        total = REQUEST_OVERHEAD + sum(MESSAGE_OVERHEAD + self.count_text(s) for s in system)
        for message in messages:
            total += MESSAGE_OVERHEAD + self._count_content(message.get("content"))
            for call in message.get("tool_calls") or ():
                function = call.get("function") or {}
                total += TOOL_CALL_OVERHEAD + self.count_text(str(function.get("name", "")))
                total += self.count_text(str(function.get("arguments", "")))
        for tool in tools:
            total += self.count_text(json.dumps(tool, sort_keys=True, default=str))
        return total

    def _count_content(self, content: Any) -> int:
        if content is None:
            return 0
        if isinstance(content, str):
            return self.count_text(content)
        total = 0
        for item in content:
            kind = item.get("type")
            if kind == "text":
                total += self.count_text(str(item.get("text", "")))
            elif kind == "image_url":
                total += IMAGE_TOKENS
            else:
                total += self.count_text(json.dumps(item, default=str))
        return total


def _part_key(part: AnyPart) -> tuple[Any, ...] | None:
    """The cache key of a part's count, or None for parts the model never sees."""
    if isinstance(part, TextPart | ReasoningPart):
        if isinstance(part, TextPart) and part.ignored:
            return None
        # Text grows while it streams, so its version is its content.
        return (part.id, len(part.text), hash(part.text))
    if isinstance(part, ToolPart):
        state = part.state
        if state.status == "completed":
            # A completed state is written once; only the prune mark changes afterwards, so the
            # output need not be hashed (it is the bulk of a long session).
            return (part.id, "completed", len(state.output), state.time.compacted is not None)
        if state.status == "error":
            return (part.id, "error", len(state.error))
        return (part.id, state.status, len(json.dumps(state.input)))
    if isinstance(part, FilePart | SubtaskPart | AgentPart):
        return (part.id, part.type)
    return None
