"""filter_compacted: the model's view of a history with zero, one and two compactions."""

from __future__ import annotations

from collections.abc import AsyncIterator

from core.context.filter import filter_compacted, filter_compacted_sync, model_view
from core.message.models import MessageError, MessageWithParts

from .history import assistant, compaction_user, ids, turn, user


def newest_first(history: list[MessageWithParts]) -> list[MessageWithParts]:
    return list(reversed(history))


def test_without_compaction_everything_is_kept_oldest_first() -> None:
    history = turn("a") + turn("b")
    assert ids(filter_compacted_sync(newest_first(history))) == ids(history)


def test_compaction_without_tail_keeps_summary_and_what_follows() -> None:
    old = turn("a") + turn("b")
    c = compaction_user(tail_start=None)
    s = assistant(c, text="summary 1", summary=True)
    after = turn("c")
    history = [*old, c, s, *after]
    assert ids(model_view(history)) == ids([c, s, *after])


def test_tail_turns_follow_the_summary() -> None:
    old = turn("a") + turn("b")
    tail = turn("c") + turn("d")
    c = compaction_user(tail_start=tail[0].info.id)
    s = assistant(c, text="summary 1", summary=True)
    cont = user("Continue if you have next steps", synthetic=True)
    after = [cont, assistant(cont, text="continuing")]
    history = [*old, *tail, c, s, *after]
    assert ids(model_view(history)) == ids([c, s, *tail, *after])


def test_second_compaction_replaces_the_first_and_drops_its_pair_from_the_tail() -> None:
    t1 = turn("a") + turn("b") + turn("c")
    c1 = compaction_user(tail_start=t1[2].info.id)  # tail: b, c
    s1 = assistant(c1, text="summary 1", summary=True)
    k1 = user("Continue if you have next steps", synthetic=True)
    a1 = assistant(k1, text="done")
    # The second compaction keeps the last two turns of the view [c1 s1 b c k1]: c and k1.
    c2 = compaction_user(tail_start=t1[4].info.id)
    s2 = assistant(c2, text="summary 2", summary=True)
    later = turn("e")
    history = [*t1, c1, s1, k1, a1, c2, s2, *later]
    assert ids(model_view(history)) == ids([c2, s2, t1[4], t1[5], k1, a1, *later])


def test_unfinished_or_failed_summary_is_not_a_boundary() -> None:
    old = turn("a")
    c = compaction_user()
    running = assistant(c, text="half a summ", summary=True, finished=False)
    history = [*old, c, running]
    assert ids(model_view(history)) == ids(history)

    failed = assistant(c, text="", summary=True)
    failed.info.error = MessageError(name="context-overflow", message="too big")  # type: ignore[union-attr]
    history = [*old, c, failed]
    assert ids(model_view(history)) == ids(history)


def test_message_queued_during_compaction_comes_after_the_summary() -> None:
    tail = turn("a")
    c = compaction_user(tail_start=tail[0].info.id)
    queued = user("also do this")
    s = assistant(c, text="summary", summary=True)
    history = [*tail, c, queued, s]
    assert ids(model_view(history)) == ids([c, s, *tail, queued])


def test_reverted_tail_start_stops_at_its_place() -> None:
    old = turn("a")
    gone = user("reverted")
    kept = assistant(gone, text="kept")
    c = compaction_user(tail_start=gone.info.id)
    s = assistant(c, text="summary", summary=True)
    history = [*old, kept, c, s]  # `gone` was deleted
    assert ids(model_view(history)) == ids([c, s, kept])


async def test_async_stream_stops_reading_at_the_tail_start() -> None:
    old = turn("a") + turn("b")
    tail = turn("c")
    c = compaction_user(tail_start=tail[0].info.id)
    s = assistant(c, text="summary", summary=True)
    history = [*old, *tail, c, s]
    read: list[str] = []

    async def stream() -> AsyncIterator[MessageWithParts]:
        for message in reversed(history):
            read.append(message.info.id)
            yield message

    view = await filter_compacted(stream())
    assert ids(view) == ids([c, s, *tail])
    assert read == ids([s, c, tail[1], tail[0]])  # older messages are never loaded
    assert ids(await filter_compacted(newest_first(history))) == ids(view)
