"""A step whose snapshot or patch fails is not a step that changed nothing: an ``agent.warning``
tells the user, the step-finish part is marked ``unrecorded``, and a revert over it says so."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

from core.bus import Bus
from core.events import AgentWarning
from core.llm import events as ev
from core.llm.request import LLMRequest
from core.message.models import AssistantMessage, MessageWithParts, StepFinishPart, Tokens
from core.session.processor import Processor
from core.session.retry import RetryPolicy
from core.session.services import StepServices
from core.session.sessions import Sessions
from core.snapshot.history import find_point, unrecorded_steps
from tests.unit.session.test_processor_snapshots import Probe, _parts, _step, drain, world
from tests.unit.storage import factories as f

__all__ = ["world"]  # the fixture, shared with the snapshot tests


class BrokenSnapshots:
    """Snapshot hooks whose patch (or, with ``track_fails``, second snapshot) raises, as git can."""

    def __init__(self, *, track_fails: bool = False) -> None:
        self.track_fails = track_fails
        self.tracks = 0

    async def track(self, session_id: str | None = None) -> str:
        self.tracks += 1
        if self.track_fails and self.tracks > 1:
            raise OSError("git: index.lock exists")
        return f"snap{self.tracks}"

    async def changed_files(
        self, since: str, until: str | None = None, session_id: str | None = None
    ) -> list[str]:
        raise OSError("git: object file is empty")


async def _tool_step(
    sessions: Sessions, msg: AssistantMessage, bus: Bus, snapshots: BrokenSnapshots, tmp_path: Path
) -> list[AgentWarning]:
    async def stream(request: LLMRequest, abort: asyncio.Event) -> AsyncIterator[ev.StreamEvent]:
        yield ev.ToolCall(id="call_1", name="probe", input={}, raw="{}")
        yield ev.FinishStep(reason="tool-calls", tokens=Tokens(), cost=0.0)

    sub = bus.subscribe(AgentWarning)
    processor = Processor(StepServices(sessions, bus, snapshots), stream, RetryPolicy())
    step = _step(msg, {"probe": Probe(lambda: None)}, tmp_path)
    assert await asyncio.wait_for(processor.process(step), 10) == "continue"
    return [e for e in drain(sub) if isinstance(e, AgentWarning)]


async def test_a_failed_patch_is_a_warning_and_marks_the_step(
    world: tuple[Sessions, AssistantMessage, Bus], tmp_path: Path
) -> None:
    sessions, msg, bus = world
    warnings = await _tool_step(sessions, msg, bus, BrokenSnapshots(), tmp_path)

    [warning] = warnings
    assert warning.kind == "snapshot" and warning.sessionID == msg.sessionID
    assert "object file is empty" in warning.message and "not recorded" in warning.message
    stored = await _parts(sessions, msg)
    assert [type(p).__name__ for p in stored] == ["StepStartPart", "ToolPart", "StepFinishPart"]
    finish = stored[-1]
    assert isinstance(finish, StepFinishPart) and finish.unrecorded is True


async def test_a_failed_end_snapshot_is_a_warning_and_marks_the_step(
    world: tuple[Sessions, AssistantMessage, Bus], tmp_path: Path
) -> None:
    sessions, msg, bus = world
    warnings = await _tool_step(sessions, msg, bus, BrokenSnapshots(track_fails=True), tmp_path)

    assert [w.kind for w in warnings] == ["snapshot"]
    assert "index.lock" in warnings[0].message
    finish = (await _parts(sessions, msg))[-1]
    assert isinstance(finish, StepFinishPart) and finish.unrecorded is True and finish.snapshot is None


def test_a_revert_point_counts_the_unrecorded_steps_after_it() -> None:
    s = f.session("prj_1")
    user = f.user(s.id)
    first, second = f.assistant(s.id, user.id), f.assistant(s.id, user.id)

    def finish(message: AssistantMessage, unrecorded: bool | None) -> StepFinishPart:
        return StepFinishPart(
            id=f"prt_{message.id}", sessionID=s.id, messageID=message.id, reason="stop", unrecorded=unrecorded
        )

    messages = [
        MessageWithParts(info=user, parts=[]),
        MessageWithParts(info=first, parts=[finish(first, True)]),
        MessageWithParts(info=second, parts=[finish(second, None)]),
    ]
    assert unrecorded_steps(messages) == 1
    assert unrecorded_steps(messages, find_point(messages, first.id, None)) == 1
    assert unrecorded_steps(messages, find_point(messages, second.id, None)) == 0
