"""Every core event to plugin clients as the notification ``agent/event`` {type, properties}.

One bus subscription for the whole server, drained by one task: the bus never blocks the loop
(it coalesces text deltas when this consumer falls behind), and the order of events is kept.
Text deltas go out at most once per frame (``FRAME``): a fast model streams thousands of deltas a
second, and an editor decodes and schedules every notification on its main loop, so the deltas
that arrive within a frame are merged into one notification per part.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from typing import TYPE_CHECKING

from core.bus import Subscription
from core.events import Event, PartDelta

if TYPE_CHECKING:
    from core.api import Agent
    from lsp_server.server import AgentServer

log = logging.getLogger(__name__)

AGENT_EVENT = "agent/event"
FRAME = 0.016  # seconds: one editor frame


async def forward(server: AgentServer, subscription: Subscription) -> None:
    """Send each event to the connected client while it speaks the agent protocol."""
    loop = asyncio.get_running_loop()
    last_deltas = -FRAME
    with subscription:
        async for event in subscription:
            if isinstance(event, PartDelta) and (wait := last_deltas + FRAME - loop.time()) > 0:
                await asyncio.sleep(wait)  # let the rest of this frame's deltas arrive
            batch = [event]
            while (queued := subscription.get_nowait()) is not None:
                batch.append(queued)
            merged = merge_deltas(batch)
            if any(isinstance(e, PartDelta) for e in merged):
                last_deltas = loop.time()
            if server.connection.plugin:
                for item in merged:
                    server.notify(AGENT_EVENT, item.to_wire())


def merge_deltas(events: list[Event]) -> list[Event]:
    """Join runs of deltas to the same part and field; nothing is dropped or reordered."""
    out: list[Event] = []
    for event in events:
        previous = out[-1] if out else None
        if (
            isinstance(event, PartDelta)
            and isinstance(previous, PartDelta)
            and (previous.partID, previous.field) == (event.partID, event.field)
        ):
            out[-1] = dataclasses.replace(previous, delta=previous.delta + event.delta)
        else:
            out.append(event)
    return out


def register(server: AgentServer) -> None:
    """Start forwarding once the agent is running."""

    def ready(app: Agent) -> None:
        server.spawn(forward(server, app.subscribe()))

    server.app_ready.append(ready)
