"""A prompt that joins a turn as it ends: the answer is never a user message, and a prompt the
turn never saw gets a turn of its own."""

from __future__ import annotations

import asyncio

import pytest

from core.errors import AbortedError
from core.events import MessageUpdated, PartDelta, PermissionAsked
from core.message.models import AssistantMessage, UserMessage
from core.message.prompt_input import TextInput
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.harness import wait_for

from .conftest import AppFactory, text_of


def say(text: str) -> list[TextInput]:
    return [TextInput(type="text", text=text)]


@pytest.mark.parametrize("attempt", range(3))
async def test_a_prompt_sent_as_a_rejection_ends_the_turn_gets_its_own_turn(
    make_app: AppFactory, model: FakeModelServer, attempt: int
) -> None:
    app = await make_app(permission={"bash": "ask"})
    model.script(Turn.tool_call("bash", {"command": "echo hi", "description": "say hi"}), Turn.text("second"))
    session = await app.create_session()
    asked = asyncio.create_task(wait_for(app, PermissionAsked, timeout=10))
    first = asyncio.create_task(app.prompt(session.id, say("run it")))
    event = await asked
    # The rejection and the next prompt in the same tick: the prompt joins the ending turn.
    rejected = asyncio.create_task(app.dialogs.reply_permission(event.request.id, "reject"))
    second = asyncio.create_task(app.prompt(session.id, say("then this")))
    one, two, _ = await asyncio.wait_for(asyncio.gather(first, second, rejected), 30)

    assert isinstance(one.info, AssistantMessage) and isinstance(two.info, AssistantMessage)
    assert one.info.id != two.info.id
    assert text_of(two) == "second"
    assert len(model.requests) == 2 and "then this" in str(model.requests[1].messages)


async def test_a_prompt_that_joined_a_turn_aborted_before_seeing_it_is_told_so(
    make_app: AppFactory, model: FakeModelServer
) -> None:
    app = await make_app()
    model.script(Turn.text("a long answer that never ends", chunks=8).stall(after=2))
    session = await app.create_session()
    streaming = asyncio.create_task(wait_for(app, PartDelta, timeout=10))
    first = asyncio.create_task(app.prompt(session.id, say("go")))
    await streaming
    stored = asyncio.create_task(
        wait_for(app, MessageUpdated, lambda e: isinstance(e.info, UserMessage), timeout=10)
    )
    second = asyncio.create_task(app.prompt(session.id, say("and this")))
    await stored  # the second prompt's message is in; its caller waits on the running turn
    await app.abort(session.id)
    one = await asyncio.wait_for(first, 10)
    assert isinstance(one.info, AssistantMessage) and one.info.error is not None
    assert one.info.error.name == "aborted"
    with pytest.raises(AbortedError):
        await asyncio.wait_for(second, 10)
    assert len(model.requests) == 1  # an abort stops everything: no new turn for the joined prompt
