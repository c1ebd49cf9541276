"""The prompt queue through a real agent and the fake model over HTTP: each queued prompt runs as
its own turn when the running one ends, however it ends, and gets its own answer."""

from __future__ import annotations

import asyncio

import pytest

from core.api import Agent
from core.errors import AbortedError, UnqueuedError
from core.events import PartDelta, PermissionAsked, QueueAdded, QueueRemoved, QueueStarted
from core.message.models import AssistantMessage, MessageWithParts
from core.message.prompt_input import TextInput
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.harness import wait_for

from .conftest import AppFactory, text_of


def say(text: str) -> list[TextInput]:
    return [TextInput(type="text", text=text)]


def answered(message: MessageWithParts, text: str) -> bool:
    info = message.info
    return isinstance(info, AssistantMessage) and info.error is None and text_of(message) == text


async def queue_behind(app: Agent, session_id: str, text: str) -> asyncio.Task[MessageWithParts]:
    """Send ``text`` as a queued prompt and return once it is in the queue."""
    added = asyncio.create_task(wait_for(app, QueueAdded, lambda e: e.item.parts == say(text), timeout=10))
    task = asyncio.create_task(app.prompt(session_id, say(text), mode="queue"))
    await added
    return task


async def test_two_prompts_queued_during_a_long_answer_get_their_own_answers_in_order(
    make_app: AppFactory, model: FakeModelServer
) -> None:
    app = await make_app()
    release = asyncio.Event()
    model.script(
        Turn.text("the long first answer", chunks=6).stall(after=2, until=release),
        Turn.text("answer one"),
        Turn.text("answer two"),
    )
    session = await app.create_session()
    streaming = asyncio.create_task(wait_for(app, PartDelta, timeout=10))
    first = asyncio.create_task(app.prompt(session.id, say("go")))
    await streaming
    one = await queue_behind(app, session.id, "then one")
    two = await queue_behind(app, session.id, "then two")
    assert [q.parts for q in app.queued(session.id)] == [say("then one"), say("then two")]
    release.set()

    results = await asyncio.wait_for(asyncio.gather(first, one, two), 30)
    assert [text_of(r) for r in results] == ["the long first answer", "answer one", "answer two"]
    assert all(answered(r, text_of(r)) for r in results)
    assert len(model.requests) == 3
    # The running turn never saw the queued prompts; each later turn saw its own (and no later one).
    assert "then one" not in str(model.requests[0].messages)
    assert "then one" in str(model.requests[1].messages) and "then two" not in str(model.requests[1].messages)
    assert "then two" in str(model.requests[2].messages)
    assert app.queued(session.id) == []


async def test_a_prompt_queued_behind_a_rejected_permission_gets_its_own_answer(
    make_app: AppFactory, model: FakeModelServer
) -> None:
    app = await make_app(permission={"bash": "ask"})
    model.script(
        Turn.tool_call("bash", {"command": "echo hi", "description": "say hi"}), Turn.text("queued answer")
    )
    session = await app.create_session()
    asked = asyncio.create_task(wait_for(app, PermissionAsked, timeout=10))
    first = asyncio.create_task(app.prompt(session.id, say("run it")))
    event = await asked
    queued = await queue_behind(app, session.id, "then this")
    await app.dialogs.reply_permission(event.request.id, "reject")

    one, two = await asyncio.wait_for(asyncio.gather(first, queued), 30)
    assert isinstance(one.info, AssistantMessage) and one.info.id != two.info.id
    assert answered(two, "queued answer")
    assert len(model.requests) == 2 and "then this" in str(model.requests[1].messages)


async def test_a_prompt_queued_behind_a_failed_turn_gets_its_own_answer(
    make_app: AppFactory, model: FakeModelServer
) -> None:
    app = await make_app()
    release = asyncio.Event()
    model.script(
        Turn.fault(400, body={"error": {"message": "bad", "type": "invalid_request_error"}}).slow_first_byte(
            release
        ),
        Turn.text("queued answer"),
    )
    session = await app.create_session()
    first = asyncio.create_task(app.prompt(session.id, say("fail please")))
    await model.wait_for_requests(1, timeout=10)
    queued = await queue_behind(app, session.id, "then this")
    release.set()

    one, two = await asyncio.wait_for(asyncio.gather(first, queued, return_exceptions=True), 30)
    assert isinstance(one, Exception) or (isinstance(one.info, AssistantMessage) and one.info.error), one
    assert isinstance(two, MessageWithParts) and answered(two, "queued answer")


