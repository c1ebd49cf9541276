"""The tool-call executor of a step (``core.session.tool_calls.ToolCalls``) on its own: fake tools, a
fake permission seam, the real store; no model and no HTTP."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from core.bus import Bus
from core.config.schema import Config
from core.errors import PermissionDeniedError, PermissionRejectedError
from core.llm import events as ev
from core.llm.model import resolve_model
from core.llm.request import LLMRequest
from core.message.models import AssistantMessage, ToolStateCompleted, ToolStateError
from core.permission.request import PermissionAsk
from core.session.services import StepServices
from core.session.sessions import Sessions
from core.session.step import StepInput
from core.session.tool_calls import DOOM_LOOP_THRESHOLD, ToolCalls
from core.tools.base import Tool, ToolParams, ToolResult
from core.tools.context import ToolContext
from tests.unit.session.test_processor_snapshots import world
from tests.unit.tools.harness import allow_all

__all__ = ["world"]  # the fixture: a store with one session and an assistant message
LOCAL = {"api_base": "http://127.0.0.1:9"}  # never contacted: no model runs here


class EchoParams(ToolParams):
    text: str


class Echo(Tool[EchoParams]):
    id = "echo"
    Params = EchoParams

    @property
    def description(self) -> str:
        return "Says the text back."

    async def execute(self, params: EchoParams, ctx: ToolContext) -> ToolResult:
        return ToolResult("echo", params.text)


class Seam:
    """The permission seam of a step: answers every ask with ``answer`` and records what was asked."""

    def __init__(self, answer: Exception | None = None) -> None:
        self.answer = answer
        self.asked: list[PermissionAsk] = []

    async def ask(self, request: PermissionAsk) -> None:
        self.asked.append(request)
        if self.answer is not None:
            raise self.answer


def executor(
    world: tuple[Sessions, AssistantMessage, Bus], tmp_path: Path, seam: Seam
) -> tuple[ToolCalls, StepInput]:
    sessions, msg, bus = world
    model = {"limit": {"context": 100_000, "output": 4_096}}
    config = Config.model_validate(
        {"provider": {"fake": {"litellm_provider": "openai", "options": LOCAL, "models": {"m": model}}}}
    )

    def context(message_id: str, call_id: str) -> ToolContext:
        ctx = allow_all(tmp_path, tmp_path / "data", call_id=call_id)
        ctx.ask = seam.ask
        return ctx

    step = StepInput(
        msg, LLMRequest(resolve_model(config, "fake/m"), [], []), {"echo": Echo()}, context, asyncio.Event()
    )
    return ToolCalls(StepServices(sessions, bus), step), step


def call(call_id: str, name: str = "echo", text: str = "hi", error: str | None = None) -> ev.ToolCall:
    args: dict[str, Any] | None = None if error else {"text": text}
    return ev.ToolCall(id=call_id, name=name, input=args, raw="{}", error=error)


async def run(calls: ToolCalls, *events: ev.ToolCall) -> None:
    for event in events:
        await calls.call(event)
    await asyncio.wait_for(calls.wait(), 10)


async def test_a_call_runs_and_completes(world: Any, tmp_path: Path) -> None:
    calls, _ = executor(world, tmp_path, Seam())
    await run(calls, call("c1", text="hello"))
    state = calls.parts["c1"].state
    assert isinstance(state, ToolStateCompleted) and state.output == "hello"
    assert not calls.blocked


@pytest.mark.parametrize(
    ("event", "error"),
    [
        (call("c1", name="nope"), "There is no tool named 'nope'. Available tools: echo."),
        (call("c1", error="Expecting value"), "invalid arguments: Expecting value. Rewrite the input"),
    ],
)
async def test_a_bad_call_becomes_an_error_the_model_reads(
    world: Any, tmp_path: Path, event: ev.ToolCall, error: str
) -> None:
    calls, _ = executor(world, tmp_path, Seam())
    await run(calls, event)
    state = calls.parts["c1"].state
    assert isinstance(state, ToolStateError) and error in state.error
    assert calls.tasks == [] and not calls.blocked


async def test_the_same_call_a_third_time_asks_about_a_doom_loop(world: Any, tmp_path: Path) -> None:
    seam = Seam()
    calls, _ = executor(world, tmp_path, seam)
    await run(calls, *[call(f"c{i}") for i in range(DOOM_LOOP_THRESHOLD)])
    assert [a.permission for a in seam.asked] == ["doom_loop"]
    assert all(isinstance(p.state, ToolStateCompleted) for p in calls.parts.values())


async def test_a_denied_doom_loop_blocks_the_step(world: Any, tmp_path: Path) -> None:
    calls, _ = executor(world, tmp_path, Seam(PermissionDeniedError("doom_loop is denied")))
    await run(calls, *[call(f"c{i}") for i in range(DOOM_LOOP_THRESHOLD)])
    last = calls.parts[f"c{DOOM_LOOP_THRESHOLD - 1}"].state
    assert isinstance(last, ToolStateError) and "permission doom_loop → deny" in last.error
    assert calls.blocked


@pytest.mark.parametrize(("feedback", "blocked"), [(None, True), ("use grep instead", False)])
async def test_a_rejection_blocks_the_step_unless_it_says_what_to_do(
    world: Any, tmp_path: Path, feedback: str | None, blocked: bool
) -> None:
    seam = Seam(PermissionRejectedError("rejected", feedback=feedback))
    calls, _ = executor(world, tmp_path, seam)
    await run(calls, *[call(f"c{i}") for i in range(DOOM_LOOP_THRESHOLD)])
    last = calls.parts[f"c{DOOM_LOOP_THRESHOLD - 1}"].state
    assert isinstance(last, ToolStateError) and last.metadata == {"rejected": True}
    assert (feedback or "Stop and wait") in last.error
    assert calls.blocked is blocked
