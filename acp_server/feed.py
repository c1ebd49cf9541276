"""Core events of one project as ACP ``session/update`` notifications, in order.

A synchronous bus listener queues every event (merging consecutive text deltas of one part, so a
slow pipe gets bigger chunks, never lost ones) and one task sends them. ``flush`` waits until
every event published before it has been sent: a ``session/prompt`` answer must come after the
updates of its turn. Child sessions (subagents) are not shown as such; their permission requests
go to the client under the root session they belong to.

A compaction is announced in the agent's message ("Compacting the conversation…" when its summary
starts, then the context's tokens before and after), and the summary streams as a thought: it is
context written for the model, not an answer.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp.schema import (
    ConfigOptionUpdate,
    Cost,
    UsageUpdate,
)

from acp_server import background, options, tool_calls
from acp_server.updates import COMPACTING, chunk, compacted_text, plan, subagent_report, title_update, warning
from core.errors import AgentError
from core.events import (
    AgentWarning,
    BackgroundAgentEnded,
    BackgroundAgentUpdated,
    BackgroundShellUpdated,
    Event,
    MessageUpdated,
    PartDelta,
    PartUpdated,
    PermissionAsked,
    PermissionReplied,
    PlanReviewAsked,
    PlanReviewCancelled,
    PlanReviewReplied,
    QuestionAsked,
    QuestionRejected,
    QuestionReplied,
    SessionCompacted,
    SessionCreated,
    SessionEffortChanged,
    SessionModeChanged,
    SessionUpdated,
    TodoUpdated,
)
from core.message.models import AssistantMessage, Session, ToolPart

if TYPE_CHECKING:
    from acp_server.state import AcpSession
    from acp_server.workspace import AcpWorkspace
    from core.api import Agent

log = logging.getLogger(__name__)

# How often the open sessions' mode and effort are read again: another client of the project (an
# editor, another ACP host) may change them, and SQLite tells no other process of a write.
CONTROLS_POLL = 2.0

Send = Callable[[str, Any], Awaitable[None]]  # (session id, update)
Spawn = Callable[[Event, str], None]  # a dialog event and the ACP session it belongs to


class Feed:
    """Sends one project's events to the client for the sessions the client has open."""

    def __init__(
        self,
        app: Agent,
        workspace: AcpWorkspace,
        sessions: dict[str, AcpSession],
        send: Send,
        dialog: Spawn,
    ) -> None:
        self._app = app
        self._workspace = workspace
        self._sessions = sessions
        self._send = send
        self._dialog = dialog
        self._queue: deque[Event | asyncio.Future[None]] = deque()
        self._ready = asyncio.Event()
        self._roles: dict[str, str] = {}
        self._part_kinds: dict[str, str] = {}
        self._sent_text: dict[str, int] = {}
        self._announced: set[str] = set()
        self._roster: set[str] = set()  # the background sub-agents' and shells' calls announced
        self._summaries: set[str] = set()  # compaction summaries (assistant messages) seen
        self._parents: dict[str, str] = {}
        self._costs: dict[str, dict[str, float]] = {}
        self._usage: dict[str, tuple[int, int]] = {}
        self.terminals: dict[str, str] = {}  # call id → client terminal id (bash through terminal/*)
        self._closed = False
        self._unlisten = app.listen(self._offer)
        self._task = asyncio.create_task(self._drain(), name="acp feed")
        self._poll = asyncio.create_task(self._watch_controls(), name="acp controls")

    @property
    def root(self) -> Path:
        return self._app.directory

    # --- queue -------------------------------------------------------------------------------

    def _offer(self, event: Event) -> None:
        last = self._queue[-1] if self._queue else None
        if (
            isinstance(event, PartDelta)
            and isinstance(last, PartDelta)
            and (last.partID, last.field) == (event.partID, event.field)
        ):
            self._queue[-1] = dataclasses.replace(last, delta=last.delta + event.delta)
        else:
            self._queue.append(event)
        self._ready.set()

    async def flush(self) -> None:
        """Return once everything published so far has been sent (at once when the feed is closed:
        a prompt that ends as its agent moves into this process flushes the feed it started with)."""
        if self._closed:
            return
        barrier: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.append(barrier)
        self._ready.set()
        await barrier

    async def close(self) -> None:
        """Stop listening and sending; a flush still waiting returns."""
        self._closed = True
        self._unlisten()
        self._task.cancel()
        self._poll.cancel()
        await asyncio.gather(self._task, self._poll, return_exceptions=True)
        for item in self._queue:
            if isinstance(item, asyncio.Future) and not item.done():
                item.set_result(None)
        self._queue.clear()

    async def _drain(self) -> None:
        while True:
            while not self._queue:
                self._ready.clear()
                await self._ready.wait()
            item = self._queue.popleft()
            if isinstance(item, asyncio.Future):
                if not item.done():
                    item.set_result(None)
                continue
            try:
                await self._handle(item)
            except (ConnectionError, BrokenPipeError):
                log.info("the client went away; dropping %s", item.TYPE)
            except Exception:  # one bad event must not stop the feed for the rest of the session
                log.exception("could not send %s to the client", item.TYPE)

    async def _watch_controls(self) -> None:
        """Read the open sessions' mode and effort again every ``CONTROLS_POLL`` seconds: a mode
        changed elsewhere is published by the app (``session.mode``), an effort changed elsewhere is
        queued here; either way the client gets a ``config_option_update``."""
        while True:
            await asyncio.sleep(CONTROLS_POLL)
            for session_id, state in list(self._sessions.items()):
                try:
                    await self._app.session_mode(session_id)
                    model = options.current_model(self._app, state)
                    effort = await self._app.session_effort(session_id, model=model)
                except AgentError as exc:  # a deleted session, a config being fixed: try again later
                    log.debug("controls of session %s not read: %s", session_id, exc)
                    continue
                # Compared with what the client was shown (its options at open or at the last
                # update), not with this loop's previous read: a change made before the first
                # read would otherwise never be announced.
                if state.effort_sent is not None and state.effort_sent != effort.effort:
                    changed = SessionEffortChanged(
                        sessionID=session_id, effort=effort.effort, levels=list(effort.levels)
                    )
                    self._offer(changed)

    # --- mapping -----------------------------------------------------------------------------

    def acp_session(self, session_id: str | None) -> str | None:
        """The client's session an event belongs to (a subagent's session maps to its root)."""
        seen: set[str] = set()
        while session_id is not None and session_id not in self._sessions and session_id not in seen:
            seen.add(session_id)
            session_id = self._parents.get(session_id)
        return session_id if session_id in self._sessions else None

    async def _handle(self, event: Event) -> None:
        if isinstance(event, SessionCreated | SessionUpdated) and event.info.parentID:
            self._parents[event.info.id] = event.info.parentID
        if isinstance(
            event,
            PermissionAsked
            | QuestionAsked
            | PermissionReplied
            | QuestionReplied
            | QuestionRejected
            | PlanReviewAsked
            | PlanReviewReplied
            | PlanReviewCancelled,
        ):
            target = self.acp_session(event.session_id())
            if target is not None:
                self._dialog(event, target)
                if (by := getattr(event, "by", None)) is not None:
                    # Answered in another front end of the agent host: the client's dialog closed under it.
                    how = "Dismissed" if isinstance(event, QuestionRejected) else "Answered"
                    await self._send(target, chunk("text", f"\n\n> {how} in {by}.\n\n"))
            return
        if isinstance(event, AgentWarning):
            # ACP has no notice of its own: the warning is a line of the agent's message.
            if (target := self.acp_session(event.session_id())) is not None:
                await self._send(target, warning(event.message))
            return
        if isinstance(event, BackgroundAgentUpdated | BackgroundAgentEnded | BackgroundShellUpdated):
            await self._background(event)
            return
        session_id = event.session_id()
        if session_id is None or session_id not in self._sessions:
            return  # another client's session, or a subagent's inner steps
        if isinstance(event, MessageUpdated):
            self._roles[event.info.id] = event.info.role
            if isinstance(event.info, AssistantMessage) and event.info.summary:
                await self._summary(session_id, event.info)
            elif isinstance(event.info, AssistantMessage):
                await self._usage_update(session_id, event.info)
        elif isinstance(event, SessionCompacted):
            await self._send(session_id, chunk("text", compacted_text(event)))
        elif isinstance(event, PartUpdated):
            await self._part(session_id, event)
        elif isinstance(event, PartDelta):
            await self._delta(session_id, event)
        elif isinstance(event, TodoUpdated):
            await self._send(session_id, plan(event.todos))
        elif isinstance(event, SessionUpdated):
            await self._title(session_id, event.info)
        elif isinstance(event, SessionModeChanged | SessionEffortChanged):
            await self._controls(session_id)

    async def _background(
        self, event: BackgroundAgentUpdated | BackgroundAgentEnded | BackgroundShellUpdated
    ) -> None:
        """A background sub-agent or shell of a session the client shows (or of one of its
        sub-agents), as a tool call of that session (``acp_server.background``)."""
        target = self.acp_session(event.sessionID)
        if target is None:
            return
        if isinstance(event, BackgroundShellUpdated):
            call_id = background.shell_call_id(event.shell)
            update = background.shell_update(event.shell, call_id in self._roster)
        else:
            call_id = background.agent_call_id(event.agent)
            summary = event.summary if isinstance(event, BackgroundAgentEnded) else None
            update = background.agent_update(event.agent, call_id in self._roster, summary)
        self._roster.add(call_id)
        await self._send(target, update)

    async def _controls(self, session_id: str) -> None:
        """The session's mode or effort changed (through this client, a slash command, or another
        client of the project): the client gets the options as they are now."""
        state = self._sessions[session_id]
        update = ConfigOptionUpdate(
            session_update="config_option_update",
            config_options=await options.all_options(self._app, state),
        )
        await self._send(session_id, update)

    async def _summary(self, session_id: str, info: AssistantMessage) -> None:
        # Its cost counts towards the session's; its tokens are not the conversation's context.
        self._costs.setdefault(session_id, {})[info.id] = info.cost
        if info.id in self._summaries:
            return
        self._summaries.add(info.id)
        await self._send(session_id, chunk("text", COMPACTING))

    async def _part(self, session_id: str, event: PartUpdated) -> None:
        part = event.part
        # A compaction's summary shows as a thought (see the module's doc).
        self._part_kinds[part.id] = "reasoning" if part.messageID in self._summaries else part.type
        if self._roles.get(part.messageID) != "assistant":
            if (report := subagent_report(part)) is not None:  # the one user message it did not write
                await self._send(session_id, report)
            return  # the client wrote the user's message itself
        if part.type in ("text", "reasoning"):
            # Deltas carry the text as it streams; a part that arrives whole is sent here.
            text: str = part.text
            sent = self._sent_text.get(part.id, 0)
            if len(text) > sent:
                self._sent_text[part.id] = len(text)
                await self._send(session_id, chunk(self._part_kinds[part.id], text[sent:]))
        elif isinstance(part, ToolPart):
            await self._tool(session_id, part)

    async def _delta(self, session_id: str, event: PartDelta) -> None:
        kind = self._part_kinds.get(event.partID)
        if event.field != "text" or kind not in ("text", "reasoning"):
            return
        if self._roles.get(event.messageID) != "assistant":
            return
        self._sent_text[event.partID] = self._sent_text.get(event.partID, 0) + len(event.delta)
        await self._send(session_id, chunk(kind, event.delta))

    async def _tool(self, session_id: str, part: ToolPart) -> None:
        if part.callID not in self._announced:
            if part.state.status == "pending":
                return  # the model is still writing its input: announced with its path once known
            self._announced.add(part.callID)
            await self._send(session_id, tool_calls.start(part, self.root))
        written = self._workspace.writes.pop(part.callID, []) if part.state.status == "completed" else []
        terminal = self.terminals.get(part.callID)
        await self._send(session_id, tool_calls.progress(part, written, self.root, terminal))

    async def _usage_update(self, session_id: str, info: AssistantMessage) -> None:
        costs = self._costs.setdefault(session_id, {})
        costs[info.id] = info.cost
        tokens = info.tokens
        used = tokens.input + tokens.cache.read + tokens.output
        if used == 0:
            return
        size = self._context_size(f"{info.providerID}/{info.modelID}")
        if self._usage.get(session_id) == (used, size) and info.time.completed is None:
            return
        self._usage[session_id] = (used, size)
        total = sum(costs.values())
        await self._send(
            session_id,
            UsageUpdate(
                session_update="usage_update", used=used, size=size, cost=Cost(amount=total, currency="USD")
            ),
        )

    def _context_size(self, ref: str) -> int:
        return self._app.model_limits(ref).context  # 0 for an unknown model: the tokens still go

    async def _title(self, session_id: str, info: Session) -> None:
        state = self._sessions[session_id]
        if info.title == state.title:
            return
        state.title = info.title
        await self._send(session_id, title_update(info))

    def remember_costs(self, session_id: str, costs: dict[str, float]) -> None:
        """Costs of a loaded session's earlier answers (the usage update reports the session's total)."""
        self._costs.setdefault(session_id, {}).update(costs)

    def announced(self, call_id: str) -> bool:
        """Whether the client has been told about this tool call."""
        return call_id in self._announced
