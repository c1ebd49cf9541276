"""PromptQueue against a fake of the session loop: order, stop and send, edits, removal, closing."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import cast

import pytest

from core.bus import Bus, Subscription
from core.errors import AbortedError, InvalidInputError, NotFoundError
from core.events import Event, QueueAdded, QueueRemoved, QueueStarted, QueueUpdated
from core.message.models import MessageWithParts, UserMessage
from core.message.prompt_input import AgentInput, FileInput, PromptMode, TextInput
from core.session.queue import PromptQueue

SID = "ses_1"


def say(text: str) -> list[TextInput]:
    return [TextInput(type="text", text=text)]


class FakeTurns:
    """One turn per prompt; a test ends the running turn with ``finish`` (or ``abort``)."""

    def __init__(self) -> None:
        self.started: list[str] = []
        self.aborts = 0
        self._task: asyncio.Task[MessageWithParts] | None = None
        self._end: asyncio.Future[str] | None = None
        self.changed = asyncio.Event()

    def current(self, session_id: str) -> asyncio.Task[MessageWithParts] | None:
        return None if self._task is None or self._task.done() else self._task

    async def prompt(
        self,
        session_id: str,
        inputs: Sequence[TextInput | FileInput | AgentInput],
        *,
        agent: str | None = None,
        model: str | None = None,
    ) -> MessageWithParts:
        text = " ".join(p.text for p in inputs if isinstance(p, TextInput))
        self.started.append(text)
        self._end = asyncio.get_running_loop().create_future()
        self._task = asyncio.create_task(self._turn(text, self._end))
        self.changed.set()
        return await asyncio.shield(self._task)

    async def _turn(self, text: str, end: asyncio.Future[str]) -> MessageWithParts:
        outcome = await end
        if outcome == "abort":
            raise AbortedError("aborted")
        info = UserMessage.model_validate(
            {
                "id": f"msg_{text}",
                "sessionID": SID,
                "role": "user",
                "time": {"created": 0},
                "agent": "build",
                "model": {"providerID": "p", "modelID": "m"},
            }
        )
        return MessageWithParts(info=info, parts=[])

    async def abort(self, session_id: str) -> None:
        self.aborts += 1
        if self._end is not None and not self._end.done():
            self._end.set_result("abort")
        if self._task is not None:
            await asyncio.wait([self._task])

    async def turn_started(self, count: int) -> None:
        async with asyncio.timeout(5):
            while len(self.started) < count:
                self.changed.clear()
                await self.changed.wait()

    def finish(self) -> None:
        assert self._end is not None
        self._end.set_result("done")


@pytest.fixture
def bus() -> Bus:
    return Bus()


async def test_queued_prompts_run_one_by_one_in_order_each_with_its_own_answer(bus: Bus) -> None:
    turns = FakeTurns()
    queue = PromptQueue(turns, bus)
    with bus.subscribe(QueueAdded, QueueStarted) as events:
        first = asyncio.create_task(queue.submit(SID, say("a"), mode="queue"))  # idle: runs at once
        await turns.turn_started(1)
        second = asyncio.create_task(queue.submit(SID, say("b"), mode="queue"))
        third = asyncio.create_task(queue.submit(SID, say("c"), mode="queue"))
        await asyncio.wait_for(_queued(bus, queue, 2), 5)
        assert [q.parts for q in queue.list(SID)] == [say("b"), say("c")]
        turns.finish()
        assert (await first).info.id == "msg_a"
        await turns.turn_started(2)
        turns.finish()
        assert (await second).info.id == "msg_b"
        await turns.turn_started(3)
        turns.finish()
        assert (await third).info.id == "msg_c"
        kinds = [type(e).__name__ for e in _drain(events)]
    assert turns.started == ["a", "b", "c"]
    assert kinds == ["QueueAdded", "QueueAdded", "QueueStarted", "QueueStarted"]


async def test_a_turn_that_fails_does_not_stop_the_queue(bus: Bus) -> None:
    turns = FakeTurns()
    queue = PromptQueue(turns, bus)
    first = asyncio.create_task(queue.submit(SID, say("a")))
    await turns.turn_started(1)
    second = asyncio.create_task(queue.submit(SID, say("b"), mode="queue"))
    await asyncio.wait_for(_queued(bus, queue, 1), 5)
    await turns.abort(SID)
    with pytest.raises(AbortedError):
        await first
    await turns.turn_started(2)
    turns.finish()
    assert (await second).info.id == "msg_b"


async def test_stop_and_send_goes_first_and_aborts_the_running_turn(bus: Bus) -> None:
    turns = FakeTurns()
    queue = PromptQueue(turns, bus)
    first = asyncio.create_task(queue.submit(SID, say("a")))
    await turns.turn_started(1)
    later = asyncio.create_task(queue.submit(SID, say("later"), mode="queue"))
    await asyncio.wait_for(_queued(bus, queue, 1), 5)
    now = asyncio.create_task(queue.submit(SID, say("now"), mode="interrupt"))
    with pytest.raises(AbortedError):
        await first
    await turns.turn_started(2)
    assert turns.aborts == 1 and turns.started == ["a", "now"]
    turns.finish()
    assert (await now).info.id == "msg_now"
    await turns.turn_started(3)
    turns.finish()
    assert (await later).info.id == "msg_later"


async def test_steer_joins_the_running_turn_instead_of_queueing(bus: Bus) -> None:
    turns = FakeTurns()
    queue = PromptQueue(turns, bus)
    first = asyncio.create_task(queue.submit(SID, say("a")))
    await turns.turn_started(1)
    steer = asyncio.create_task(queue.submit(SID, say("b"), mode="steer"))
    await turns.turn_started(2)  # the fake loop is called at once: the real one joins the turn
    assert queue.list(SID) == []
    turns.finish()
    await steer
    first.cancel()


async def test_edit_and_remove_only_while_queued(bus: Bus) -> None:
    turns = FakeTurns()
    queue = PromptQueue(turns, bus)
    first = asyncio.create_task(queue.submit(SID, say("a")))
    await turns.turn_started(1)
    edited = asyncio.create_task(queue.submit(SID, say("typo"), mode="queue"))
    removed = asyncio.create_task(queue.submit(SID, say("gone"), mode="queue"))
    await asyncio.wait_for(_queued(bus, queue, 2), 5)
    keep, drop = queue.list(SID)
    with bus.subscribe(QueueUpdated, QueueRemoved) as events:
        assert queue.update(SID, keep.id, say("fixed")).parts == say("fixed")
        queue.remove(SID, drop.id)
        got = _drain(events)
    assert [type(e).__name__ for e in got] == ["QueueUpdated", "QueueRemoved"]
    with pytest.raises(AbortedError, match="removed from the queue"):
        await removed
    with pytest.raises(InvalidInputError):
        queue.update(SID, keep.id, [])
    with pytest.raises(NotFoundError):
        queue.remove(SID, drop.id)
    turns.finish()
    await first
    await turns.turn_started(2)
    assert turns.started[-1] == "fixed"
    with pytest.raises(NotFoundError, match="may have started"):
        queue.update(SID, keep.id, say("too late"))
    turns.finish()
    assert (await edited).info.id == "msg_fixed"


async def test_an_unknown_mode_is_refused(bus: Bus) -> None:
    queue = PromptQueue(FakeTurns(), bus)
    with pytest.raises(InvalidInputError, match="unknown prompt mode 'later'"):
        await queue.submit(SID, say("a"), mode=cast(PromptMode, "later"))  # what a client may send


async def test_clear_and_close_refuse_what_is_still_queued(bus: Bus) -> None:
    turns = FakeTurns()
    queue = PromptQueue(turns, bus)
    first = asyncio.create_task(queue.submit(SID, say("a")))
    await turns.turn_started(1)
    cleared = asyncio.create_task(queue.submit(SID, say("b"), mode="queue"))
    await asyncio.wait_for(_queued(bus, queue, 1), 5)
    queue.clear(SID)
    with pytest.raises(AbortedError, match="session was deleted"):
        await cleared
    closed = asyncio.create_task(queue.submit(SID, say("c"), mode="queue"))
    await asyncio.wait_for(_queued(bus, queue, 1), 5)
    await queue.close()
    with pytest.raises(AbortedError, match="agent closed"):
        await closed
    turns.finish()
    await first


async def _queued(bus: Bus, queue: PromptQueue, count: int) -> None:
    """Until ``count`` prompts of the session wait in the queue: checked again at each
    ``queue.added`` (callers bound it with a timeout)."""
    with bus.subscribe(QueueAdded) as added:
        while len(queue.list(SID)) != count:
            await added.get()


def _drain(sub: Subscription) -> list[Event]:
    out = []
    while (event := sub.get_nowait()) is not None:
        out.append(event)
    return out
