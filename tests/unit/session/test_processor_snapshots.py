"""The step's snapshots: the start snapshot is taken beside the first model request, and the patch
runs to the end snapshot instead of taking another.

git takes ~100 ms per snapshot in a 20k-file project; before, the request waited for the start
snapshot, and the step's end took three snapshots' worth of git instead of two.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
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
from core.session.models import AssistantMessage, StepFinishPart, StepStartPart, TextPart, Tokens
from core.session.processor import Processor
from core.session.retry import RetryPolicy
from core.session.services import StepServices
from core.session.sessions import Sessions
from core.session.step import StepInput
from core.storage import Store
from tests.unit.storage import factories as f


class SlowSnapshots:
    """Snapshot hooks whose first ``track`` (the step's start) waits until released."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.tracks: list[str] = []
        self.patches: list[tuple[str, str | None]] = []

    async def track(self) -> str:
        name = f"snap{sum(1 for t in self.tracks if t.endswith('begun')) + 1}"
        self.tracks.append(name + " begun")
        if name == "snap1":
            await self.release.wait()
        self.tracks.append(name)
        return name

    async def changed_files(self, since: str, until: str | None = None) -> list[str]:
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


def _step(msg: AssistantMessage) -> StepInput:
    model = {"limit": {"context": 8000, "output": 1000}}
    fake = {
        "litellm_provider": "openai",
        "options": {"api_base": "http://127.0.0.1:9"},
        "models": {"m": model},
    }
    config = Config.model_validate({"provider": {"fake": fake}})
    request = LLMRequest(resolve_model(config, "fake/m"), ["sys"], [])

    async def ask(*_: Any) -> None:
        raise AssertionError("no tool runs in these steps")

    def no_context(*_: Any) -> Any:
        raise AssertionError("no tool runs in these steps")

    return StepInput(msg, request, {}, ask, no_context, asyncio.Event())


async def test_the_request_goes_out_while_the_start_snapshot_is_taken(
    world: tuple[Sessions, AssistantMessage, Bus],
) -> None:
    sessions, msg, bus = world
    snapshots = SlowSnapshots()
    seen_at_request: list[list[str]] = []

    async def stream(request: LLMRequest, abort: asyncio.Event) -> AsyncIterator[ev.StreamEvent]:
        seen_at_request.append(list(snapshots.tracks))  # the request is being sent
        await asyncio.sleep(0.01)  # connecting, waiting for the first token
        seen_at_request.append(list(snapshots.tracks))
        # git is slower still (a processor that waited for it before sending would never get here)
        asyncio.get_running_loop().call_later(0.05, snapshots.release.set)
        yield ev.TextStart("t")  # the model answers at once: its text must still wait for the snapshot
        yield ev.TextDelta("t", "Hello")
        yield ev.TextEnd("t")
        yield FINISH

    sub = bus.subscribe()
    processor = Processor(StepServices(sessions, bus, snapshots), stream, RetryPolicy())
    outcome = await asyncio.wait_for(processor.process(_step(msg)), 10)

    assert outcome == "continue"
    # Sent without waiting for the start snapshot, which git takes meanwhile.
    assert seen_at_request == [[], ["snap1 begun"]]
    updated = [e.part for e in drain(sub) if isinstance(e, PartUpdated)]
    kinds = [type(p).__name__ for p in updated if not isinstance(p, TextPart) or p.text]
    assert kinds[0] == "StepStartPart" and "TextPart" in kinds  # stored before any of the stream's parts
    [start] = [p for p in updated if isinstance(p, StepStartPart)]
    [finish] = [p for p in updated if isinstance(p, StepFinishPart)]
    assert (start.snapshot, finish.snapshot) == ("snap1", "snap2")
    assert all(p.id > start.id for p in updated if p is not start)
    # The patch runs to the end snapshot; no third snapshot of the same files.
    assert snapshots.patches == [("snap1", "snap2")]
    assert snapshots.tracks == ["snap1 begun", "snap1", "snap2 begun", "snap2"]


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
