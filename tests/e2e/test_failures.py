"""Failure paths of the loop: retries, non-retryable errors, abort, the doom-loop guard, permissions."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from core.events import PartUpdated, PermissionAsked, SessionStatus
from core.message.models import AssistantMessage, RetryPart, ToolPart
from core.message.prompt_input import TextInput
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.harness import wait_for

from .conftest import AppFactory, HarnessFactory, text_of


def say(text: str) -> list[TextInput]:
    return [TextInput(type="text", text=text)]


@pytest.mark.parametrize(
    "fault",
    [
        Turn.fault(429, retry_after="0"),
        Turn.fault(500),
        Turn.fault(503),
        Turn.fault(529),
        Turn.text("partial answer that gets cut", chunks=6).drop(after=3),
    ],
    ids=["429", "500", "503", "529", "dropped"],
)
async def test_retryable_failures_are_retried_with_a_retry_part(
    make_app: AppFactory, model: FakeModelServer, fault: Turn
) -> None:
    app = await make_app()
    model.script(fault, Turn.text("recovered"))
    session = await app.create_session()
    sub = app.subscribe(SessionStatus)
    answer = await app.prompt(session.id, say("hi"))
    assert text_of(answer) == "recovered"  # the cut-off attempt's text is gone
    retries = [p for p in answer.parts if isinstance(p, RetryPart)]
    assert len(retries) == 1 and retries[0].attempt == 1
    statuses = []
    while (event := sub.get_nowait()) is not None:
        statuses.append(event.status)
    assert any(s.type == "retry" and s.attempt == 1 for s in statuses)


async def test_retry_after_header_is_honoured(make_app: AppFactory, model: FakeModelServer) -> None:
    app = await make_app()
    model.script(Turn.fault(429, retry_after_ms="400"), Turn.text("ok"))
    session = await app.create_session()
    started = time.monotonic()
    await app.prompt(session.id, say("hi"))
    # The configured backoff is 10 ms; only the server's hint explains a wait this long.
    assert time.monotonic() - started >= 0.4


async def test_retries_stop_after_max_attempts_with_a_typed_error(
    make_app: AppFactory, model: FakeModelServer
) -> None:
    app = await make_app()
    model.script(*[Turn.fault(500) for _ in range(4)])
    session = await app.create_session()
    answer = await app.prompt(session.id, say("hi"))
    info = answer.info
    assert isinstance(info, AssistantMessage) and info.error is not None
    assert info.error.name == "api" and info.error.status == 500 and info.error.retryable
    assert len(model.requests) == 4  # the first try and max_attempts=3 retries


@pytest.mark.parametrize(("status", "kind"), [(400, "api"), (401, "auth")])
async def test_non_retryable_errors_stop_the_turn(
    make_harness: HarnessFactory, model: FakeModelServer, status: int, kind: str
) -> None:
    harness = await make_harness()
    app = harness.agent
    model.script(Turn.fault(status, body={"error": {"message": "nope"}}))
    session = await app.create_session()
    answer = await app.prompt(session.id, say("hi"))
    info = answer.info
    assert isinstance(info, AssistantMessage) and info.error is not None
    assert info.error.name == kind and not info.error.retryable
    assert len(model.requests) == 1
    assert not harness.is_busy(session.id)


async def test_abort_mid_stream_stops_within_a_second(
    make_harness: HarnessFactory, model: FakeModelServer
) -> None:
    harness = await make_harness()
    app = harness.agent
    model.script(Turn.text("a long answer that never finishes", chunks=10).stall(after=3))
    session = await app.create_session()
    turn = asyncio.create_task(app.prompt(session.id, say("hi")))
    await model.wait_for_requests(1)
    started = time.monotonic()
    await app.abort(session.id)
    answer = await asyncio.wait_for(turn, timeout=5)
    assert time.monotonic() - started < 1.0
    info = answer.info
    assert isinstance(info, AssistantMessage) and info.error is not None and info.error.name == "aborted"
    assert not harness.is_busy(session.id)


async def test_abort_mid_bash_kills_the_command(
    make_app: AppFactory, model: FakeModelServer, project: Path
) -> None:
    app = await make_app(permission="allow")  # about abort, not dialogs
    marker = project / "started"
    model.script(Turn.tool_call("bash", {"command": f"touch {marker}; sleep 30; echo finished"}))
    session = await app.create_session()
    turn = asyncio.create_task(app.prompt(session.id, say("run it")))
    running = asyncio.create_task(
        wait_for(
            app,
            PartUpdated,
            lambda e: e.part.type == "tool" and e.part.state.status == "running",
            timeout=10,
        )
    )
    await running
    started = time.monotonic()
    await app.abort(session.id)
    answer = await asyncio.wait_for(turn, timeout=5)
    assert time.monotonic() - started < 1.5
    tool = next(p for p in answer.parts if isinstance(p, ToolPart))
    assert tool.state.status == "error" and "abort" in tool.state.error.lower()


async def test_doom_loop_asks_and_a_rejection_stops_the_turn(
    make_app: AppFactory, model: FakeModelServer
) -> None:
    app = await make_app()
    same = {"filePath": "calc.py"}
    model.script(*[Turn.tool_call("read", same) for _ in range(3)], Turn.text("never sent"))
    session = await app.create_session()
    asked = asyncio.create_task(
        wait_for(app, PermissionAsked, lambda e: e.request.permission == "doom_loop", timeout=10)
    )
    turn = asyncio.create_task(app.prompt(session.id, say("loop")))
    event = await asked
    await app.dialogs.reply_permission(event.request.id, "reject")
    await asyncio.wait_for(turn, timeout=10)
    assert len(model.requests) == 3
    history = await app.messages(session.id)
    tools = [p for m in history for p in m.parts if isinstance(p, ToolPart)]
    assert [t.state.status for t in tools] == ["completed", "completed", "error"]
    assert tools[-1].state.metadata == {"rejected": True}  # the user said no: not a failure to show


async def test_rejection_with_a_message_continues_with_the_correction(
    make_app: AppFactory, model: FakeModelServer, project: Path
) -> None:
    # Only the command asks: rm's own "edit build" request is allowed here.
    app = await make_app(permission={"bash": "ask", "edit": "allow"})
    model.script(Turn.tool_call("bash", {"command": "rm -rf build"}), Turn.text("ok, I will not"))
    session = await app.create_session()
    asked = asyncio.create_task(wait_for(app, PermissionAsked, timeout=10))
    turn = asyncio.create_task(app.prompt(session.id, say("clean")))
    event = await asked
    assert event.request.patterns == ["rm -rf build"]
    await app.dialogs.reply_permission(event.request.id, "reject", message="keep the build folder")
    answer = await asyncio.wait_for(turn, timeout=10)
    assert text_of(answer) == "ok, I will not"
    result = model.requests[1].messages[-1]["content"]
    assert "keep the build folder" in result
    history = await app.messages(session.id)
    rejected = next(p for m in history for p in m.parts if isinstance(p, ToolPart)).state
    assert rejected.status == "error" and rejected.metadata == {"rejected": True}


async def test_doom_loop_deny_stops_the_turn_like_a_rejection(
    make_app: AppFactory, model: FakeModelServer
) -> None:
    app = await make_app(permission={"doom_loop": "deny"})
    same = {"filePath": "calc.py"}
    model.script(*[Turn.tool_call("read", same) for _ in range(3)], Turn.text("never sent"))
    session = await app.create_session()
    await asyncio.wait_for(app.prompt(session.id, say("loop")), timeout=10)
    assert len(model.requests) == 3  # the model is not asked again after the denied repetition
    history = await app.messages(session.id)
    tools = [p for m in history for p in m.parts if isinstance(p, ToolPart)]
    assert [t.state.status for t in tools] == ["completed", "completed", "error"]
    error = tools[-1].state
    assert error.status == "error"
    assert "3 times in a row" in error.error and "doom_loop" in error.error
    assert error.metadata is None  # a rule said no, not the user
