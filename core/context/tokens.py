"""Token counts for estimates, budgets and the pre-flight check.

Provider-reported usage stays the source of truth for overflow; these counts decide what to do
before a request is sent. Counts are cached so that a long session is not re-tokenised on every
step: per part, keyed by the part id and a cheap version of its content, and per long string,
keyed by its length and hash (for request dicts, which carry no ids).

Part counts also outlive the process: ``take_fresh`` hands over the counts made since the last
call, as JSON the store keeps beside each part, and ``seed`` gives them to the counter of a new
process, so that the first request after a restart does not re-tokenise a long session. A stored
count is trusted only for the same encoding and the same content (a deterministic fingerprint).
"""

from __future__ import annotations

import json
import math
import threading
import zlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, NamedTuple, Protocol

from core.context.encoding import DEFAULT_LOADER, Encoder, EncodingLoader, encoding_name_for
from core.message.models import (
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
    """A dict that forgets its oldest half when full (counts are cheap to recompute).

    Filled from the event loop and from the thread a long history is counted in: single reads and
    writes are atomic, the forgetting is locked (two threads must not delete the same keys)."""

    def __init__(self, capacity: int) -> None:
        self._data: dict[Any, int] = {}
        self._capacity = capacity
        self._lock = threading.Lock()

    def get(self, key: Any) -> int | None:
        return self._data.get(key)

    def put(self, key: Any, value: int) -> None:
        if len(self._data) >= self._capacity:
            with self._lock:
                for old in list(self._data)[: self._capacity // 2]:
                    self._data.pop(old, None)
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
        self._loader = loader
        self._encoder: Encoder | None = None
        self._loaded = False
        self._parts = _BoundedCache(cache_size)
        self._texts = _BoundedCache(cache_size)
        self._stored: dict[str, _Stored] = {}  # part id → a count made by an earlier process
        self._fresh: dict[str, str] = {}  # part id → a count to store (JSON)

    @classmethod
    def for_model(cls, model: ModelLike, *, loader: EncodingLoader = DEFAULT_LOADER) -> TokenCounter:
        """A counter for a model; the litellm model string is preferred when it is known."""
        name = getattr(model, "api_model", None) or model.model_id
        return cls(encoding_name_for(str(name)), loader=loader)

    @property
    def exact(self) -> bool:
        """False when counts are the chars/4 estimate."""
        return self._get_encoder() is not None

    def _get_encoder(self) -> Encoder | None:
        # Loaded at the first real count, not with the counter: the tables take ~0.3 s to load, and
        # a short session's pre-flight check never needs them (see estimate_request's upper_bound).
        if not self._loaded:
            self._encoder = self._loader.get(self.encoding)
            self._loaded = True
        return self._encoder

    def _encode_count(self, text: str) -> int:
        if not text:
            return 0
        encoder = self._get_encoder()
        if encoder is None:
            return math.ceil(len(text) / 4)
        return len(encoder.encode_ordinary(text))

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

    @property
    def tag(self) -> str:
        """What stored counts are tagged with: the encoding, or the estimate when none loaded."""
        return self.encoding if self.exact else "chars/4"

    def seed(self, stored: Mapping[str, str]) -> None:
        """Counts an earlier process stored (part id → JSON from ``take_fresh``); others are ignored."""
        for part_id, raw in stored.items():
            try:
                entry = json.loads(raw)
                if entry.get("enc") != self.tag:
                    continue
                out = entry.get("out")
                self._stored[part_id] = _Stored(
                    str(entry["key"]), int(entry["n"]), None if out is None else int(out)
                )
            except (ValueError, TypeError, KeyError, AttributeError):
                continue  # a damaged cache entry only costs a recount

    def take_fresh(self) -> dict[str, str]:
        """The counts made since the last call, as part id → JSON for the store; then forgets them."""
        fresh, self._fresh = self._fresh, {}
        return fresh

    def count_part(self, part: AnyPart) -> int:
        """Tokens a part adds to a request, as convert renders it."""
        key = _part_key(part)
        if key is None:
            return 0
        cached = self._parts.get(key)
        if cached is None:
            stored = self._stored_entry(part)
            if stored is not None:
                cached = stored.n
            else:
                cached = self._count_part_uncached(part)
                self._remember(part, cached)
            self._parts.put(key, cached)
        return cached

    def _stored_entry(self, part: AnyPart) -> _Stored | None:
        entry = self._stored.get(part.id)
        if entry is None or entry.key != _stable_key(part):
            return None
        return entry

    def _remember(self, part: AnyPart, tokens: int) -> None:
        stable = _stable_key(part)
        if stable is None:
            return
        entry: dict[str, Any] = {"enc": self.tag, "key": stable, "n": tokens}
        if isinstance(part, ToolPart) and part.state.status == "completed" and not part.state.time.compacted:
            entry["out"] = self.count_output(part)
        self._fresh[part.id] = json.dumps(entry, separators=(",", ":"))

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
            stored = self._stored_entry(part)
            if stored is not None and stored.out is not None:
                cached = stored.out
            else:
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
        *,
        upper_bound: bool = False,
    ) -> int:
        """Tokens of a whole request in OpenAI chat format, for the pre-flight check.

        With ``upper_bound``, texts count as their UTF-8 bytes, which no count here exceeds (a
        byte-level BPE token covers at least one byte; chars/4 is less): cheap, and enough to
        show that a request fits without loading an encoding.
        """
        count = _utf8_bytes if upper_bound else self.count_text
        total = REQUEST_OVERHEAD + sum(MESSAGE_OVERHEAD + count(s) for s in system)
        for message in messages:
            total += MESSAGE_OVERHEAD + self._count_content(message.get("content"), count)
            for call in message.get("tool_calls") or ():
                function = call.get("function") or {}
                total += TOOL_CALL_OVERHEAD + count(str(function.get("name", "")))
                total += count(str(function.get("arguments", "")))
        for tool in tools:
            total += count(json.dumps(tool, sort_keys=True, default=str))
        return total

    def _count_content(self, content: Any, count: Callable[[str], int]) -> int:
        if content is None:
            return 0
        if isinstance(content, str):
            return count(content)
        total = 0
        for item in content:
            kind = item.get("type")
            if kind == "text":
                total += count(str(item.get("text", "")))
            elif kind == "image_url":
                total += IMAGE_TOKENS
            else:
                total += count(json.dumps(item, default=str))
        return total


def _utf8_bytes(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


class _Stored(NamedTuple):
    key: str  # _stable_key of the part when it was counted
    n: int  # count_part
    out: int | None  # count_output of a completed tool part


def _stable_key(part: AnyPart) -> str | None:
    """A fingerprint of what a part's count depends on, the same in every process (None: not kept)."""
    if isinstance(part, TextPart | ReasoningPart):
        data = part.text.encode("utf-8", "surrogatepass")
        return f"{part.type}:{len(part.text)}:{zlib.crc32(data)}"
    if isinstance(part, ToolPart):
        state = part.state
        if state.status == "completed":
            # As in _part_key: a completed state is written once; only the prune mark changes.
            return f"completed:{len(state.output)}:{int(bool(state.time.compacted))}"
        if state.status == "error":
            return f"error:{len(state.error)}"
        return None  # still changing
    return None  # files, agents, subtasks: counted without tokenising much


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
