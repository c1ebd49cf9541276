"""One project's events to every front end that opened it, with text deltas merged per frame.

A model streams thousands of deltas a second, and every front end of the project receives every
session's events: forwarded one by one, each delta cost the host a wire dict and a JSON line per
front end (~110 µs of host CPU per delta with ten attached, against ~16 µs for the whole loop) and
each front end as much again to read it. So one listener per project takes the events; the deltas
of a frame (``FRAME``) wait, merged per part and field, and go out together at its end or as soon
as any other event comes, before it, so every front end sees each part's text whole and in order and
every other event after the text that preceded it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, Protocol

from core.events import ConfigUpdated, Event, PartDelta
from core.remote.connection import Connection

FRAME = 0.016  # seconds: the longest a delta waits for others to go out with


class Events(Protocol):
    """Where the events come from: an agent (or its bus)."""

    def listen(self, callback: Callable[[Event], None], *types: type[Event]) -> Callable[[], None]: ...


class Broadcast:
    """Forwards ``agent``'s events to the connections added, as ``event`` notifications."""

    def __init__(
        self,
        handle: str,
        agent: Events,
        facts: Callable[[Connection], dict[str, Any]],
        info: Callable[[Connection, dict[str, Any]], dict[str, Any]],
    ) -> None:
        self._handle = handle
        self._facts = facts  # each front end's (its own model: host/views.py)
        self._info = info  # a ``config.updated``'s properties as each front end sees them
        self._connections: list[Connection] = []
        # (part id, field) -> the first delta and the texts after it, in arrival order
        self._deltas: dict[tuple[str, str], tuple[PartDelta, list[str]]] = {}
        self._timer: asyncio.TimerHandle | None = None
        self.stop = agent.listen(self._on_event)

    def add(self, connection: Connection) -> Callable[[], None]:
        """Send the project's events to ``connection`` from now on; returns the removal."""
        self.flush()  # deltas published before it attached are not its to receive
        self._connections.append(connection)

        def remove() -> None:
            if connection in self._connections:
                self._connections.remove(connection)

        return remove

    def _on_event(self, event: Event) -> None:
        if not self._connections:
            return
        if isinstance(event, PartDelta):
            pending = self._deltas.get((event.partID, event.field))
            if pending is None:
                self._deltas[(event.partID, event.field)] = (event, [event.delta])
            else:
                pending[1].append(event.delta)
            if self._timer is None:
                self._timer = asyncio.get_running_loop().call_later(FRAME, self.flush)
            return
        self.flush()
        if isinstance(event, ConfigUpdated):
            self._config_updated(event)
            return
        self._send(event.to_wire())

    def _config_updated(self, event: ConfigUpdated) -> None:
        """``config.updated`` and the facts after it, each front end's as it sees the config."""
        wire = event.to_wire()
        for connection in list(self._connections):
            mine = {**wire, "properties": self._info(connection, wire["properties"])}
            connection.notify("event", {"project": self._handle, **mine})
            connection.notify("facts", {"project": self._handle, "facts": self._facts(connection)})

    def flush(self) -> None:
        """Send the deltas waiting now, one merged delta per part and field."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        deltas, self._deltas = self._deltas, {}
        for first, texts in deltas.values():
            wire = first.to_wire()
            wire["properties"]["delta"] = "".join(texts)
            self._send(wire)

    def _send(self, wire: dict[str, Any]) -> None:
        self._notify("event", {"project": self._handle, **wire})

    def _notify(self, method: str, params: dict[str, Any]) -> None:
        for connection in list(self._connections):
            connection.notify(method, params)
