"""The tool calls of one step attempt: pending → running → completed | error.

A call starts as soon as its arguments are complete. Read-only tools run concurrently; the others
take a lock, which asyncio hands out in call order. Every failure becomes an error the model reads;
a rejection without a correction marks the step blocked so the loop stops.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from core import ids
from core.errors import PermissionDeniedError, PermissionRejectedError, QuestionRejectedError, ToolError
from core.events import FileEdited
from core.hooks.decision import Outcome
from core.hooks.service import tool_input
from core.llm import events as ev
from core.message.models import (
    ToolPart,
    ToolStateCompleted,
    ToolStateError,
    ToolStatePending,
    ToolStateRunning,
    ToolTimeDone,
    ToolTimeError,
    ToolTimeStart,
    now_ms,
)
from core.permission.request import PermissionAsk
from core.session.services import StepServices
from core.session.step import StepInput
from core.tools.base import Tool, ToolResult
from core.tools.context import ToolContext
from core.tools.runner import run_tool

log = logging.getLogger(__name__)

DOOM_LOOP_THRESHOLD = 3


class ToolCalls:
    """One attempt's tool parts and the tasks running them."""

    def __init__(self, services: StepServices, step: StepInput) -> None:
        self._s = services
        self._step = step
        self._lock = asyncio.Lock()
        self._updates: set[asyncio.Task[None]] = set()  # live metadata writes in flight
        self.parts: dict[str, ToolPart] = {}  # by call id
        self.tasks: list[asyncio.Task[None]] = []
        self.blocked = False

    async def pending(self, call_id: str, name: str) -> ToolPart:
        """The model started writing a call's arguments."""
        msg = self._step.assistant
        part = ToolPart(
            id=ids.ascending("prt"),
            sessionID=msg.sessionID,
            messageID=msg.id,
            callID=call_id,
            tool=name,
            state=ToolStatePending(),
        )
        self.parts[call_id] = part
        await self._s.sessions.update_part(part)
        return part

    def input_delta(self, call_id: str, delta: str) -> None:
        """More of a call's raw arguments (kept in memory until the call is complete)."""
        part = self.parts.get(call_id)
        if part is not None and isinstance(part.state, ToolStatePending):
            part.state.raw += delta

    async def call(self, event: ev.ToolCall) -> None:
        """A complete call: reject bad ones at once, start the rest."""
        step = self._step
        part = self.parts.get(event.id) or await self.pending(event.id, event.name)
        started = now_ms()
        tool = step.tools.get(event.name)
        if event.error is not None or event.input is None:
            await self._error(
                part,
                event.input or {},
                f"The {event.name} tool was called with invalid arguments: {event.error}. "
                "Rewrite the input as a JSON object that satisfies the tool's schema.",
                started,
            )
            return
        if tool is None:
            available = ", ".join(sorted(step.tools)) or "none"
            message = f"There is no tool named {event.name!r}. Available tools: {available}."
            await self._error(part, event.input, message, started)
            return
        part.state = ToolStateRunning(input=event.input, time=ToolTimeStart(start=started))
        await self._s.sessions.update_part(part)
        key = (event.name, json.dumps(event.input, sort_keys=True, separators=(",", ":")))
        step.recent_calls.append(key)
        recent = step.recent_calls[-DOOM_LOOP_THRESHOLD:]
        doom = len(recent) == DOOM_LOOP_THRESHOLD and all(c == key for c in recent)
        self.tasks.append(asyncio.create_task(self._execute(part, tool, event.input, doom, started)))

    async def wait(self) -> None:
        """Until every started call has finished."""
        if self.tasks:
            await asyncio.gather(*self.tasks)

    async def cancel(self) -> None:
        """Stop the calls still running (each records itself as aborted)."""
        running = [t for t in self.tasks if not t.done()]
        for task in running:
            task.cancel()
        if running:
            await asyncio.gather(*running, return_exceptions=True)

    async def close_open(self, reason: str) -> None:
        """Give every call that never finished a result, so the model sees one for each call."""
        for part in self.parts.values():
            if isinstance(part.state, ToolStatePending | ToolStateRunning):
                start = part.state.time.start if isinstance(part.state, ToolStateRunning) else now_ms()
                await self._error(part, part.state.input, reason, start)

    async def _execute(
        self, part: ToolPart, tool: Tool[Any], args: dict[str, Any], doom: bool, started: int
    ) -> None:
        step = self._step
        msg = step.assistant
        ctx = step.make_context(msg.id, part.callID)
        ctx.update = self._live_updater(part)
        try:
            if not await self._pre_hooks(part, tool, args, ctx, started):
                return
            if doom:
                try:
                    await ctx.ask(_doom_loop(tool.id, args))
                except PermissionDeniedError:
                    # A configured deny is the user's standing "no" to repetition: it ends the turn
                    # like a rejection, instead of letting the model try the same call yet again.
                    self.blocked = True
                    await self._error(part, args, _doom_loop_denied(tool.id), started)
                    return
            if tool.read_only:
                result = await run_tool(tool, args, ctx)
            else:
                async with self._lock:
                    result = await run_tool(tool, args, ctx)
        except PermissionRejectedError as exc:
            if step.abort.is_set():
                # Rejected by the abort (its dialog closed, or asked after it): not the user's answer.
                await self._error(part, args, "Tool execution was aborted", started)
                return
            if exc.feedback:
                text = f"The user rejected this call and said: {exc.feedback}"
            else:
                text = "The user rejected this call. Stop and wait for the user's instructions."
                self.blocked = True
            await self._error(part, args, text, started, rejected=True)
        except QuestionRejectedError as exc:
            self.blocked = True
            await self._error(
                part, args, str(exc) or "The user dismissed the question.", started, rejected=True
            )
        except (PermissionDeniedError, ToolError) as exc:
            await self._error(part, args, str(exc), started)
        except asyncio.CancelledError:
            await self._error(part, args, "Tool execution was aborted", started)
            raise
        except Exception as exc:  # a crashing tool must not take the turn down; the model sees why
            log.exception("tool %s crashed (session %s, call %s)", tool.id, msg.sessionID, part.callID)
            await self._error(part, args, f"The tool crashed: {type(exc).__name__}: {exc}", started)
        else:
            if step.abort.is_set():
                # The tool stopped because of the abort; what it produced so far stays visible.
                part.metadata = {**(part.metadata or {}), "partialOutput": result.output[-4000:]}
                await self._error(part, args, "Tool execution was aborted", started)
                return
            result = await self._post_hooks(part, tool, args, result, ctx)
            await self._done(part, args, result, started)

    async def _pre_hooks(
        self, part: ToolPart, tool: Tool[Any], args: dict[str, Any], ctx: ToolContext, started: int
    ) -> bool:
        """Run the PreToolUse hooks; False when they refused the call (recorded as its error). A
        hook's "ask" is a ``hook`` permission dialog; its "allow" leaves the user's rules in charge."""
        hooks, step = self._step.hooks, self._step
        if hooks is None or not hooks.configured("PreToolUse"):
            return True
        msg = step.assistant
        outcome = await hooks.run(
            "PreToolUse",
            {
                "tool_input": tool_input(args),
                "tool_use_id": part.callID,
                "permission_mode": step.permission_mode,
            },
            session_id=msg.sessionID,
            tool=tool.id,
            record=(self._s.sessions, msg.id),
        )
        if outcome.stop:
            self.blocked = True
            await self._error(part, args, _stopped("PreToolUse", outcome), started)
            return False
        if outcome.permission == "deny":
            why = outcome.permission_reason or "no reason given"
            await self._error(
                part, args, f"A PreToolUse hook of the user's refused this call: {why}", started
            )
            return False
        if outcome.permission == "ask":
            why = outcome.permission_reason or "a hook asks for this call"
            await ctx.ask(
                PermissionAsk(
                    "hook",
                    [tool.id],
                    title=f"{tool.id}: {why}",
                    metadata={"tool": tool.id, "input": args, "reason": why},
                )
            )
        return True

    async def _post_hooks(
        self, part: ToolPart, tool: Tool[Any], args: dict[str, Any], result: ToolResult, ctx: ToolContext
    ) -> ToolResult:
        """Run the PostToolUse hooks: what they say for the model is added to the call's output,
        and a file a hook changed (a formatter) reaches the editor's buffer as the disk has it."""
        hooks, step = self._step.hooks, self._step
        if hooks is None or not hooks.configured("PostToolUse"):
            return result
        msg = step.assistant
        response = {"output": result.output, "title": result.title, **_file_of(result)}
        before = await _file_copies(result, ctx)
        outcome = await hooks.run(
            "PostToolUse",
            {
                "tool_input": tool_input(args),
                "tool_response": response,
                "tool_use_id": part.callID,
                "permission_mode": step.permission_mode,
            },
            session_id=msg.sessionID,
            tool=tool.id,
            record=(self._s.sessions, msg.id),
        )
        await sync_hooked_file(result, ctx, before)
        notes = [
            f"A PostToolUse hook of the user's said: {r}" for r in outcome.reasons if outcome.block and r
        ]
        notes += [f"A PostToolUse hook of the user's added: {c}" for c in outcome.context]
        if outcome.stop:
            self.blocked = True
            notes.append(_stopped("PostToolUse", outcome))
        if not notes:
            return result
        return ToolResult(
            output=result.output + "\n\n" + "\n".join(notes),
            title=result.title,
            metadata=result.metadata,
            attachments=result.attachments,
        )

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

    async def _done(self, part: ToolPart, args: dict[str, Any], result: ToolResult, started: int) -> None:
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

    async def _error(
        self, part: ToolPart, args: dict[str, Any], error: str, started: int, *, rejected: bool = False
    ) -> None:
        # ``rejected``: the user said no (a permission or a question), so clients need not show a failure.
        part.state = ToolStateError(
            input=args,
            error=error,
            metadata={"rejected": True} if rejected else None,
            time=ToolTimeError(start=started, end=now_ms()),
        )
        await self._s.sessions.update_part(part)


