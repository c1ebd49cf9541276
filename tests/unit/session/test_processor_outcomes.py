"""What a step's processor tells the loop (continue, stop, compact), from a scripted stream: no HTTP."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from core.bus import Bus
from core.errors import PermissionRejectedError
from core.llm import events as ev
from core.llm.request import LLMRequest
from core.message.models import AssistantMessage, Tokens
from core.session.processor import Processor
from core.session.retry import RetryPolicy
from core.session.services import StepServices
from core.session.sessions import Sessions
from tests.unit.session.test_processor_snapshots import FINISH, world
from tests.unit.session.test_tool_calls import Echo, Seam, executor

__all__ = ["world"]


def script(*events: ev.StreamEvent) -> Any:
    async def stream(request: LLMRequest, abort: asyncio.Event) -> AsyncIterator[ev.StreamEvent]:
        for event in events:
            yield event

    return stream


async def outcome(
    world: tuple[Sessions, AssistantMessage, Bus], tmp_path: Path, seam: Seam, *events: ev.StreamEvent
) -> str:
    sessions, _, bus = world
    _, step = executor(world, tmp_path, seam)
    step.tools = {"echo": Echo()}
    processor = Processor(StepServices(sessions, bus), script(*events), RetryPolicy())
    return await asyncio.wait_for(processor.process(step), 10)


TOOL = ev.ToolCall(id="c1", name="echo", input={"text": "hi"}, raw="{}")
TOOL_CALLS = ev.FinishStep(reason="tool-calls", tokens=Tokens(), cost=0.0)


async def test_an_answer_continues(world: Any, tmp_path: Path) -> None:
    events = (ev.TextStart("t"), ev.TextDelta("t", "Hello"), ev.TextEnd("t"), FINISH)
    assert await outcome(world, tmp_path, Seam(), *events) == "continue"


async def test_a_rejected_call_stops_the_turn(world: Any, tmp_path: Path) -> None:
    seam = Seam(PermissionRejectedError("rejected"))
    # Echo asks nothing itself; the third identical call of a step asks (a doom loop).
    calls = [ev.ToolCall(id=f"c{i}", name="echo", input={"text": "hi"}, raw="{}") for i in range(3)]
    assert await outcome(world, tmp_path, seam, *calls, TOOL_CALLS) == "stop"


async def test_a_step_that_filled_the_window_compacts(world: Any, tmp_path: Path) -> None:
    sessions, _, bus = world
    _, step = executor(world, tmp_path, Seam())
    step.check_overflow = lambda _m: True
    processor = Processor(StepServices(sessions, bus), script(TOOL, TOOL_CALLS), RetryPolicy())
    assert await asyncio.wait_for(processor.process(step), 10) == "compact"
