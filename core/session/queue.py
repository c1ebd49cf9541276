"""The prompt queue of each session: what a prompt sent while a turn runs does.

Three modes: *steer* (the message is stored now; the running turn sees it at its next step — the
loop's own behaviour), *queue* (the message waits in memory, not in the transcript, and runs as its
own turn when the running one ends, however it ends: answer, error, abort or rejection) and
*interrupt* ("stop and send": the message goes to the front of the queue and the running turn is
aborted). Queued prompts run one after another, in order; each caller gets its own turn's answer
or error. A queued prompt can be listed, edited and removed until it starts.

The queue lives in memory: a prompt still queued when the agent closes is refused (UnqueuedError)
to its caller, which is still connected to say so.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import field
from typing import Literal, Protocol

from core import ids
from core.bus import Bus
from core.errors import InvalidInputError, NotFoundError, UnqueuedError
from core.events import QueueAdded, QueuedPrompt, QueueRemoved, QueueStarted, QueueUpdated
from core.message.models import MessageWithParts, now_ms
from core.message.prompt_input import PROMPT_MODES, AgentInput, ContextInput, FileInput, PromptMode, TextInput
from core.record import struct

log = logging.getLogger(__name__)

Inputs = Sequence[TextInput | FileInput | AgentInput | ContextInput]


class Turns(Protocol):
    """What the queue needs of the session loop (``core.session.loop.SessionLoop``)."""

    def current(self, session_id: str) -> asyncio.Task[MessageWithParts] | None: ...

    async def prompt(
        self, session_id: str, inputs: Inputs, *, agent: str | None = None, model: str | None = None
    ) -> MessageWithParts: ...

    async def abort(self, session_id: str) -> None: ...


@struct
class _Entry:
    item: QueuedPrompt
    # Resolved with the prompt's turn when it starts; AbortedError when it is removed first.
    handoff: asyncio.Future[asyncio.Future[MessageWithParts]] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )


class PromptQueue:
    """Per-session queues of prompts, drained one turn at a time."""

    def __init__(self, turns: Turns, bus: Bus) -> None:
        self._turns = turns
        self._bus = bus
        self._entries: dict[str, list[_Entry]] = {}
        self._drainers: dict[str, asyncio.Task[None]] = {}

    async def submit(
        self,
        session_id: str,
        inputs: Inputs,
        *,
        agent: str | None = None,
        model: str | None = None,
        mode: PromptMode = "steer",
    ) -> MessageWithParts:
        """Send a prompt as ``mode`` says and return the answer of the turn that answers it."""
        if mode not in PROMPT_MODES:
            raise InvalidInputError(f"unknown prompt mode {mode!r} (modes: {', '.join(PROMPT_MODES)})")
        waiting = bool(self._entries.get(session_id))
        busy = self._turns.current(session_id) is not None
        if mode == "steer" or not (busy or waiting):
            return await self._turns.prompt(session_id, inputs, agent=agent, model=model)
        entry = _Entry(
            QueuedPrompt(
                id=ids.ascending("qpr"),
                sessionID=session_id,
                parts=list(inputs),
                agent=agent,
                model=model,
                time=now_ms(),
            )
        )
        entries = self._entries.setdefault(session_id, [])
        position = 0 if mode == "interrupt" else len(entries)
        entries.insert(position, entry)
        self._bus.publish(QueueAdded(sessionID=session_id, item=entry.item, position=position))
        self._ensure_drainer(session_id)
        if mode == "interrupt":
            await self._turns.abort(session_id)
        return await self._wait(entry)

    def list(self, session_id: str) -> list[QueuedPrompt]:
        """The session's queued prompts, next first."""
        return [entry.item for entry in self._entries.get(session_id, [])]

    def update(self, session_id: str, queue_id: str, inputs: Inputs) -> QueuedPrompt:
        """Replace a queued prompt's parts (NotFoundError once it has started or was removed)."""
        if not inputs:
            raise InvalidInputError("a queued prompt needs at least one part")
        entry = self._find(session_id, queue_id)
        entry.item = entry.item.model_copy(update={"parts": list(inputs)})
        self._bus.publish(QueueUpdated(sessionID=session_id, item=entry.item))
        return entry.item

    def remove(self, session_id: str, queue_id: str) -> None:
        """Take a prompt out of the queue; its caller gets UnqueuedError (an AbortedError)."""
        entry = self._find(session_id, queue_id)
        self._drop(entry, "removed", UnqueuedError("the prompt was removed from the queue before it ran"))

    def clear(self, session_id: str) -> None:
        """Refuse every prompt queued in a session (it is being deleted)."""
        for entry in list(self._entries.get(session_id, [])):
            self._drop(entry, "closed", UnqueuedError("the session was deleted before the prompt ran"))

    async def close(self) -> None:
        """Refuse every queued prompt and stop the drainers (the agent is closing)."""
        for session_id, entries in list(self._entries.items()):
            for entry in list(entries):
                self._drop(entry, "closed", UnqueuedError("the agent closed before the prompt ran"))
            self._entries.pop(session_id, None)
        for task in list(self._drainers.values()):
            task.cancel()
        await asyncio.gather(*self._drainers.values(), return_exceptions=True)

    # --- inside ----------------------------------------------------------------------------

    def _find(self, session_id: str, queue_id: str) -> _Entry:
        for entry in self._entries.get(session_id, []):
            if entry.item.id == queue_id:
                return entry
        raise NotFoundError(f"no queued prompt {queue_id} in session {session_id} (it may have started)")

    def _drop(
        self, entry: _Entry, reason: Literal["removed", "cancelled", "closed"], exc: Exception | None
    ) -> None:
        """Take ``entry`` out of the queue; its caller gets ``exc`` (None: it went away already)."""
        session_id = entry.item.sessionID
        entries = self._entries.get(session_id, [])
        if entry in entries:
            entries.remove(entry)
        if not entry.handoff.done():
            if exc is None:
                entry.handoff.cancel()
            else:
                entry.handoff.set_exception(exc)
        self._bus.publish(QueueRemoved(sessionID=session_id, id=entry.item.id, reason=reason))

    async def _wait(self, entry: _Entry) -> MessageWithParts:
        try:
            turn = await asyncio.shield(entry.handoff)
        except asyncio.CancelledError:
            if entry.handoff.done() and not entry.handoff.cancelled() and entry.handoff.exception() is None:
                entry.handoff.result().cancel()  # started as the caller went away: abort that turn
            elif not entry.handoff.done():
                self._drop(entry, "cancelled", None)
            raise
        # Cancelling this caller cancels the turn's prompt(), which aborts the turn.
        return await turn

    def _ensure_drainer(self, session_id: str) -> None:
        current = self._drainers.get(session_id)
        if current is not None and not current.done():
            return
        task = asyncio.create_task(self._drain(session_id), name=f"queue {session_id}")
        self._drainers[session_id] = task
        task.add_done_callback(lambda done: self._drained(session_id, done))

    def _drained(self, session_id: str, task: asyncio.Task[None]) -> None:
        if self._drainers.get(session_id) is task:
            del self._drainers[session_id]
        if not task.cancelled() and (exc := task.exception()) is not None:
            log.error("the prompt queue of %s stopped: %s", session_id, exc)

    async def _drain(self, session_id: str) -> None:
        """Start the queued prompts one by one, each when the session's turn has ended."""
        while True:
            while (running := self._turns.current(session_id)) is not None:
                await asyncio.wait([running])
            entries = self._entries.get(session_id)
            if not entries:
                self._entries.pop(session_id, None)
                return
            entry = entries.pop(0)
            item = entry.item
            self._bus.publish(QueueStarted(sessionID=session_id, id=item.id))
            turn = asyncio.ensure_future(
                self._turns.prompt(session_id, item.parts, agent=item.agent, model=item.model)
            )
            entry.handoff.set_result(turn)
            # Wait for its turn to end (its caller reads the outcome); the prompt's own message
            # has started a run by then unless it failed before, so the next one waits on that.
            await asyncio.wait([turn])
