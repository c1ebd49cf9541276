"""The stream processor: one model step of an assistant message, from request to stored parts.

It turns the provider's stream events into the part lifecycle (text, reasoning, tool calls,
step start/finish, patch), runs tool calls as soon as their arguments are complete, retries
retryable provider failures, guards against doom loops, and reports what the loop should do next.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import field
from typing import Literal

from core import ids
from core.errors import AbortedError, ContextOverflowError, ProviderError
from core.events import SessionError, SessionStatus, SessionStatusInfo
from core.llm import events as ev
from core.llm.request import LLMRequest
from core.message.models import (
    AssistantMessage,
    ErrorKind,
    MessageError,
    PartTime,
    PatchPart,
    ReasoningPart,
    RetryPart,
    StepFinishPart,
    StepStartPart,
    TextPart,
    UserTime,
    now_ms,
)
from core.record import struct
from core.session.retry import RetryPolicy, retry_message, sleep_or_abort
from core.session.services import StepServices
from core.session.step import StepInput
from core.session.tool_calls import ToolCalls

log = logging.getLogger(__name__)

Outcome = Literal["continue", "stop", "compact"]
StreamFn = Callable[[LLMRequest, asyncio.Event], AsyncIterator[ev.StreamEvent]]


@struct
class _Attempt:
    """What one attempt produced, so a failed attempt can be undone before a retry."""

    calls: ToolCalls
    text: dict[str, TextPart] = field(default_factory=dict)
    reasoning: dict[str, ReasoningPart] = field(default_factory=dict)
    finish: ev.FinishStep | None = None


class Processor:
    """Runs one step; see ``process``."""

    def __init__(self, services: StepServices, stream_fn: StreamFn, retry: RetryPolicy) -> None:
        self._s = services
        self._stream = stream_fn
        self._retry = retry

    async def process(self, step: StepInput) -> Outcome:
        """Stream one model response into parts, run its tools; say whether to go on."""
        msg = step.assistant
        start = _StepStart(self._s, msg)
        attempt_no = 0
        while True:
            attempt = _Attempt(ToolCalls(self._s, step))
            try:
                await self._consume(step, attempt, start)
                break
            except AbortedError:
                await attempt.calls.cancel()
                await self._close_open_parts(attempt, "Tool execution was aborted")
                await self._fail(msg, MessageError(name="aborted", message="Aborted by the user"))
                return "stop"
            except ContextOverflowError as exc:
                await attempt.calls.cancel()
                await self._discard(attempt)
                if step.compact_on_overflow_error:
                    # The refused step is over either way: closed with the provider's words, so no
                    # client (and no crash recovery after a restart) sees it as still running. The
                    # turn goes on after the compaction, so this is not announced as a session error.
                    await self._close(msg, _to_message_error(exc))
                    return "compact"
                await self._fail(msg, _to_message_error(step.explain_overflow(exc)))
                return "stop"
            except ProviderError as exc:
                await attempt.calls.cancel()
                attempt_no += 1
                if not self._retry.should_retry(attempt_no, exc):
                    await self._close_open_parts(attempt, "Tool execution was interrupted")
                    await self._fail(msg, _to_message_error(exc))
                    return "stop"
                await self._discard(attempt)
                try:
                    await self._wait_retry(step, attempt_no, exc)
                except AbortedError:
                    await self._fail(msg, MessageError(name="aborted", message="Aborted by the user"))
                    return "stop"
        return await self._finish(step, attempt, start)

    # --- streaming ---------------------------------------------------------------------

    async def _consume(self, step: StepInput, attempt: _Attempt, start: _StepStart) -> None:
        sessions = self._s.sessions
        # The request goes out at the first event asked for, while git takes the start snapshot;
        # of the stream's events only a tool call waits for it (see _dispatch).
        events = self._stream(step.request, step.abort)
        try:
            async for event in events:
                await self._dispatch(step, attempt, start, event)
        finally:
            try:
                # Leaving early (an error, a cancelled task) must close the HTTP response now.
                aclose = getattr(events, "aclose", None)
                if aclose is not None:
                    await aclose()
            finally:
                await start.written()  # stored before whatever a failure handler writes
        await attempt.calls.wait()
        if step.abort.is_set():
            raise AbortedError("aborted")
        for text in attempt.text.values():
            if text.time is not None and text.time.end is None:
                text.time.end = now_ms()
                await sessions.end_part(text)
        if attempt.finish is None:
            raise ProviderError("the model's stream ended without finishing", retryable=True)

    async def _dispatch(
        self, step: StepInput, attempt: _Attempt, start: _StepStart, event: ev.StreamEvent
    ) -> None:
        msg = step.assistant
        sessions = self._s.sessions
        if isinstance(event, ev.TextDelta | ev.ReasoningDelta):
            live = (attempt.text if isinstance(event, ev.TextDelta) else attempt.reasoning).get(event.id)
            if live is not None:
                sessions.append_delta(live, "text", event.text)
        elif isinstance(event, ev.TextStart | ev.ReasoningStart):
            await sessions.update_part(_start(msg, attempt, event))
        elif isinstance(event, ev.TextEnd):
            text = attempt.text[event.id]
            if text.time is not None:
                text.time.end = now_ms()
            await sessions.end_part(text)
        elif isinstance(event, ev.ReasoningEnd):
            reasoning = attempt.reasoning[event.id]
            reasoning.time.end = now_ms()
            if event.metadata:
                reasoning.metadata = {**(reasoning.metadata or {}), **event.metadata}
            await sessions.end_part(reasoning)
        elif isinstance(event, ev.ToolInputStart):
            await attempt.calls.pending(event.id, event.name)
        elif isinstance(event, ev.ToolInputDelta):
            attempt.calls.input_delta(event.id, event.delta)
        elif isinstance(event, ev.ToolCall):
            await start.before_tool()  # a tool may change files: not before the snapshot to revert to
            await attempt.calls.call(event)
        elif isinstance(event, ev.FinishStep):
            attempt.finish = event

    # --- endings -----------------------------------------------------------------------

    async def _finish(self, step: StepInput, attempt: _Attempt, start: _StepStart) -> Outcome:
        msg = step.assistant
        finish = attempt.finish
        assert finish is not None
        start_snapshot = await start.written()
        files: list[str] | None = []
        if start.tool_called:
            end_snapshot = await self._s.snapshot_track(msg.sessionID)
            if start_snapshot is not None and end_snapshot is not None:
                # To the end snapshot just taken: "now" would be a second snapshot of the same files.
                files = await self._s.snapshot_patch(msg.sessionID, start_snapshot, end_snapshot)
            elif self._s.snapshots_on:
                files = None  # a snapshot failed (already reported): the changes went unrecorded
        else:
            # No tool ran in any attempt of the step: the agent changed no file, and the files are
            # as the start snapshot has them. Saves git's pass over the project at the end of
            # every answer (~100 ms for 20k files), and keeps the user's own edits during a
            # text-only step out of the agent's patches, where a revert would undo them.
            end_snapshot = start_snapshot
        await self._s.sessions.update_part(
            StepFinishPart(
                id=ids.ascending("prt"),
                sessionID=msg.sessionID,
                messageID=msg.id,
                reason=finish.reason,
                snapshot=end_snapshot,
                tokens=finish.tokens,
                cost=finish.cost,
                unrecorded=True if files is None else None,
            )
        )
        if files and start_snapshot is not None:
            await self._s.sessions.update_part(
                PatchPart(
                    id=ids.ascending("prt"),
                    sessionID=msg.sessionID,
                    messageID=msg.id,
                    hash=start_snapshot,
                    files=files,
                )
            )
            await self._s.after_patch(msg.sessionID)
        msg.tokens = finish.tokens
        msg.cost += finish.cost
        msg.finish = finish.reason
        msg.time.completed = now_ms()
        await self._s.sessions.update_message(msg)
        if attempt.calls.blocked:
            return "stop"
        if step.check_overflow(msg):
            return "compact"
        return "continue"

    async def _fail(self, msg: AssistantMessage, error: MessageError) -> None:
        await self._close(msg, error)
        self._s.bus.publish(SessionError(sessionID=msg.sessionID, error=error))

    async def _close(self, msg: AssistantMessage, error: MessageError) -> None:
        msg.error = error
        msg.time.completed = now_ms()
        await self._s.sessions.update_message(msg)

    async def _wait_retry(self, step: StepInput, attempt: int, exc: ProviderError) -> None:
        msg = step.assistant
        delay = self._retry.delay(attempt, exc)
        error = _to_message_error(exc)
        await self._s.sessions.update_part(
            RetryPart(
                id=ids.ascending("prt"),
                sessionID=msg.sessionID,
                messageID=msg.id,
                attempt=attempt,
                error=error,
                time=UserTime(created=now_ms()),
            )
        )
        self._s.bus.publish(
            SessionStatus(
                sessionID=msg.sessionID,
                status=SessionStatusInfo(
                    type="retry",
                    attempt=attempt,
                    message=retry_message(exc),
                    next=now_ms() + int(delay * 1000),
                ),
            )
        )
        log.info("session %s: retry %d in %.1fs after %s", msg.sessionID, attempt, delay, exc)
        await sleep_or_abort(delay, step.abort)
        self._s.bus.publish(SessionStatus(sessionID=msg.sessionID, status=SessionStatusInfo(type="busy")))

    async def _close_open_parts(self, attempt: _Attempt, reason: str) -> None:
        await attempt.calls.close_open(reason)
        for text in attempt.text.values():
            if text.time is not None and text.time.end is None:
                text.time.end = now_ms()
            await self._s.sessions.end_part(text)
        for reasoning in attempt.reasoning.values():
            if reasoning.time.end is None:
                reasoning.time.end = now_ms()
            await self._s.sessions.end_part(reasoning)

    async def _discard(self, attempt: _Attempt) -> None:
        # A retried attempt starts over; its partial text and calls would be shown twice otherwise.
        for part in [*attempt.text.values(), *attempt.reasoning.values(), *attempt.calls.parts.values()]:
            await self._s.sessions.remove_part(part.sessionID, part.messageID, part.id)


class _StepStart:
    """The step's start snapshot, taken by git beside the model request, and its part.

    The part's id is drawn at once, so it sorts before every other part of the step whenever it
    is written: before the step's first tool call runs, or when the stream ends. Text streams
    meanwhile: the first snapshot of a big project takes git seconds (~3 s for 20k files)."""

    def __init__(self, services: StepServices, msg: AssistantMessage) -> None:
        self._s = services
        self._msg = msg
        self._id = ids.ascending("prt")
        self._tracking = asyncio.ensure_future(services.snapshot_track(msg.sessionID))
        self._part: StepStartPart | None = None
        self.tool_called = False  # by the model, in any attempt of the step

    async def before_tool(self) -> None:
        """A tool is about to run: the start snapshot is stored first, and the step's end gets one."""
        self.tool_called = True
        await self.written()

    async def written(self) -> str | None:
        """The start snapshot (None when off or failed); stores the step-start part the first time."""
        if self._part is None:
            self._part = StepStartPart(
                id=self._id,
                sessionID=self._msg.sessionID,
                messageID=self._msg.id,
                snapshot=await self._tracking,
            )
            await self._s.sessions.update_part(self._part)
        return self._part.snapshot


def _start(
    msg: AssistantMessage, attempt: _Attempt, event: ev.TextStart | ev.ReasoningStart
) -> TextPart | ReasoningPart:
    """A new text or reasoning part, tracked by the provider's block id for its deltas."""
    fields = {"id": ids.ascending("prt"), "sessionID": msg.sessionID, "messageID": msg.id}
    if isinstance(event, ev.TextStart):
        text = attempt.text[event.id] = TextPart(**fields, time=PartTime(start=now_ms()))
        return text
    reasoning = attempt.reasoning[event.id] = ReasoningPart(**fields, time=PartTime(start=now_ms()))
    return reasoning


def _to_message_error(exc: ProviderError) -> MessageError:
    kinds: dict[str, ErrorKind] = {
        "api": "api",
        "auth": "auth",
        "context-overflow": "context-overflow",
        "aborted": "aborted",
    }
    kind = kinds.get(exc.kind, "unknown")
    return MessageError(
        name=kind,
        message=str(exc),
        status=exc.status,
        retryable=exc.retryable,
    )
