"""Abort stops a stream promptly wherever it is waiting, on every route."""

from __future__ import annotations

import asyncio

import pytest

from core.errors import AbortedError
from core.llm.events import StreamEvent, TextDelta
from core.llm.stream import stream
from demo import FakeModelServer, Turn
from tests.ticks import next_tick
from tests.unit.llm.conftest import ROUTE_IDS, ROUTES, collect, model_for, request_for

pytestmark = pytest.mark.parametrize(("protocol", "route"), ROUTES, ids=ROUTE_IDS)

# The streams below stall until the client leaves: an abort that does not work waits forever, so a
# bound is all the test needs, and a generous one (the machine may be loaded: speed is bench/'s).
ABORT_BOUND = 15
# Until the first delta: in a fresh process the litellm route imports litellm first (seconds; over
# ten at load 18, which failed this test alone while the abort itself was fine).
FIRST_BOUND = 60


async def _consume(
    srv: FakeModelServer, protocol: str, route: str, abort: asyncio.Event, first: asyncio.Event
) -> list[StreamEvent]:
    seen: list[StreamEvent] = []
    try:
        async for event in stream(request_for(model_for(srv, protocol, route)), abort):
            seen.append(event)
            if isinstance(event, TextDelta):
                first.set()
    except AbortedError:
        task = asyncio.current_task()
        assert task is not None and task.cancelling() == 0  # the guard took its cancellation back
        await next_tick()  # and the task can keep awaiting
        raise
    return seen


async def test_abort_mid_stream_returns(srv: FakeModelServer, protocol: str, route: str) -> None:
    srv.script(Turn.text("Hello there, world", chunks=10).stall(after=5))  # stalls until the client leaves
    abort, first = asyncio.Event(), asyncio.Event()
    consumer = asyncio.create_task(_consume(srv, protocol, route, abort, first))
    async with asyncio.timeout(FIRST_BOUND):
        await first.wait()
    abort.set()
    async with asyncio.timeout(ABORT_BOUND):
        with pytest.raises(AbortedError):
            await consumer


async def test_abort_while_waiting_for_the_first_byte(
    srv: FakeModelServer, protocol: str, route: str
) -> None:
    never = asyncio.Event()
    srv.script(Turn.text("late").slow_first_byte(never))
    abort, first = asyncio.Event(), asyncio.Event()
    consumer = asyncio.create_task(_consume(srv, protocol, route, abort, first))
    await srv.wait_for_requests(1, timeout=20)
    abort.set()
    async with asyncio.timeout(ABORT_BOUND):
        with pytest.raises(AbortedError):
            await consumer
    never.set()


async def test_abort_between_events_stops_at_the_next_one(
    srv: FakeModelServer, protocol: str, route: str
) -> None:
    srv.script(Turn.text("one two three four", chunks=4))
    abort = asyncio.Event()
    seen: list[StreamEvent] = []
    with pytest.raises(AbortedError):
        async for event in stream(request_for(model_for(srv, protocol, route)), abort):
            seen.append(event)
            abort.set()
    assert len(seen) == 1


async def test_an_aborted_request_is_never_sent(srv: FakeModelServer, protocol: str, route: str) -> None:
    abort = asyncio.Event()
    abort.set()
    with pytest.raises(AbortedError):
        await collect(request_for(model_for(srv, protocol, route)), abort)
    assert srv.requests == []


async def test_cancelling_the_consumer_is_a_cancellation_not_an_abort(
    srv: FakeModelServer, protocol: str, route: str
) -> None:
    srv.script(Turn.text("Hello there, world", chunks=10).stall(after=5))
    abort, first = asyncio.Event(), asyncio.Event()
    consumer = asyncio.create_task(_consume(srv, protocol, route, abort, first))
    async with asyncio.timeout(FIRST_BOUND):
        await first.wait()
    consumer.cancel()
    with pytest.raises(asyncio.CancelledError):
        await consumer
