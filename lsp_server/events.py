"""Every core event to plugin clients as the notification ``agent/event`` {type, properties}.

One bus subscription for the whole server, drained by one task: the bus never blocks the loop
(it coalesces text deltas when this consumer falls behind), and the order of events is kept.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from core.bus import Subscription

if TYPE_CHECKING:
    from core.app import AgentApp
    from lsp_server.server import AgentServer

log = logging.getLogger(__name__)

AGENT_EVENT = "agent/event"


async def forward(server: AgentServer, subscription: Subscription) -> None:
    """Send each event to the connected client while it speaks the agent protocol."""
    with subscription:
        async for event in subscription:
            if server.connection.plugin:
                server.notify(AGENT_EVENT, event.to_wire())


def register(server: AgentServer) -> None:
    """Start forwarding once the agent is running."""

    def ready(app: AgentApp) -> None:
        server.spawn(forward(server, app.bus.subscribe()))

    server.app_ready.append(ready)
