"""When the agent host dies under an attached front end (killed, crashed): say so once, start a new
host and go on with the same ``RemoteAgent``.

The front end's subscriptions are on the ``RemoteAgent``'s own bus, so they outlive the
connection: what changes is the connection under it. On the loss, the calls that were waiting fail
with ``ConnectionLost`` (the connection does that), and the front end's clients are told what the
host can no longer tell them: the turns it ran are over (``session.status`` idle), its dialogs went
away unanswered, and one ``agent.warning`` (kind ``host``) per session whose turn was cut off says
why. Then a new host is started — or, when another front end started one first, the data dir's lock
lets only one run and this one attaches to it — the project is opened there again with what this
front end lends (its buffers, editor, terminal), and the dead host's turns are marked interrupted
in the store (``Agent.mark_interrupted``): the editors kept the store open, so no crash recovery
ran. A host over TCP (on another machine) is not restarted: the loss is told, and then the
``fallback``. When no host can be reached the front end's ``fallback`` runs (`agentls serve` and
`agentls acp` open the agent in their own process); without one the clients are told and the calls
fail.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

from core.config.loader import Layer
from core.events import (
    AgentWarning,
    Event,
    PermissionReplied,
    PlanReviewCancelled,
    QuestionRejected,
    SessionIdle,
    SessionStatus,
    SessionStatusInfo,
)
from core.remote.agent import RemoteAgent
from core.remote.attach import AttachError, NoHost, Opened, open_on_host
from core.remote.lend import Lend
from core.remote.tcp import TcpHost

log = logging.getLogger(__name__)

ATTEMPTS = 5  # a host another front end just started may not listen yet: try again, a little later
FIRST_WAIT_S = 0.2

# What a front end does when no host can be reached: it opens the agent in its own process (told why).
Fallback = Callable[[str], Awaitable[None]]


class Reattach:
    """Watches one ``RemoteAgent``'s connection and reattaches it when its host dies."""

    def __init__(
        self,
        agent: RemoteAgent,
        directory: Path,
        *,
        layers: Sequence[Layer],
        data_dir: Path,
        client: str,
        lend: Lend | None,
        fallback: Fallback | None = None,
        tcp: TcpHost | None = None,
    ) -> None:
        self._agent = agent
        self._directory = directory
        self._layers = tuple(layers)
        self._data_dir = data_dir
        self._client = client
        self._lend = lend
        self._fallback = fallback
        self._tcp = tcp  # a host over TCP runs on another machine: it cannot be restarted from here
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Watch from now on (until the agent is closed)."""
        self._task = asyncio.create_task(self._watch())
        self._agent.on_close.append(self.stop)

    async def stop(self) -> None:
        """Stop watching (the front end closed the agent)."""
        if self._task is not None and self._task is not asyncio.current_task():
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    async def _watch(self) -> None:
        agent = self._agent
        while True:
            await agent.lost.wait()
            if agent.closing:
                return
            dead_pid, reason = agent.host_pid, agent.lost_reason
            busy = sorted(agent.mirror.busy)
            agent.reattaching = asyncio.get_running_loop().create_future()
            gave_up: str | None = None
            try:
                self._lost(dead_pid, reason, busy)
                try:
                    if self._tcp is not None:
                        raise AttachError(f"a host at {self._tcp} is not started from this machine")
                    opened = await self._open_again()
                except AttachError as exc:
                    gave_up = str(exc)
                else:
                    if agent.closing:
                        opened.conn.close()
                        return
                    agent.reattached(opened.conn, opened.answer, opened.host_pid)
                    opened.agents.append(agent)
            finally:
                agent.reattaching.set_result(None)
                agent.reattaching = None
            if gave_up is not None:
                await self._gave_up(gave_up)
                return
            log.warning(
                "reattached %s to the agent host (pid %s) after pid %s stopped",
                self._directory,
                opened.host_pid,
                dead_pid,
            )
            if self._lend is not None:
                agent.lent_changed()  # what the editor opened meanwhile
            if busy:
                try:
                    await agent.mark_interrupted(busy)
                except Exception as exc:  # the session still works; its last turn shows unfinished
                    log.warning("the interrupted turns of %s could not be marked: %s", busy, exc)

    def _lost(self, pid: int, reason: str, busy: list[str]) -> None:
        """Tell this front end's clients what the dead host can no longer tell them."""
        agent = self._agent
        if self._tcp is None:
            text = f"the agent host (pid {pid}) stopped ({reason}); starting a new one and attaching again"
        else:
            text = f"the agent host at {self._tcp} (pid {pid}) stopped ({reason})"
        log.warning("%s: %s", self._directory, text)
        events: list[Event] = []
        mirror = agent.mirror
        events += [
            PermissionReplied(sessionID=r.sessionID, requestID=r.id, reply="reject")
            for r in mirror.permissions.values()
        ]
        events += [QuestionRejected(sessionID=r.sessionID, requestID=r.id) for r in mirror.questions.values()]
        events += [PlanReviewCancelled(sessionID=r.sessionID, requestID=r.id) for r in mirror.plans.values()]
        for session_id in busy:
            cut = f"{text}: this turn ended with it; what it had written is kept"
            events.append(AgentWarning(kind="host", message=cut, sessionID=session_id))
            events.append(SessionStatus(sessionID=session_id, status=SessionStatusInfo(type="idle")))
            events.append(SessionIdle(sessionID=session_id))
        if not busy:
            events.append(AgentWarning(kind="host", message=text))
        for event in events:
            mirror.apply(event)
            agent.bus.publish(event)

    async def _open_again(self) -> Opened:
        """The project opened on a new host (started here, or by another front end first)."""
        wait = FIRST_WAIT_S
        for attempt in range(ATTEMPTS):
            try:
                layers = self._agent.layers  # the front end's settings now, else those it opened with
                return await open_on_host(
                    self._directory,
                    layers=self._layers if layers is None else layers,
                    data_dir=self._data_dir,
                    client=self._client,
                    mode="auto",
                    lend=self._lend,
                )
            except NoHost:
                # Another front end's host holds the lock but does not listen yet.
                if attempt == ATTEMPTS - 1:
                    raise
            await asyncio.sleep(wait)
            wait *= 2
        raise AssertionError("unreachable")

    async def _gave_up(self, why: str) -> None:
        text = f"the agent host could not be restarted ({why})"
        log.warning("%s: %s", self._directory, text)
        if self._fallback is not None:
            await self._fallback(text)
            return
        self._agent.bus.publish(AgentWarning(kind="host", message=f"{text}: restart agentls to go on"))