async def test_a_prompt_queued_behind_an_aborted_turn_gets_its_own_answer(
    make_app: AppFactory, model: FakeModelServer
) -> None:
    app = await make_app()
    model.script(
        Turn.text("a long answer that never ends", chunks=8).stall(after=2), Turn.text("queued answer")
    )
    session = await app.create_session()
    streaming = asyncio.create_task(wait_for(app, PartDelta, timeout=10))
    first = asyncio.create_task(app.prompt(session.id, say("go")))
    await streaming
    queued = await queue_behind(app, session.id, "then this")
    await app.abort(session.id)

    one, two = await asyncio.wait_for(asyncio.gather(first, queued), 30)
    assert isinstance(one.info, AssistantMessage) and one.info.error is not None
    assert one.info.error.name == "aborted"
    assert answered(two, "queued answer")


async def test_stop_and_send_aborts_the_turn_and_runs_before_the_queue(
    make_app: AppFactory, model: FakeModelServer
) -> None:
    app = await make_app()
    model.script(
        Turn.text("a long answer that never ends", chunks=8).stall(after=2),
        Turn.text("interrupting answer"),
        Turn.text("queued answer"),
    )
    session = await app.create_session()
    streaming = asyncio.create_task(wait_for(app, PartDelta, timeout=10))
    first = asyncio.create_task(app.prompt(session.id, say("go")))
    await streaming
    queued = await queue_behind(app, session.id, "later")
    now = asyncio.create_task(app.prompt(session.id, say("stop, do this"), mode="interrupt"))

    one, two, three = await asyncio.wait_for(asyncio.gather(first, now, queued), 30)
    assert isinstance(one.info, AssistantMessage) and one.info.error is not None
    assert answered(two, "interrupting answer") and answered(three, "queued answer")
    # The conversation only: the system prompt is free to use any word.
    second_request = str([m for m in model.requests[1].messages if m["role"] != "system"])
    assert "stop, do this" in second_request and "later" not in second_request


async def test_a_queued_prompt_can_be_edited_and_removed_before_it_runs(
    make_app: AppFactory, model: FakeModelServer
) -> None:
    app = await make_app()
    release = asyncio.Event()
    model.script(Turn.text("first", chunks=4).stall(after=2, until=release), Turn.text("edited answer"))
    session = await app.create_session()
    streaming = asyncio.create_task(wait_for(app, PartDelta, timeout=10))
    first = asyncio.create_task(app.prompt(session.id, say("go")))
    await streaming
    keep = await queue_behind(app, session.id, "typo")
    drop = await queue_behind(app, session.id, "never mind")
    kept_id, dropped_id = (q.id for q in app.queued(session.id))
    app.update_queued(session.id, kept_id, say("fixed"))
    with app.subscribe(QueueRemoved) as removed:
        app.remove_queued(session.id, dropped_id)
        event = removed.get_nowait()
    assert isinstance(event, QueueRemoved) and (event.id, event.reason) == (dropped_id, "removed")
    with pytest.raises(AbortedError):
        await asyncio.wait_for(drop, 10)
    started = asyncio.create_task(wait_for(app, QueueStarted, timeout=10))
    release.set()

    assert (await started).id == kept_id
    assert answered(await asyncio.wait_for(keep, 30), "edited answer")
    await asyncio.wait_for(first, 10)
    assert len(model.requests) == 2
    assert "fixed" in str(model.requests[1].messages) and "typo" not in str(model.requests[1].messages)
    assert "never mind" not in str(model.requests[1].messages)


async def test_a_queued_prompt_whose_caller_goes_away_leaves_the_queue(
    make_app: AppFactory, model: FakeModelServer
) -> None:
    app = await make_app()
    release = asyncio.Event()
    model.script(Turn.text("first", chunks=4).stall(after=2, until=release))
    session = await app.create_session()
    streaming = asyncio.create_task(wait_for(app, PartDelta, timeout=10))
    first = asyncio.create_task(app.prompt(session.id, say("go")))
    await streaming
    queued = await queue_behind(app, session.id, "forget me")
    with app.subscribe(QueueRemoved) as removed:
        queued.cancel()
        event = await asyncio.wait_for(anext(removed), 10)
    assert isinstance(event, QueueRemoved) and event.reason == "cancelled"
    with pytest.raises(asyncio.CancelledError):
        await queued
    assert app.queued(session.id) == []
    release.set()
    assert text_of(await asyncio.wait_for(first, 10)) == "first"
    assert len(model.requests) == 1


async def test_prompts_still_queued_when_their_session_is_deleted_are_refused(
    make_app: AppFactory, model: FakeModelServer
) -> None:
    app = await make_app()
    model.script(Turn.text("a long answer that never ends", chunks=8).stall(after=2))
    session = await app.create_session()
    streaming = asyncio.create_task(wait_for(app, PartDelta, timeout=10))
    first = asyncio.create_task(app.prompt(session.id, say("go")))
    await streaming
    queued = await queue_behind(app, session.id, "never runs")
    await app.delete_session(session.id)
    with pytest.raises(UnqueuedError, match="session was deleted"):
        await asyncio.wait_for(queued, 10)
    await asyncio.wait_for(asyncio.gather(first, return_exceptions=True), 10)
    assert len(model.requests) == 1
