"""Plan review through the real loop: the plan agent writes a plan file and calls ``plan_exit``; the
user approves (the build agent carries it out at once, the plan in its request), revises (comments
reach the plan agent) or rejects (nothing changes); bad paths and an abort fail cleanly."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from core.api import Agent
from core.errors import InvalidInputError, NotFoundError
from core.events import PlanComment, PlanReviewAsked, PlanReviewCancelled, PlanReviewRequest
from core.message.models import MessageWithParts, ToolPart
from core.message.prompt_input import TextInput
from core.plan.review import PlanAnswer
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.harness import wait_for

from .conftest import AppFactory, text_of

PLAN = ".agentls/plans/fix-add.md"
PLAN_TEXT = "# Fix add\n\n1. In calc.py, make add return a + b.\n2. Run the tests.\n"
FIX = {"filePath": "calc.py", "oldString": "a - b", "newString": "a + b"}


def write_plan(text: str = PLAN_TEXT) -> Turn:
    return Turn.tool_call("write", {"filePath": PLAN, "content": text})


async def ask_plan(
    app: Agent, prompt: str = "plan the fix of add"
) -> tuple[asyncio.Task[Any], PlanReviewRequest]:
    """Start a plan-agent turn and wait for its plan review."""
    asked = asyncio.create_task(wait_for(app, PlanReviewAsked, timeout=15))
    session = await app.create_session()
    turn = asyncio.create_task(app.prompt(session.id, [TextInput(text=prompt)], agent="plan"))
    done, _ = await asyncio.wait([asked, turn], return_when=asyncio.FIRST_COMPLETED)
    if turn in done:
        asked.cancel()
        raise AssertionError(f"the turn ended before a plan review: {turn.result()}")
    return turn, asked.result().request


def tool_names(request: Any) -> set[str]:
    return {t["function"]["name"] for t in request.tools}


def user_texts(request: Any) -> str:
    users = [m for m in request.messages if m["role"] == "user"]
    return json.dumps(users[-1]["content"])


def tool_result(request: Any, index: int = -1) -> str:
    results = [m for m in request.messages if m["role"] == "tool"]
    return str(results[index]["content"])


def plan_exit_part(history: list[MessageWithParts]) -> ToolPart:
    return next(p for m in history for p in m.parts if isinstance(p, ToolPart) and p.tool == "plan_exit")


async def test_approved_plan_is_carried_out_by_build_with_the_plan_in_its_request(
    make_app: AppFactory, model: FakeModelServer, project: Path
) -> None:
    app = await make_app(permission={"edit": "allow"})
    model.script(
        write_plan(),
        Turn.tool_call("plan_exit", {"path": PLAN}),
        Turn.tool_call("edit", FIX),
        Turn.text("add is fixed."),
    )
    turn, request = await ask_plan(app)
    assert request.path == PLAN and request.text == PLAN_TEXT
    assert [r.id for r in app.dialogs.pending_plans(request.sessionID)] == [request.id]
    assert "a - b" in (project / "calc.py").read_text()  # nothing is edited while it waits
    app.dialogs.reply_plan(request.id, PlanAnswer("approve"))
    answer = await asyncio.wait_for(turn, timeout=15)
    assert text_of(answer) == "add is fixed."
    assert answer.info.agent == "build"
    assert "a + b" in (project / "calc.py").read_text()
    plan_step, build_step = model.requests[1], model.requests[2]
    assert "plan_exit" in tool_names(plan_step)
    assert "plan_exit" not in tool_names(build_step)
    build_user = user_texts(build_step)
    assert "approved the plan" in build_user and "make add return a + b" in build_user
    mode = await app.session_mode(request.sessionID)
    assert mode.mode == "ask"
    part = plan_exit_part(await app.messages(request.sessionID))
    assert part.state.status == "completed" and part.state.metadata["reply"] == "approve"
    assert app.dialogs.pending_plans() == []


async def test_approving_in_read_only_mode_leaves_it_for_ask(
    make_app: AppFactory, model: FakeModelServer, project: Path
) -> None:
    app = await make_app(permission={"edit": "allow"})
    model.script(
        write_plan(),
        Turn.tool_call("plan_exit", {"path": PLAN}),
        Turn.tool_call("edit", FIX),
        Turn.text("ok"),
    )
    session = await app.create_session()
    await app.session_mode(session.id, "plan")
    asked = asyncio.create_task(wait_for(app, PlanReviewAsked, timeout=15))
    turn = asyncio.create_task(app.prompt(session.id, [TextInput(text="plan it")]))
    request = (await asked).request
    app.dialogs.reply_plan(request.id, PlanAnswer("approve"))
    await asyncio.wait_for(turn, timeout=15)
    assert (await app.session_mode(session.id)).mode == "ask"
    assert "a + b" in (project / "calc.py").read_text()


async def test_revision_comments_reach_the_plan_agent_which_presents_again(
    make_app: AppFactory, model: FakeModelServer, project: Path
) -> None:
    app = await make_app(permission={"edit": "allow"})
    model.script(
        write_plan(),
        Turn.tool_call("plan_exit", {"path": PLAN}),
        write_plan(PLAN_TEXT + "3. Add a test for negative numbers.\n"),
        Turn.tool_call("plan_exit", {"path": PLAN}),
        Turn.text("Stopped."),
    )
    turn, request = await ask_plan(app)
    second = asyncio.create_task(
        wait_for(app, PlanReviewAsked, lambda e: e.request.id != request.id, timeout=15)
    )
    answer = PlanAnswer("revise", "Also cover negatives.", (PlanComment(line=3, text="which tests?"),))
    app.dialogs.reply_plan(request.id, answer)
    again = (await second).request
    told = tool_result(model.requests[3], 1)
    assert "revise the plan" in told and "line 4: 2. Run the tests." in told
    assert "which tests?" in told and "Also cover negatives." in told
    assert "negative numbers" in again.text
    app.dialogs.reply_plan(again.id, PlanAnswer("reject", "Not now."))
    await asyncio.wait_for(turn, timeout=15)
    assert "a - b" in (project / "calc.py").read_text()


async def test_rejected_plan_changes_nothing_and_ends_the_turn_with_the_message(
    make_app: AppFactory, model: FakeModelServer, project: Path
) -> None:
    app = await make_app(permission={"edit": "allow"})
    model.script(write_plan(), Turn.tool_call("plan_exit", {"path": PLAN}), Turn.tool_call("edit", FIX))
    turn, request = await ask_plan(app)
    app.dialogs.reply_plan(request.id, PlanAnswer("reject", "Use a different approach."))
    await asyncio.wait_for(turn, timeout=15)
    assert len(model.requests) == 2  # the turn stopped: no step after the rejection
    assert "a - b" in (project / "calc.py").read_text()
    part = plan_exit_part(await app.messages(request.sessionID))
    assert part.state.status == "error"
    assert "rejected the plan and said: Use a different approach." in part.state.error
    assert (await app.session_mode(request.sessionID)).mode == "ask"
    model.script(Turn.text("What approach?"))
    follow = await app.prompt(request.sessionID, [TextInput(text="why?")])
    assert follow.info.agent == "plan"  # the session stays with the plan agent


@pytest.mark.parametrize(
    ("path", "told"),
    [
        (".agentls/plans/missing.md", "does not exist"),
        ("calc.py", "not under the plan folder .agentls/plans/"),
        (".agentls/plans/../../calc.py", "not under the plan folder"),
        (".agentls/plans", "not under the plan folder"),
        ("/etc/passwd", "not under the plan folder"),
    ],
)
async def test_plan_exit_refuses_a_file_outside_the_plan_folder_or_missing(
    make_app: AppFactory, model: FakeModelServer, path: str, told: str
) -> None:
    app = await make_app()
    model.script(Turn.tool_call("plan_exit", {"path": path}), Turn.text("I will write it first."))
    session = await app.create_session()
    answer = await app.prompt(session.id, [TextInput(text="plan")], agent="plan")
    assert text_of(answer) == "I will write it first."
    assert told in tool_result(model.requests[1])
    assert app.dialogs.pending_plans() == []


async def test_plan_exit_refuses_a_link_in_the_plan_folder_that_leads_out_of_it(
    make_app: AppFactory, model: FakeModelServer, project: Path
) -> None:
    folder = project / ".agentls" / "plans"
    folder.mkdir(parents=True)
    (folder / "sneaky.md").symlink_to(project / "calc.py")
    app = await make_app()
    model.script(Turn.tool_call("plan_exit", {"path": ".agentls/plans/sneaky.md"}), Turn.text("ok"))
    session = await app.create_session()
    await app.prompt(session.id, [TextInput(text="plan")], agent="plan")
    assert "not under the plan folder" in tool_result(model.requests[1])
    assert app.dialogs.pending_plans() == []


async def test_abort_cancels_the_plan_review(make_app: AppFactory, model: FakeModelServer) -> None:
    app = await make_app()
    model.script(write_plan(), Turn.tool_call("plan_exit", {"path": PLAN}))
    turn, request = await ask_plan(app)
    cancelled = asyncio.create_task(wait_for(app, PlanReviewCancelled, timeout=10))
    await app.abort(request.sessionID)
    assert (await cancelled).requestID == request.id
    await asyncio.wait_for(turn, timeout=10)
    part = plan_exit_part(await app.messages(request.sessionID))
    assert part.state.status == "error" and "aborted" in part.state.error
    assert len(model.requests) == 2  # no step after the abort
    assert app.dialogs.pending_plans() == []
    with pytest.raises(NotFoundError):
        app.dialogs.reply_plan(request.id, PlanAnswer("approve"))


async def test_a_revision_must_say_something(make_app: AppFactory, model: FakeModelServer) -> None:
    app = await make_app()
    model.script(write_plan(), Turn.tool_call("plan_exit", {"path": PLAN}), Turn.text("ok"))
    turn, request = await ask_plan(app)
    with pytest.raises(InvalidInputError, match="needs a message or at least one line comment"):
        app.dialogs.reply_plan(request.id, PlanAnswer("revise", "  "))
    with pytest.raises(InvalidInputError, match="the plan has 5 lines"):
        app.dialogs.reply_plan(request.id, PlanAnswer("revise", comments=(PlanComment(line=9, text="x"),)))
    assert [r.id for r in app.dialogs.pending_plans()] == [request.id]  # still waiting, nothing lost
    app.dialogs.reply_plan(request.id, PlanAnswer("reject"))
    await asyncio.wait_for(turn, timeout=15)
