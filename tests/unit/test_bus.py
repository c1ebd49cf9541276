"""The bus never blocks the publisher; a full queue coalesces deltas and never drops them."""

from __future__ import annotations

import asyncio

from core.bus import Bus
from core.events import PartDelta, PartRemoved, SessionIdle, SessionStatus, SessionStatusInfo


def delta(part: str, text: str, field: str = "text") -> PartDelta:
    return PartDelta(sessionID="ses_1", messageID="msg_1", partID=part, field=field, delta=text)


def drain(sub: object) -> list[object]:
    out = []
    while (event := sub.get_nowait()) is not None:  # type: ignore[attr-defined]
        out.append(event)
    return out


def test_subscribers_filter_by_type_and_session() -> None:
    bus = Bus()
    idle = bus.subscribe(SessionIdle)
    mine = bus.subscribe(session_id="ses_1")
    bus.publish(SessionIdle(sessionID="ses_2"))
    bus.publish(delta("p", "x"))
    assert [type(e) for e in drain(idle)] == [SessionIdle]
    assert [type(e) for e in drain(mine)] == [PartDelta]


def test_full_queue_coalesces_deltas_without_losing_text() -> None:
    bus = Bus()
    sub = bus.subscribe(maxsize=3)
    for i in range(100):
        bus.publish(delta("p1", str(i % 10)))
    events = drain(sub)
    assert len(events) == 3
    assert "".join(e.delta for e in events) == "".join(str(i % 10) for i in range(100))  # type: ignore[attr-defined]
    assert sub.coalesced == 97


def test_a_long_stall_becomes_one_delta_per_part_with_every_piece_in_order() -> None:
    bus = Bus()
    sub = bus.subscribe(maxsize=2)
    pieces = [f"<{i}>" for i in range(20_000)]
    for i, piece in enumerate(pieces):
        bus.publish(delta("p1" if i % 2 else "p2", piece))
    events = drain(sub)
    assert [(e.partID, e.sessionID, e.messageID) for e in events] == [  # type: ignore[attr-defined]
        ("p2", "ses_1", "msg_1"),
        ("p1", "ses_1", "msg_1"),
    ]
    assert [e.delta for e in events] == ["".join(pieces[0::2]), "".join(pieces[1::2])]  # type: ignore[attr-defined]
    assert sub.coalesced == 19_998


def test_coalescing_never_reorders_around_other_events_of_the_part() -> None:
    bus = Bus()
    sub = bus.subscribe(maxsize=2)
    bus.publish(delta("p1", "a"))
    bus.publish(PartRemoved(sessionID="ses_1", messageID="msg_1", partID="p1"))
    bus.publish(delta("p1", "b"))  # must not be merged into "a", before the removal
    bus.publish(delta("p2", "c"))
    assert [getattr(e, "delta", "removed") for e in drain(sub)] == ["a", "removed", "b", "c"]


def test_non_delta_events_are_always_queued() -> None:
    bus = Bus()
    sub = bus.subscribe(maxsize=1)
    for _ in range(5):
        bus.publish(SessionStatus(sessionID="s", status=SessionStatusInfo(type="busy")))
    assert len(drain(sub)) == 5


def test_a_failing_listener_does_not_stop_publishing() -> None:
    bus = Bus()
    seen: list[str] = []

    def broken(_event: object) -> None:
        raise RuntimeError("boom")

    bus.listen(broken)
    bus.listen(lambda e: seen.append(e.TYPE))
    bus.publish(SessionIdle(sessionID="s"))
    assert seen == ["session.idle"]


async def test_wait_for_and_close() -> None:
    bus = Bus()
    loop = asyncio.get_running_loop()
    waiter = asyncio.create_task(bus.wait_for(SessionIdle, lambda e: e.sessionID == "b", timeout=5))
    # Scheduled after the waiter's first step, so it has subscribed when these run.
    loop.call_soon(bus.publish, SessionIdle(sessionID="a"))
    loop.call_soon(bus.publish, SessionIdle(sessionID="b"))
    assert (await waiter).sessionID == "b"
    sub = bus.subscribe()
    reader = asyncio.create_task(anext(sub))
    loop.call_soon(sub.close)
    try:
        await asyncio.wait_for(reader, timeout=5)
    except StopAsyncIteration:
        pass
