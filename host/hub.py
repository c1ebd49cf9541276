"""What the host's connections share: the agents, who is attached, what runs, and when to stop."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core import __version__
from core.events import SessionWatchers
from core.remote.place import environment_digest
from core.remote.wire import PROTOCOL
from host.projects import Projects
from host.watchers import Notice, Watchers

if TYPE_CHECKING:
    from host.front_end import FrontEnd


_ANSWERS_KEPT = 256


class Hub:
    """The host's shared state; ``idle`` is set whenever nothing is attached and nothing runs."""

    def __init__(self, data_dir: Path, idle_s: float) -> None:
        self.data_dir = data_dir
        self.idle_s = idle_s
        self.projects = Projects(data_dir)
        self.front_ends: set[FrontEnd] = set()
        self.connections: dict[FrontEnd, asyncio.Future[None]] = {}  # every connection, attached or not
        self.relays: set[Any] = set()  # the relayed sessions running here (host/relays.py)
        self.calls: set[asyncio.Task[Any]] = set()  # the agents' async calls running (turns among them)
        self.stopping = asyncio.Event()
        self.changed = asyncio.Event()  # attach, detach, a call ended: the idle clock looks again
        self.replaced = False  # a newer agentls asked: stop at the next idle moment
        self.version = __version__
        self.protocol = PROTOCOL
        self.environment = environment_digest()
        self.started = time.time()
        self.tcp: dict[str, str] | None = None  # --tcp: {address, token (where it is kept)}
        self.watchers: Watchers[FrontEnd] = Watchers(lambda front: front.name)
        # Which front end answered a dialog, for a turn the host renders itself (host/runs.py):
        # its events do not say. The latest few; a run takes its entry when the answer reaches it.
        self.answered_by: dict[str, str] = {}

    def busy(self) -> bool:
        """Whether a front end is attached or an agent's call still runs."""
        return bool(self.front_ends or self.relays) or any(not task.done() for task in self.calls)

    def track(self, task: asyncio.Task[Any]) -> None:
        """Count an agent call as running until it ends."""
        self.calls.add(task)

        def ended(done: asyncio.Task[Any]) -> None:
            self.calls.discard(done)
            self.changed.set()

        task.add_done_callback(ended)

    def status(self) -> dict[str, Any]:
        """The answer to ``status``: who the host is, who is attached, what it has open."""
        return {
            "pid": os.getpid(),
            "version": self.version,
            "protocol": self.protocol,
            "dataDir": str(self.data_dir),
            "uptime": round(time.time() - self.started, 1),
            "idleExit": self.idle_s,
            "running": sum(1 for task in self.calls if not task.done()),
            "tcp": self.tcp,
            "clients": sorted(front.name for front in self.front_ends if not front.control),
            "relays": sorted(f"{relay.kind} (pid {relay.pid})" for relay in self.relays),
            "projects": [
                {"handle": p.handle, "directory": str(p.agent.directory), "lenders": p.lenders.described()}
                for p in self.projects.by_handle.values()
            ],
        }

    def answered(self, request_id: str, client: str) -> None:
        """Remember that ``client`` answers the dialog ``request_id``."""
        self.answered_by[request_id] = client
        while len(self.answered_by) > _ANSWERS_KEPT:
            del self.answered_by[next(iter(self.answered_by))]

    def others(self, front: FrontEnd, handle: str) -> list[FrontEnd]:
        """The other front ends that opened project ``handle``."""
        return [other for other in self.front_ends if other is not front and handle in other.listening]

    def tell(self, notices: list[Notice[FrontEnd]]) -> None:
        """Send each front end who else shows its sessions now (``session.watchers``)."""
        for notice in notices:
            wire = SessionWatchers(sessionID=notice.session, clients=notice.clients).to_wire()
            notice.front.conn.notify("event", {"project": notice.project, **wire})
