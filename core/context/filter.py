"""The part of a session's history the model sees: everything since the last finished compaction.

A compaction is a user message holding a ``CompactionPart`` answered by an assistant message with
``summary: true``. Before the summary was written, the newest ``tail_turns`` turns were chosen to be
kept verbatim; the part records the first of them as ``tailStart``. In storage (id order) they
come before the compaction:

    … older …  [tail: U A U A]  C  S  [after: U A …]

``filter_compacted`` walks the history newest-first, stops at the newest compaction C whose
summary S has finished without error, then keeps reading back only as far as ``tailStart``. It
returns the messages in the order the model must see them — the question, its summary, then the
verbatim tail, then everything that came after the compaction:

    C  S  [tail]  [after]

So the summary introduces the tail instead of following it. The result is therefore not sorted by
id: callers looking for the newest user or assistant message must compare ids, not positions.
Older compaction pairs that fall inside a tail are dropped: the newer summary already contains them.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, Iterable

from core.message.models import AssistantMessage, CompactionPart, MessageWithParts, UserMessage


def compaction_part(message: MessageWithParts) -> CompactionPart | None:
    """The compaction part of a user message, if it is a compaction request."""
    if not isinstance(message.info, UserMessage):
        return None
    return next((p for p in message.parts if isinstance(p, CompactionPart)), None)


def is_finished_summary(message: MessageWithParts) -> bool:
    """An assistant summary that completed without error (a valid compaction boundary)."""
    info = message.info
    return (
        isinstance(info, AssistantMessage) and bool(info.summary) and bool(info.finish) and info.error is None
    )


class _Collector:
    """Consumes a newest-first history one message at a time; ``feed`` says when to stop."""

    def __init__(self) -> None:
        self.after: list[MessageWithParts] = []
        self.tail: list[MessageWithParts] = []
        self.boundary: MessageWithParts | None = None
        self.summary: MessageWithParts | None = None
        self._summaries: dict[str, MessageWithParts] = {}  # parentID → finished summary
        self._tail_start: str | None = None

    def feed(self, message: MessageWithParts) -> bool:
        if self.boundary is not None:
            return self._feed_tail(message)
        part = compaction_part(message)
        if part is not None and message.info.id in self._summaries:
            self.boundary = message
            self.summary = self._summaries[message.info.id]
            self._tail_start = part.tailStart
            return self._tail_start is None
        if is_finished_summary(message):
            assert isinstance(message.info, AssistantMessage)
            self._summaries.setdefault(message.info.parentID, message)
        self.after.append(message)
        return False

    def _feed_tail(self, message: MessageWithParts) -> bool:
        assert self._tail_start is not None
        if message.info.id < self._tail_start:
            return True  # the tail's first message is gone (reverted): stop where it would have been
        if compaction_part(message) is None and not (
            isinstance(message.info, AssistantMessage) and message.info.summary
        ):
            self.tail.append(message)
        return message.info.id == self._tail_start

    def result(self) -> list[MessageWithParts]:
        if self.boundary is None or self.summary is None:
            return list(reversed(self.after))
        summary_id = self.summary.info.id
        after = [m for m in reversed(self.after) if m.info.id != summary_id]
        return [self.boundary, self.summary, *reversed(self.tail), *after]


def filter_compacted_sync(newest_first: Iterable[MessageWithParts]) -> list[MessageWithParts]:
    """``filter_compacted`` over an in-memory newest-first history."""
    collector = _Collector()
    for message in newest_first:
        if collector.feed(message):
            break
    return collector.result()


async def filter_compacted(
    newest_first: Iterable[MessageWithParts] | AsyncIterable[MessageWithParts],
) -> list[MessageWithParts]:
    """The model's view of a newest-first history (see the module docstring for the order)."""
    if not isinstance(newest_first, AsyncIterable):
        return filter_compacted_sync(newest_first)
    collector = _Collector()
    async for message in newest_first:
        if collector.feed(message):
            break
    return collector.result()


def model_view(history_oldest_first: list[MessageWithParts]) -> list[MessageWithParts]:
    """The model's view of an oldest-first history (``Sessions.messages`` order)."""
    return filter_compacted_sync(reversed(history_oldest_first))
