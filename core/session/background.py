"""Background sub-agents: ``task`` with ``background: true`` (issue 40).

The call returns at once with the sub-agent's session id; the sub-agent runs its own turn beside
its parent's. When it ends — its answer, a failure, or the user's stop — its result reaches the
parent as a message of its own (a ``subagent`` context part, so clients show whom it is from): a
running parent turn sees it at its next step, an idle parent starts a turn for it, as a prompt would.

The roster (``agents``) is what clients list: every background sub-agent of a session with its
current step, tool, tokens and times, published as ``background.agent.updated`` on each change
and ``background.agent.ended`` once. A session runs at most ``MAX_PER_SESSION`` at once. A stopped
sub-agent's turn is aborted (its commands die with it) and its background shells are killed; a
deleted parent stops its sub-agents. Who may write which file meanwhile: ``core.session.claims``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from core.bus import Bus
from core.errors import AbortedError, AgentError, InvalidInputError, NotFoundError, ToolError
from core.events import (
    BackgroundAgent,
    BackgroundAgentEnded,
    BackgroundAgentUpdated,
    Event,
    PartUpdated,
    SessionDeleted,
)
from core.message.models import AssistantMessage, StepFinishPart, TextPart, ToolPart, now_ms
from core.message.prompt_input import ContextInput, TextInput
from core.session.claims import FileClaims, Team
from core.session.records import Turns

log = logging.getLogger(__name__)

MAX_PER_SESSION = 4
KEEP_ENDED = 20  # ended sub-agents a session's roster still lists


@dataclass(eq=False)
class _Run:
    info: BackgroundAgent
    task: asyncio.Task[None] | None = None


class BackgroundAgents:
    """Every background sub-agent of one agent, by its session id."""

    def __init__(
        self,
        bus: Bus,
        turns: Turns,
        parent_of: Callable[[str], str | None],
        kill_shells: Callable[[str], Awaitable[None]],
    ) -> None:
        self._bus, self._turns = bus, turns
        self._parent_of, self._kill_shells = parent_of, kill_shells
        self._runs: dict[str, _Run] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._deliveries: dict[str, set[asyncio.Task[None]]] = {}  # by parent: results on their way
        self._closing = False
        self._gone: set[str] = set()  # sessions being deleted: no result is delivered to them
        self.claims = FileClaims(Team(self._writer_of, self._running_in, self._describe))
        bus.listen(self._seen, PartUpdated, SessionDeleted)

    def agents(self, parent_id: str | None = None) -> list[BackgroundAgent]:
        """The roster: running and recently ended sub-agents (of one parent, or all), oldest first."""
        return [r.info for r in self._runs.values() if parent_id is None or r.info.parentID == parent_id]

    def check_room(self, parent_id: str) -> None:
        """ToolError when ``parent_id`` runs as many background sub-agents as it may."""
        running = [a for a in self.agents(parent_id) if a.status == "running"]
        if len(running) >= MAX_PER_SESSION:
            names = ", ".join(f"{a.sessionID} ({a.description})" for a in running)
            raise ToolError(
                f"this session already runs {len(running)} background sub-agents ({names}), the most it "
                "may: wait for a result, or run this task without background"
            )

    def is_running(self, session_id: str) -> bool:
        run = self._runs.get(session_id)
        return run is not None and run.info.status == "running"

    def start(
        self, parent_id: str, session_id: str, agent: str, description: str, prompt: str, model: str | None
    ) -> BackgroundAgent:
        """Run ``agent`` on ``prompt`` in ``session_id`` (a child of ``parent_id``) in the background."""
        if self._closing:
            raise ToolError("the agent is closing: no background sub-agent can start now")
        self.check_room(parent_id)
        if self.is_running(session_id):
            raise ToolError(f"the sub-agent of task_id {session_id} is still running in the background")
        info = BackgroundAgent(
            sessionID=session_id,
            parentID=parent_id,
            agent=agent,
            description=description,
            status="running",
            started=now_ms(),
        )
        run = _Run(info)
        self._runs.pop(session_id, None)
        self._runs[session_id] = run
        self._prune(parent_id)
        run.task = self._spawn(self._run(run, prompt, model), f"background {session_id}")
        self._bus.publish(BackgroundAgentUpdated(sessionID=parent_id, agent=info))
        log.info("background sub-agent %s (@%s) of %s: %s", session_id, agent, parent_id, description)
        return info

    async def stop(self, session_id: str) -> BackgroundAgent:
        """Abort a running sub-agent's turn (its commands die with it) and kill its background shells."""
        run = self._runs.get(session_id)
        if run is None:
            raise NotFoundError(f"there is no background sub-agent {session_id}")
        if run.info.status == "running":
            log.info("stopping background sub-agent %s", session_id)
            await self._turns.abort(session_id)
            if run.task is not None:
                await asyncio.wait([run.task], timeout=10)
        await self._kill_shells(session_id)
        return run.info

    async def stop_under(self, session_id: str) -> None:
        """Stop the running sub-agents started in ``session_id`` or under it (before it is deleted:
        a sub-agent still writing into a deleted session would fail instead of stopping)."""
        doomed, grew = {session_id}, True
        while grew:
            more = {r.info.sessionID for r in self._runs.values() if r.info.parentID in doomed}
            grew = not more <= doomed
            doomed |= more
        self._gone |= doomed
        running = [sid for sid in doomed if self.is_running(sid)]
        await asyncio.gather(*(self.stop(sid) for sid in running))

    async def send(self, session_id: str, text: str) -> None:
        """Store a message in a running sub-agent's session: its next step sees it."""
        run = self._runs.get(session_id)
        if run is None:
            raise NotFoundError(f"there is no background sub-agent {session_id}")
        if run.info.status != "running":
            raise InvalidInputError(
                f"the background sub-agent {session_id} has ended ({run.info.status}): its parent can "
                "continue it with the task tool's task_id"
            )
        if not text.strip():
            raise InvalidInputError("a message to a sub-agent cannot be empty")
        # Stored now (the answer to the caller means it is there); the running turn reloads its
        # history at each step, and its final answer is delivered to the parent by the run.
        inputs = [TextInput(text=text)]
        await self._turns.prompt(session_id, inputs, agent=run.info.agent, no_reply=True, subagent=True)
        if not self._turns.is_busy(session_id):
            raise InvalidInputError(
                f"the background sub-agent {session_id} ended as the message arrived: the message is "
                "kept in its session, unanswered; its parent can continue it with the task tool's task_id"
            )

    async def settled(self, parent_id: str) -> None:
        """Wait until ``parent_id`` has no background sub-agent running and the turns their results
        started have ended (``agentls run`` waits so, instead of stopping them when it exits)."""
        while True:
            runs = [r.task for r in self._runs.values() if r.info.parentID == parent_id and r.task]
            waiting = [t for t in [*runs, *self._deliveries.get(parent_id, ())] if not t.done()]
            if not waiting:
                return
            await asyncio.wait(waiting)

    async def close(self) -> None:
        """Stop every sub-agent without delivering results (the agent closes)."""
        self._closing = True
        tasks = [r.task for r in self._runs.values() if r.task is not None and not r.task.done()]
        for task in [*tasks, *self._tasks]:
            task.cancel()
        await asyncio.gather(*tasks, *self._tasks, return_exceptions=True)

    # --- inside ----------------------------------------------------------------------------

    async def _run(self, run: _Run, prompt: str, model: str | None) -> None:
        info = run.info
        status, error, text = "completed", None, ""
        try:
            answer = await self._turns.prompt(
                info.sessionID, [TextInput(text=prompt)], agent=info.agent, model=model, subagent=True
            )
        except AbortedError:
            status = "stopped"
        except AgentError as exc:
            status, error = "failed", str(exc)
        else:
            final = answer.info
            if isinstance(final, AssistantMessage) and final.error is not None:
                aborted = final.error.name == "aborted"
                status, error = ("stopped", None) if aborted else ("failed", final.error.message)
            text = "".join(p.text for p in answer.parts if isinstance(p, TextPart) and not p.synthetic)
        # run.info, not info: the steps, tokens and tool seen while it ran.
        update = {"status": status, "error": error, "ended": now_ms(), "tool": None}
        ended = run.info.model_copy(update=update)
        run.info = ended
        self.claims.release(info.sessionID)
        body = _report(ended, text.strip())
        summary = _summary(ended, text)
        self._bus.publish(BackgroundAgentUpdated(sessionID=info.parentID, agent=ended))
        self._bus.publish(BackgroundAgentEnded(sessionID=info.parentID, agent=ended, summary=summary))
        if not self._closing and info.parentID not in self._gone:
            delivery = self._spawn(self._deliver(ended, body), f"deliver {info.sessionID}")
            waiting = self._deliveries.setdefault(info.parentID, set())
            waiting.add(delivery)
            delivery.add_done_callback(waiting.discard)

    async def _deliver(self, info: BackgroundAgent, body: str) -> None:
        """The result as a message to the parent (its running turn's next step, or a turn of its own)."""
        label = f"@{info.agent}: {info.description}"
        item = ContextInput(kind="subagent", label=label, text=body)
        try:
            await self._turns.prompt(info.parentID, [item], subagent=True)
        except AgentError as exc:  # the parent was deleted, or its turn aborted (the message stays)
            log.info("the result of %s reached %s without an answer: %s", info.sessionID, info.parentID, exc)

    def _spawn(self, work: Awaitable[None], name: str) -> asyncio.Task[None]:
        task = asyncio.ensure_future(work)
        task.set_name(name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def _prune(self, parent_id: str) -> None:
        ended = [a.sessionID for a in self.agents(parent_id) if a.status != "running"]
        for session_id in ended[: max(0, len(ended) - KEEP_ENDED)]:
            del self._runs[session_id]

    def _seen(self, event: Event) -> None:
        """Live steps, tools and tokens from the sub-agents' parts; a deleted parent stops them."""
        if isinstance(event, SessionDeleted):
            gone = event.info.id
            for run in list(self._runs.values()):
                if gone in (run.info.parentID, run.info.sessionID) and run.info.status == "running":
                    self._spawn(self._stop_quietly(run.info.sessionID), f"stop {run.info.sessionID}")
            return
        if not isinstance(event, PartUpdated):
            return
        found = self._runs.get(event.part.sessionID)
        if found is None or found.info.status != "running":
            return
        run, part, info = found, event.part, found.info
        if isinstance(part, ToolPart):
            active = part.state.status in ("pending", "running")
            tool = part.tool if active else (None if info.tool == part.tool else info.tool)
            update: dict[str, object] = {"tool": tool}
        elif isinstance(part, StepFinishPart):
            tokens = info.tokens + part.tokens.input + part.tokens.output
            update = {"step": info.step + 1, "tokens": tokens}
        else:
            return
        changed = info.model_copy(update=update)
        if changed != info:
            run.info = changed
            self._bus.publish(BackgroundAgentUpdated(sessionID=info.parentID, agent=changed))

    async def _stop_quietly(self, session_id: str) -> None:
        try:
            await self.stop(session_id)
        except AgentError as exc:
            log.info("stopping background sub-agent %s: %s", session_id, exc)

    # --- the team of writers (core.session.claims) -------------------------------------------

    def _writer_of(self, session_id: str) -> tuple[str, str]:
        writer: str | None = None
        current = session_id
        for _ in range(64):  # sub-agents nest a few levels at most; never loop on a bad chain
            if writer is None and self.is_running(current):
                writer = current
            parent = self._parent_of(current)
            if parent is None:
                break
            current = parent
        return current, writer or current

    def _running_in(self, root: str) -> list[str]:
        return [
            r.info.sessionID
            for r in self._runs.values()
            if r.info.status == "running" and self._writer_of(r.info.sessionID)[0] == root
        ]

    def _describe(self, writer: str) -> str:
        run = self._runs.get(writer)
        if run is None:
            return f"session {writer}"
        return f"the sub-agent @{run.info.agent} (task_id {writer}: {run.info.description})"


def _report(info: BackgroundAgent, text: str) -> str:
    """What the parent reads when a background sub-agent ends."""
    head = f"The background sub-agent @{info.agent} (task_id {info.sessionID}) working on "
    head += f'"{info.description}"'
    if info.status == "completed":
        return f"{head} finished. Its report:\n\n{text or '(it returned no text)'}"
    if info.status == "stopped":
        return f"{head} was stopped by the user before it finished."
    return f"{head} failed: {info.error}"


def _summary(info: BackgroundAgent, text: str) -> str:
    """One line for a client's notification."""
    if info.status == "completed":
        first = next((line.strip() for line in text.splitlines() if line.strip()), "")
        return first[:200] or "finished with no text"
    if info.status == "stopped":
        return "stopped"
    return f"failed: {info.error}"[:200]
