"""The stream processor: one model step of an assistant message, from request to stored parts.

It turns the provider's stream events into the part lifecycle (text, reasoning, tool calls,
step start/finish, patch), runs tool calls as soon as their arguments are complete, retries
retryable provider failures, guards against doom loops, and reports what the loop should do next.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from core import ids
from core.errors import (
    AbortedError,
    ContextOverflowError,
    PermissionDeniedError,
    PermissionRejectedError,
    ProviderError,
    QuestionRejectedError,
    ToolError,
)
from core.events import FileEdited, SessionError, SessionStatus, SessionStatusInfo
from core.llm import events as ev
from core.llm.request import LLMRequest
from core.permission.request import PermissionAsk
from core.session.models import (
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
    ToolPart,
    ToolStateCompleted,
    ToolStateError,
    ToolStatePending,
    ToolStateRunning,
    ToolTimeDone,
    ToolTimeError,
    ToolTimeStart,
    UserTime,
    now_ms,
)
from core.session.retry import RetryPolicy, retry_message, sleep_or_abort
from core.session.services import StepServices
from core.tools.base import Tool, ToolResult
from core.tools.context import AskFn as ToolAskFn
from core.tools.context import ToolContext
from core.tools.runner import run_tool

log = logging.getLogger(__name__)

DOOM_LOOP_THRESHOLD = 3
Outcome = Literal["continue", "stop", "compact"]
StreamFn = Callable[[LLMRequest, asyncio.Event], AsyncIterator[ev.StreamEvent]]
AskFn = Callable[[str, str, PermissionAsk], Awaitable[None]]  # (message_id, call_id, ask)
ContextFactory = Callable[[str, str, ToolAskFn], ToolContext]  # (message_id, call_id, ask) -> ctx


@dataclass
class StepInput:
    """Everything one step needs besides the shared services."""

    assistant: AssistantMessage
    request: LLMRequest
    tools: dict[str, Tool[Any]]
    ask: AskFn
    make_context: ContextFactory
    abort: asyncio.Event
    # (tool, canonical input) of the latest tool calls before this step, oldest first.
    recent_calls: list[tuple[str, str]] = field(default_factory=list)
    check_overflow: Callable[[AssistantMessage], bool] = lambda _m: False
    compact_on_overflow_error: bool = False
    # Turns a provider overflow the loop will not compact for into an error that says what to do.
    explain_overflow: Callable[[ContextOverflowError], ContextOverflowError] = lambda exc: exc


class _Attempt:
    """Parts and tool tasks of one attempt, so a failed attempt can be undone before a retry."""

    def __init__(self) -> None:
        self.parts: dict[str, TextPart | ReasoningPart | ToolPart] = {}
        self.text: dict[str, TextPart] = {}
        self.reasoning: dict[str, ReasoningPart] = {}
        self.tools: dict[str, ToolPart] = {}
        self.tasks: list[asyncio.Task[None]] = []


class Processor:
    """Runs one step; see ``process``."""

    def __init__(self, services: StepServices, stream_fn: StreamFn, retry: RetryPolicy) -> None:
        self._s = services
        self._stream = stream_fn
        self._retry = retry
        self._updates: set[asyncio.Task[None]] = set()  # live tool updates in flight

    async def process(self, step: StepInput) -> Outcome:
        """Stream one model response into parts, run its tools; say whether to go on."""
        msg = step.assistant
        sessions = self._s.sessions
        start_snapshot = await self._s.snapshot_track()
        await sessions.update_part(
            StepStartPart(
                id=ids.ascending("prt"), sessionID=msg.sessionID, messageID=msg.id, snapshot=start_snapshot
            )
        )
        attempt_no = 0
        while True:
            attempt = _Attempt()
            state = _StepState(blocked=False, finish=None)
            try:
                await self._consume(step, attempt, state)
                break
            except AbortedError:
                await self._cancel_tools(attempt)
                await self._close_open_parts(attempt, "Tool execution was aborted")
                await self._fail(msg, MessageError(name="aborted", message="Aborted by the user"))
                return "stop"
            except ContextOverflowError as exc:
                await self._cancel_tools(attempt)
                await self._discard(attempt)
                if step.compact_on_overflow_error:
                    return "compact"
                await self._fail(msg, _to_message_error(step.explain_overflow(exc)))
                return "stop"
            except ProviderError as exc:
                await self._cancel_tools(attempt)
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
        return await self._finish(step, state, start_snapshot)

    # --- streaming ---------------------------------------------------------------------

    async def _consume(self, step: StepInput, attempt: _Attempt, state: _StepState) -> None:
        sessions = self._s.sessions
        tool_lock = asyncio.Lock()  # tools that write run one at a time, in call order
        events = self._stream(step.request, step.abort)
        try:
            await self._dispatch(step, attempt, state, events, tool_lock)
        finally:
            # Leaving early (an error, a cancelled task) must close the HTTP response now.
            aclose = getattr(events, "aclose", None)
            if aclose is not None:
                await aclose()
        if attempt.tasks:
            await asyncio.gather(*attempt.tasks)
        if step.abort.is_set():
            raise AbortedError("aborted")
        for text in attempt.text.values():
            if text.time is not None and text.time.end is None:
                text.time.end = now_ms()
                await sessions.end_part(text)
        if state.finish is None:
            raise ProviderError("the model's stream ended without finishing", retryable=True)

    async def _dispatch(
        self,
        step: StepInput,
        attempt: _Attempt,
        state: _StepState,
        events: AsyncIterator[ev.StreamEvent],
        tool_lock: asyncio.Lock,
    ) -> None:
        msg = step.assistant
        sessions = self._s.sessions
        async for event in events:
            if isinstance(event, ev.TextStart):
                text = TextPart(
                    id=ids.ascending("prt"),
                    sessionID=msg.sessionID,
                    messageID=msg.id,
                    time=PartTime(start=now_ms()),
                )
                attempt.text[event.id] = text
                attempt.parts[text.id] = text
                await sessions.update_part(text)
            elif isinstance(event, ev.TextDelta):
                if event.id in attempt.text:
                    sessions.append_delta(attempt.text[event.id], "text", event.text)
            elif isinstance(event, ev.TextEnd):
                text = attempt.text[event.id]
                if text.time is not None:
                    text.time.end = now_ms()
                await sessions.end_part(text)
            elif isinstance(event, ev.ReasoningStart):
                reasoning = ReasoningPart(
                    id=ids.ascending("prt"),
                    sessionID=msg.sessionID,
                    messageID=msg.id,
                    time=PartTime(start=now_ms()),
                )
                attempt.reasoning[event.id] = reasoning
                attempt.parts[reasoning.id] = reasoning
                await sessions.update_part(reasoning)
            elif isinstance(event, ev.ReasoningDelta):
                if event.id in attempt.reasoning:
                    sessions.append_delta(attempt.reasoning[event.id], "text", event.text)
            elif isinstance(event, ev.ReasoningEnd):
                reasoning = attempt.reasoning[event.id]
                reasoning.time.end = now_ms()
                if event.metadata:
                    reasoning.metadata = {**(reasoning.metadata or {}), **event.metadata}
                await sessions.end_part(reasoning)
            elif isinstance(event, ev.ToolInputStart):
                await self._tool_pending(msg, attempt, event.id, event.name)
            elif isinstance(event, ev.ToolInputDelta):
                part = attempt.tools.get(event.id)
                if part is not None and isinstance(part.state, ToolStatePending):
                    part.state.raw += event.delta
            elif isinstance(event, ev.ToolCall):
                await self._tool_call(step, attempt, state, event, tool_lock)
            elif isinstance(event, ev.FinishStep):
                state.finish = event

    async def _tool_pending(
        self, msg: AssistantMessage, attempt: _Attempt, call_id: str, name: str
    ) -> ToolPart:
        part = ToolPart(
            id=ids.ascending("prt"),
            sessionID=msg.sessionID,
            messageID=msg.id,
            callID=call_id,
            tool=name,
            state=ToolStatePending(),
        )
        attempt.tools[call_id] = part
        attempt.parts[part.id] = part
        await self._s.sessions.update_part(part)
        return part

    async def _tool_call(
        self,
        step: StepInput,
        attempt: _Attempt,
        state: _StepState,
        event: ev.ToolCall,
        lock: asyncio.Lock,
    ) -> None:
        msg = step.assistant
        part = attempt.tools.get(event.id) or await self._tool_pending(msg, attempt, event.id, event.name)
        started = now_ms()
        tool = step.tools.get(event.name)
        if event.error is not None or event.input is None:
            await self._tool_error(
                part,
                event.input or {},
                f"The {event.name} tool was called with invalid arguments: {event.error}. "
                "Rewrite the input as a JSON object that satisfies the tool's schema.",
                started,
            )
            return
        if tool is None:
            available = ", ".join(sorted(step.tools)) or "none"
            await self._tool_error(
                part,
                event.input,
                f"There is no tool named {event.name!r}. Available tools: {available}.",
                started,
            )
            return
        part.state = ToolStateRunning(input=event.input, time=ToolTimeStart(start=started))
        await self._s.sessions.update_part(part)
        key = (event.name, _canonical(event.input))
        step.recent_calls.append(key)
        doom = len(step.recent_calls) >= DOOM_LOOP_THRESHOLD and all(
            c == key for c in step.recent_calls[-DOOM_LOOP_THRESHOLD:]
        )
        task = asyncio.create_task(self._execute(step, state, part, tool, event.input, doom, lock))
        attempt.tasks.append(task)

    async def _execute(
        self,
        step: StepInput,
        state: _StepState,
        part: ToolPart,
        tool: Tool[Any],
        args: dict[str, Any],
        doom: bool,
        lock: asyncio.Lock,
    ) -> None:
        msg = step.assistant
        started = part.state.time.start if isinstance(part.state, ToolStateRunning) else now_ms()
        ctx = step.make_context(msg.id, part.callID, lambda req: step.ask(msg.id, part.callID, req))
        ctx.update = self._live_updater(part)
        try:
            if doom:
                await step.ask(
                    msg.id,
                    part.callID,
                    PermissionAsk(
                        "doom_loop",
                        [tool.id],
                        always=[tool.id],
                        title=f"{tool.id} called {DOOM_LOOP_THRESHOLD} times in a row with the same input",
                        metadata={"tool": tool.id, "input": args},
                    ),
                )
            if tool.read_only:
                result = await run_tool(tool, args, ctx)
            else:
                async with lock:
                    result = await run_tool(tool, args, ctx)
        except PermissionRejectedError as exc:
            if exc.feedback:
                text = f"The user rejected this call and said: {exc.feedback}"
            else:
                text = "The user rejected this call. Stop and wait for the user's instructions."
                state.blocked = True
            await self._tool_error(part, args, text, started)
        except QuestionRejectedError as exc:
            state.blocked = True
            await self._tool_error(part, args, str(exc) or "The user dismissed the question.", started)
        except PermissionDeniedError as exc:
            await self._tool_error(part, args, str(exc), started)
        except ToolError as exc:
            await self._tool_error(part, args, str(exc), started)
        except asyncio.CancelledError:
            await self._tool_error(part, args, "Tool execution was aborted", started)
            raise
        except Exception as exc:  # a crashing tool must not take the turn down; the model sees why
            log.exception("tool %s crashed (session %s, call %s)", tool.id, msg.sessionID, part.callID)
            await self._tool_error(part, args, f"The tool crashed: {type(exc).__name__}: {exc}", started)
        else:
            if step.abort.is_set():
                # The tool stopped because of the abort; what it produced so far stays visible.
                part.metadata = {**(part.metadata or {}), "partialOutput": result.output[-4000:]}
                await self._tool_error(part, args, "Tool execution was aborted", started)
                return
            await self._tool_done(part, args, result, started)

    def _live_updater(self, part: ToolPart) -> Callable[[str | None, dict[str, Any]], None]:
        loop = asyncio.get_running_loop()

        def update(title: str | None, metadata: dict[str, Any]) -> None:
            if not isinstance(part.state, ToolStateRunning):
                return
            if title is not None:
                part.state.title = title
            part.state.metadata = {**(part.state.metadata or {}), **metadata}
            task = loop.create_task(self._s.sessions.update_part(part))
            self._updates.add(task)
            task.add_done_callback(self._updates.discard)

        return update

    async def _tool_done(
        self, part: ToolPart, args: dict[str, Any], result: ToolResult, started: int
    ) -> None:
        part.state = ToolStateCompleted(
            input=args,
            output=result.output,
            title=result.title,
            metadata=result.metadata,
            attachments=result.attachments,
            time=ToolTimeDone(start=started, end=now_ms()),
        )
        await self._s.sessions.update_part(part)
        filepath = result.metadata.get("filepath")
        if isinstance(filepath, str):
            # Edits are announced on their own so editors can show and review them per file.
            diff = result.metadata.get("diff")
            self._s.bus.publish(
                FileEdited(
                    file=filepath,
                    sessionID=part.sessionID,
                    messageID=part.messageID,
                    callID=part.callID,
                    diff=diff if isinstance(diff, str) else None,
                )
            )

    async def _tool_error(self, part: ToolPart, args: dict[str, Any], error: str, started: int) -> None:
        part.state = ToolStateError(input=args, error=error, time=ToolTimeError(start=started, end=now_ms()))
        await self._s.sessions.update_part(part)

    # --- endings -----------------------------------------------------------------------

    async def _finish(self, step: StepInput, state: _StepState, start_snapshot: str | None) -> Outcome:
        msg = step.assistant
        finish = state.finish
        assert finish is not None
        end_snapshot = await self._s.snapshot_track()
        await self._s.sessions.update_part(
            StepFinishPart(
                id=ids.ascending("prt"),
                sessionID=msg.sessionID,
                messageID=msg.id,
                reason=finish.reason,
                snapshot=end_snapshot,
                tokens=finish.tokens,
                cost=finish.cost,
            )
        )
        if start_snapshot is not None:
            files = await self._s.snapshot_patch(start_snapshot)
            if files:
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
        if state.blocked:
            return "stop"
        if step.check_overflow(msg):
            return "compact"
        return "continue"

    async def _fail(self, msg: AssistantMessage, error: MessageError) -> None:
        msg.error = error
        msg.time.completed = now_ms()
        await self._s.sessions.update_message(msg)
        self._s.bus.publish(SessionError(sessionID=msg.sessionID, error=error))

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

    async def _cancel_tools(self, attempt: _Attempt) -> None:
        pending = [t for t in attempt.tasks if not t.done()]
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)

    async def _close_open_parts(self, attempt: _Attempt, reason: str) -> None:
        for part in attempt.tools.values():
            if isinstance(part.state, ToolStatePending | ToolStateRunning):
                start = part.state.time.start if isinstance(part.state, ToolStateRunning) else now_ms()
                await self._tool_error(part, part.state.input, reason, start)
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
        for part in attempt.parts.values():
            await self._s.sessions.remove_part(part.sessionID, part.messageID, part.id)


@dataclass
class _StepState:
    blocked: bool
    finish: ev.FinishStep | None


def _canonical(value: dict[str, Any]) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


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
