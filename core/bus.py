"""In-process event bus: publish never blocks, every subscriber has its own bounded queue.

A subscriber that falls behind never slows the loop. When its queue is full, a new
``message.part.delta`` is merged into a pending delta of the same part and field (so no text is
lost, it arrives in bigger pieces); every other event is always queued, because it is rare and
each one carries state the client needs. A merged delta keeps its pieces and joins them when it is
taken: appending each one to a string copied all of it, quadratic in how long the consumer stalls.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections import deque
from collections.abc import AsyncIterator, Callable
from typing import TypeVar

from core.events import Event, PartDelta, PartRemoved, PartUpdated

log = logging.getLogger(__name__)

E = TypeVar("E", bound=Event)
Listener = Callable[[Event], None]

DEFAULT_QUEUE_SIZE = 1024


class _Merged:
    """Deltas of one part and field merged in a full queue; the event is made when taken."""

    __slots__ = ("first", "pieces")

    def __init__(self, first: PartDelta) -> None:
        self.first = first
        self.pieces = [first.delta]

    def event(self) -> PartDelta:
        return dataclasses.replace(self.first, delta="".join(self.pieces))


def _touches_part(event: Event, part_id: str) -> bool:
    if isinstance(event, PartDelta | PartRemoved):
        return event.partID == part_id
    if isinstance(event, PartUpdated):
        return event.part.id == part_id
    return False


class Subscription:
    """A queue of events for one consumer; iterate it with ``async for`` or call ``get``."""

    def __init__(
        self,
        bus: Bus,
        types: frozenset[str] | None,
        session_id: str | None,
        maxsize: int,
    ) -> None:
        self._bus = bus
        self._types = types
        self._session_id = session_id
        self._maxsize = maxsize
        self._queue: deque[Event | _Merged] = deque()
        self._ready = asyncio.Event()
        self._closed = False
        self.coalesced = 0

    def wants(self, event: Event) -> bool:
        """Whether this subscription takes the event (by type and session)."""
        if self._types is not None and event.TYPE not in self._types:
            return False
        return self._session_id is None or event.session_id() in (self._session_id, None)

    def offer(self, event: Event) -> None:
        """Queue an event without blocking; coalesce deltas when the queue is full."""
        if self._closed:
            return
        full = len(self._queue) >= self._maxsize
        if full and isinstance(event, PartDelta) and self._coalesce(event):
            self.coalesced += 1
            return
        self._queue.append(event)
        self._ready.set()

    def _coalesce(self, event: PartDelta) -> bool:
        # Merge into the newest pending delta of the same part and field, unless something
        # about that part was queued after it (merging would reorder text around it).
        for index in range(len(self._queue) - 1, -1, -1):
            pending = self._queue[index]
            delta = pending.first if isinstance(pending, _Merged) else pending
            if isinstance(delta, PartDelta) and delta.partID == event.partID:
                if delta.field != event.field:
                    return False
                if isinstance(pending, _Merged):
                    pending.pieces.append(event.delta)
                else:
                    merged = self._queue[index] = _Merged(delta)
                    merged.pieces.append(event.delta)
                return True
            if _touches_part(delta, event.partID):
                return False
        return False

    def _take(self) -> Event:
        item = self._queue.popleft()
        return item.event() if isinstance(item, _Merged) else item

    def get_nowait(self) -> Event | None:
        """The next queued event, or None."""
        if self._queue:
            return self._take()
        self._ready.clear()
        return None

    async def get(self) -> Event:
        """Wait for the next event."""
        while not self._queue:
            if self._closed:
                raise StopAsyncIteration
            self._ready.clear()
            await self._ready.wait()
        return self._take()

    def pending(self) -> int:
        """How many events wait in the queue."""
        return len(self._queue)

    def close(self) -> None:
        """Stop receiving; a consumer blocked in ``get`` ends its iteration."""
        self._closed = True
        self._bus._remove(self)
        self._ready.set()

    def __aiter__(self) -> AsyncIterator[Event]:
        return self

    async def __anext__(self) -> Event:
        return await self.get()

    def __enter__(self) -> Subscription:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Bus:
    """Publish/subscribe for core events. One bus per running agent instance."""

    def __init__(self) -> None:
        self._subs: list[Subscription] = []
        self._listeners: list[tuple[frozenset[str] | None, Listener]] = []

    def subscribe(
        self,
        *types: type[Event],
        session_id: str | None = None,
        maxsize: int = DEFAULT_QUEUE_SIZE,
    ) -> Subscription:
        """A queue of the given event types (all types when none are given)."""
        names = frozenset(t.TYPE for t in types) if types else None
        sub = Subscription(self, names, session_id, maxsize)
        self._subs.append(sub)
        return sub

    def listen(self, callback: Listener, *types: type[Event]) -> Callable[[], None]:
        """Call ``callback`` synchronously on publish (must be quick); returns the unsubscribe."""
        entry = (frozenset(t.TYPE for t in types) if types else None, callback)
        self._listeners.append(entry)

        def remove() -> None:
            if entry in self._listeners:
                self._listeners.remove(entry)

        return remove

    def publish(self, event: Event) -> None:
        """Deliver an event to every subscriber; never blocks, never raises."""
        for names, callback in list(self._listeners):
            if names is None or event.TYPE in names:
                try:
                    callback(event)
                except Exception:  # a broken listener must not break the publisher
                    log.exception("event listener failed on %s", event.TYPE)
        for sub in list(self._subs):
            if sub.wants(event):
                sub.offer(event)

    async def wait_for(
        self,
        event_type: type[E],
        predicate: Callable[[E], bool] = lambda _e: True,
        timeout: float | None = None,
    ) -> E:
        """Wait for the next event of a type that satisfies ``predicate``."""
        with self.subscribe(event_type) as sub:
            async with asyncio.timeout(timeout):
                async for event in sub:
                    if isinstance(event, event_type) and predicate(event):
                        return event
        raise RuntimeError("subscription closed")  # pragma: no cover - close() is ours

    def _remove(self, sub: Subscription) -> None:
        if sub in self._subs:
            self._subs.remove(sub)
