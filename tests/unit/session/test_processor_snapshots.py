"""The step's snapshots: the start snapshot is taken beside the model request, text streams
meanwhile, a tool call waits for it, and the patch runs to the end snapshot instead of taking
another. A step in which no tool was called takes no end snapshot at all: the agent changed nothing.

git takes ~100 ms per snapshot in a 20k-file project (~3 s for its first); before, the request
waited for the start snapshot, and the step's end took three snapshots' worth of git instead of two.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from core.bus import Bus, Subscription
from core.config.schema import Config
from core.errors import ProviderError
from core.events import Event, PartUpdated
from core.llm import events as ev
from core.llm.model import resolve_model
from core.llm.request import LLMRequest
from core.message.models import AnyPart, AssistantMessage, StepFinishPart, StepStartPart, TextPart, Tokens
from core.session.processor import Processor
from core.session.retry import RetryPolicy
from core.session.services import StepServices
from core.session.sessions import Sessions
from core.session.step import StepInput
from core.storage import Store
from core.tools.base import Tool, ToolParams, ToolResult
from core.tools.context import ToolContext
from tests.unit.storage import factories as f
from tests.unit.tools.harness import allow_all


class SlowSnapshots:
    """Snapshot hooks whose first ``track`` (the step's start) waits until released."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.begun = asyncio.Event()
        self.tracks: list[str] = []
        self.patches: list[tuple[str, str | None]] = []

    async def track(self, session_id: str | None = None) -> str:
        name = f"snap{sum(1 for t in self.tracks if t.endswith('begun')) + 1}"
        self.tracks.append(name + " begun")
        self.begun.set()
        if name == "snap1":
            await self.release.wait()
        self.tracks.append(name)
        return name

    async def changed_files(
        self, since: str, until: str | None = None, session_id: str | None = None
    ) -> list[str]:
        self.patches.append((since, until))
        return ["calc.py"]


def drain(sub: Subscription) -> list[Event]:
    events: list[Event] = []
    while (event := sub.get_nowait()) is not None:
        events.append(event)
    return events


FINISH = ev.FinishStep(reason="stop", tokens=Tokens(), cost=0.0)


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[tuple[Sessions, AssistantMessage, Bus]]:
    store = await Store.open(tmp_path / "agentls.db")
    bus = Bus()
    sessions = Sessions(store, bus)
    (tmp_path / "tree").mkdir()
    project = await store.ensure_project(tmp_path / "tree")
    s = f.session(project.id)
    await store.insert_session(s)
    u = f.user(s.id)
    await store.upsert_message(u)
    msg = f.assistant(s.id, u.id, completed=False)
    await store.upsert_message(msg)
    try:
        yield sessions, msg, bus
    finally:
        await sessions.close()
        await store.close()


async def _parts(sessions: Sessions, msg: AssistantMessage) -> list[AnyPart]:
    [message] = [m for m in await sessions.messages(msg.sessionID) if m.info.id == msg.id]
    return message.parts


class ProbeParams(ToolParams):
    pass


class Probe(Tool[ProbeParams]):
    """A tool that calls ``ran`` when it runs (and changes no file)."""

    id = "probe"
    Params = ProbeParams

    def __init__(self, ran: Callable[[], None]) -> None:
        self.ran = ran

    @property
    def description(self) -> str:
        return "Calls back when it runs."

    async def execute(self, params: ProbeParams, ctx: ToolContext) -> ToolResult:
        self.ran()
        return ToolResult("probe", "ok")


def _step(msg: AssistantMessage, tools: dict[str, Any] | None = None, root: Path | None = None) -> StepInput:
    model = {"limit": {"context": 8000, "output": 1000}}
    fake = {
        "litellm_provider": "openai",
        "options": {"api_base": "http://127.0.0.1:9"},
        "models": {"m": model},
    }
    config = Config.model_validate({"provider": {"fake": fake}})
    request = LLMRequest(resolve_model(config, "fake/m"), ["sys"], [])

    def context(message_id: str, call_id: str) -> ToolContext:
        assert root is not None
        return allow_all(root, root / "data", call_id=call_id)

    return StepInput(msg, request, tools or {}, context, asyncio.Event())


async def test_the_request_goes_out_and_text_streams_while_the_start_snapshot_is_taken(
    world: tuple[Sessions, AssistantMessage, Bus],
) -> None:
    sessions, msg, bus = world
    snapshots = SlowSnapshots()
    seen_at_request: list[list[str]] = []

    async def stream(request: LLMRequest, abort: asyncio.Event) -> AsyncIterator[ev.StreamEvent]:
        seen_at_request.append(list(snapshots.tracks))  # the request is being sent
        await asyncio.wait_for(snapshots.begun.wait(), 5)  # git starts while the request is out
        seen_at_request.append(list(snapshots.tracks))
        yield ev.TextStart("t")
        yield ev.TextDelta("t", "Hello")
        yield ev.TextEnd("t")
        # The text is stored while git is still at work (a processor that waited for the snapshot
        # before sending or streaming would never get here: only this releases it).
        [text] = [p for p in await _parts(sessions, msg) if isinstance(p, TextPart)]
        assert text.text == "Hello" and snapshots.tracks == ["snap1 begun"]
        snapshots.release.set()
        yield FINISH

    sub = bus.subscribe()
    processor = Processor(StepServices(sessions, bus, snapshots), stream, RetryPolicy())
    outcome = await asyncio.wait_for(processor.process(_step(msg)), 10)

    assert outcome == "continue"
    assert seen_at_request == [[], ["snap1 begun"]]  # sent without waiting; git began meanwhile
    stored = await _parts(sessions, msg)
    # Text only: no end snapshot, no patch (the files the snapshot saw "changing" would be the
    # user's, and a revert of this step must not undo them).
    assert [type(p).__name__ for p in stored] == ["StepStartPart", "TextPart", "StepFinishPart"]
    start, _, finish = stored
    assert isinstance(start, StepStartPart) and isinstance(finish, StepFinishPart)
    assert (start.snapshot, finish.snapshot) == ("snap1", "snap1")
    assert any(isinstance(e, PartUpdated) and e.part.id == start.id for e in drain(sub))
    assert snapshots.patches == []
    assert snapshots.tracks == ["snap1 begun", "snap1"]


async def test_a_tool_call_waits_for_the_start_snapshot(
    world: tuple[Sessions, AssistantMessage, Bus], tmp_path: Path
) -> None:
    sessions, msg, bus = world
    snapshots = SlowSnapshots()
    ran_after: list[list[str]] = []

    async def stream(request: LLMRequest, abort: asyncio.Event) -> AsyncIterator[ev.StreamEvent]:
        asyncio.get_running_loop().call_later(0.05, snapshots.release.set)  # git, still at work
        yield ev.ToolCall(id="call_1", name="probe", input={}, raw="{}")
        yield ev.FinishStep(reason="tool-calls", tokens=Tokens(), cost=0.0)

    step = _step(msg, {"probe": Probe(lambda: ran_after.append(list(snapshots.tracks)))}, tmp_path)
    processor = Processor(StepServices(sessions, bus, snapshots), stream, RetryPolicy())
    assert await asyncio.wait_for(processor.process(step), 10) == "continue"
    assert ran_after == [["snap1 begun", "snap1"]]
    stored = await _parts(sessions, msg)
    names = [type(p).__name__ for p in stored]
    assert names == ["StepStartPart", "ToolPart", "StepFinishPart", "PatchPart"]
    finish = stored[2]
    assert isinstance(finish, StepFinishPart) and finish.snapshot == "snap2"
    # The patch runs to the end snapshot; no third snapshot of the same files.
    assert snapshots.patches == [("snap1", "snap2")]
    assert snapshots.tracks == ["snap1 begun", "snap1", "snap2 begun", "snap2"]


async def test_a_tool_called_in_a_failed_attempt_still_gets_the_end_snapshot(
    world: tuple[Sessions, AssistantMessage, Bus], tmp_path: Path
) -> None:
    # The first attempt runs a tool (which may have written), then the stream breaks; the retry
    # answers with text only. The files may differ from the start: the step still ends with a
    # snapshot and a patch.
    sessions, msg, bus = world
    snapshots = SlowSnapshots()
    snapshots.release.set()
    attempts = 0

    async def stream(request: LLMRequest, abort: asyncio.Event) -> AsyncIterator[ev.StreamEvent]:
        nonlocal attempts
        attempts += 1
        if attempts == 1:
            yield ev.ToolCall(id="call_1", name="probe", input={}, raw="{}")
            raise ProviderError("connection reset", retryable=True)
        yield ev.TextStart("t")
        yield ev.TextDelta("t", "Done")
        yield ev.TextEnd("t")
        yield FINISH

    step = _step(msg, {"probe": Probe(lambda: None)}, tmp_path)
    processor = Processor(StepServices(sessions, bus, snapshots), stream, RetryPolicy(initial_delay=0.01))
    assert await asyncio.wait_for(processor.process(step), 10) == "continue"
    assert attempts == 2
    stored = await _parts(sessions, msg)
    names = [type(p).__name__ for p in stored]
    assert names == ["StepStartPart", "RetryPart", "TextPart", "StepFinishPart", "PatchPart"]
    assert snapshots.patches == [("snap1", "snap2")]


async def test_a_request_that_fails_at_once_still_leaves_the_step_start(
    world: tuple[Sessions, AssistantMessage, Bus],
) -> None:
    sessions, msg, bus = world
    snapshots = SlowSnapshots()

    async def stream(request: LLMRequest, abort: asyncio.Event) -> AsyncIterator[ev.StreamEvent]:
        raise ProviderError("401 from provider: bad key", retryable=False)
        yield FINISH  # pragma: no cover - makes this an async generator

    sub = bus.subscribe()
    asyncio.get_running_loop().call_later(0.05, snapshots.release.set)
    processor = Processor(StepServices(sessions, bus, snapshots), stream, RetryPolicy())
    outcome = await asyncio.wait_for(processor.process(_step(msg)), 10)

    assert outcome == "stop"
    assert msg.error is not None and "bad key" in msg.error.message
    [start] = [e.part for e in drain(sub) if isinstance(e, PartUpdated)]
    assert isinstance(start, StepStartPart) and start.snapshot == "snap1"
    assert snapshots.patches == []  # a failed step writes no patch, as before