def _stopped(event: str, outcome: Outcome) -> str:
    why = f": {outcome.stop_reason}" if outcome.stop_reason else ""
    return f"A {event} hook of the user's stopped the turn{why}. Wait for the user's instructions."


def _file_of(result: ToolResult) -> dict[str, Any]:
    path = result.metadata.get("filepath")
    return {"file_path": path, "filePath": path} if isinstance(path, str) else {}


async def _file_copies(result: ToolResult, ctx: ToolContext) -> tuple[bytes, bytes] | None:
    """The file a tool wrote, as the disk and as the editor (the workspace) have it."""
    path = result.metadata.get("filepath")
    if not isinstance(path, str):
        return None
    try:
        return await asyncio.to_thread(Path(path).read_bytes), await ctx.workspace.read_bytes(Path(path))
    except OSError:
        return None


async def sync_hooked_file(result: ToolResult, ctx: ToolContext, before: tuple[bytes, bytes] | None) -> None:
    """After the PostToolUse hooks: when a hook changed the file the tool wrote (a formatter) and
    the editor's copy agreed with the disk before, the hook's text is written again through the
    workspace (the disk first set back to what the workspace last wrote, so the workspace sees the
    file as it left it): an open buffer gets it as one more edit labelled ``hook``, a stock editor
    as the disk write it reloads, and the next save loses nothing. The change is the user's own
    tool's, not a hunk to review."""
    if before is None or before[0] != before[1]:
        return  # an unsaved buffer the disk does not have: the hook worked on older text
    path = Path(str(result.metadata["filepath"]))
    try:
        hooked = await asyncio.to_thread(path.read_bytes)
        if hooked == before[0]:
            return
        await asyncio.to_thread(path.write_bytes, before[0])
    except OSError:
        return
    await ctx.workspace.write_bytes(path, hooked, ctx.edit_context("hook", approved=True))


def _doom_loop(tool_id: str, args: dict[str, Any]) -> PermissionAsk:
    return PermissionAsk(
        "doom_loop",
        [tool_id],
        always=[tool_id],
        title=f"{tool_id} called {DOOM_LOOP_THRESHOLD} times in a row with the same input",
        metadata={"tool": tool_id, "input": args},
    )


def _doom_loop_denied(tool_id: str) -> str:
    return (
        f"{tool_id} was called {DOOM_LOOP_THRESHOLD} times in a row with the same input, and the "
        "configuration denies such repetition (permission doom_loop → deny). The turn was stopped; "
        "try a different approach or ask the user how to proceed."
    )
