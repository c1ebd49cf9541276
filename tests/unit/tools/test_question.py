"""The question tool answered and dismissed through the real Questions service and bus."""

from __future__ import annotations

import asyncio

import pytest
from pydantic import ValidationError

from core.bus import Bus
from core.errors import InvalidInputError, NotFoundError, QuestionRejectedError, ToolError
from core.events import QuestionAsked, QuestionItem, QuestionOption, QuestionRejected, QuestionReplied
from core.question import Questions
from core.tools.base import ToolResult
from core.tools.context import ToolContext
from core.tools.question import QuestionTool
from core.tools.runner import run_tool

ARGS = {
    "questions": [
        {
            "question": "Which database?",
            "header": "Database",
            "options": [{"label": "SQLite", "description": "a file"}, {"label": "Postgres"}],
        },
        {
            "question": "Which features?",
            "header": "Features",
            "options": [{"label": "a"}, {"label": "b"}],
            "multiple": True,
        },
    ]
}


async def start(ctx: ToolContext, bus: Bus) -> tuple[asyncio.Task[ToolResult], QuestionAsked]:
    with bus.subscribe(QuestionAsked) as sub:
        task = asyncio.create_task(run_tool(QuestionTool(), ARGS, ctx))
        event = await asyncio.wait_for(sub.get(), 5)
    assert isinstance(event, QuestionAsked)
    return task, event


async def test_answered(ctx: ToolContext) -> None:
    bus = Bus()
    service = Questions(bus)
    ctx.questions = service
    task, event = await start(ctx, bus)
    request = event.request
    assert request.id.startswith("que_")
    assert (request.sessionID, request.messageID, request.callID) == ("ses_test", "msg_test", "call_test")
    assert [q.header for q in request.questions] == ["Database", "Features"]
    assert request.questions[1].multiple
    assert service.pending() == [request]
    with pytest.raises(InvalidInputError):
        service.reply(request.id, [["SQLite"]])  # one answer per question
    with bus.subscribe(QuestionReplied) as replies:
        service.reply(request.id, [["SQLite"], ["a", "b"]])
        replied = await asyncio.wait_for(replies.get(), 5)
    assert isinstance(replied, QuestionReplied) and replied.answers == [["SQLite"], ["a", "b"]]
    result = await asyncio.wait_for(task, 5)
    assert '"Which database?" = "SQLite"' in result.output
    assert '"Which features?" = "a, b"' in result.output
    assert result.metadata["answers"] == [["SQLite"], ["a", "b"]]
    assert service.pending() == []


async def test_rejected(ctx: ToolContext) -> None:
    bus = Bus()
    service = Questions(bus)
    ctx.questions = service
    task, event = await start(ctx, bus)
    with bus.subscribe(QuestionRejected) as rejections:
        service.reject(event.request.id)
        rejected = await asyncio.wait_for(rejections.get(), 5)
    assert isinstance(rejected, QuestionRejected) and rejected.requestID == event.request.id
    with pytest.raises(QuestionRejectedError):
        await asyncio.wait_for(task, 5)
    with pytest.raises(NotFoundError):
        service.reply(event.request.id, [["x"], ["y"]])


async def test_cancel_session_dismisses_its_questions(ctx: ToolContext) -> None:
    bus = Bus()
    service = Questions(bus)
    ctx.questions = service
    task, _ = await start(ctx, bus)
    service.cancel_session("other")
    assert len(service.pending()) == 1
    service.cancel_session("ses_test")
    with pytest.raises(QuestionRejectedError):
        await asyncio.wait_for(task, 5)
    assert service.pending() == []


async def test_cancelled_call_withdraws_its_question(ctx: ToolContext) -> None:
    bus = Bus()
    service = Questions(bus)
    ctx.questions = service
    task, _ = await start(ctx, bus)
    with bus.subscribe(QuestionRejected) as rejections:
        task.cancel()
        await asyncio.wait_for(rejections.get(), 5)
    assert service.pending() == []


async def test_header_too_long_and_no_service(ctx: ToolContext) -> None:
    long_header = {"questions": [{"question": "q", "header": "x" * 31, "options": []}]}
    ctx.questions = Questions(Bus())
    with pytest.raises(ToolError, match="header"):
        await run_tool(QuestionTool(), long_header, ctx)
    ctx.questions = None
    with pytest.raises(ToolError, match="cannot be asked"):
        await run_tool(QuestionTool(), ARGS, ctx)


async def test_a_question_answered_only_by_its_options_refuses_a_typed_answer() -> None:
    bus = Bus()
    service = Questions(bus)
    items = [
        QuestionItem(
            question="Deploy?",
            options=[QuestionOption(label="yes"), QuestionOption(label="no")],
            custom=False,
        ),
        QuestionItem(question="Why?", options=[QuestionOption(label="because")]),
    ]
    with bus.subscribe(QuestionAsked) as sub:
        asked = asyncio.create_task(service.ask("ses_test", None, None, items))
        event = await asyncio.wait_for(sub.get(), 5)
    assert isinstance(event, QuestionAsked)
    request = event.request
    with pytest.raises(InvalidInputError, match="answered only with its options: no, yes"):
        service.reply(request.id, [["maybe"], ["typed reason"]])
    assert service.pending() == [request]  # still waiting: the refused reply changed nothing
    service.reply(request.id, [["yes"], ["typed reason"]])  # the second takes a typed answer
    assert await asyncio.wait_for(asked, 5) == [["yes"], ["typed reason"]]


def test_a_question_without_a_typed_answer_needs_options() -> None:
    with pytest.raises(ValidationError, match="needs options"):
        QuestionItem(question="Anything?", custom=False)
