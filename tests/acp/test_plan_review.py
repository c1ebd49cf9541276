"""A plan review through ACP (the official SDK client): read-only mode, the plan as the session's
``plan`` and as the content of an Approve / Reject dialog; approve → the build agent edits, reject →
nothing changes and the turn stops."""

from __future__ import annotations

import json

from demo.fake_script import Turn
from tests.acp.conftest import Acp, Run

PLAN = ".agentls/plans/greeting.md"
PLAN_TEXT = "# Greeting\n\n1. Print bye instead of hello in hello.py.\n2. Run it.\n"
APPROVE = "Approve: the build agent carries it out"


def _script(acp: Acp) -> None:
    edit = {"filePath": str(acp.project / "hello.py"), "oldString": "hello", "newString": "bye"}
    acp.model.script(
        Turn.tool_call("write", {"filePath": PLAN, "content": PLAN_TEXT}),
        Turn.tool_call("plan_exit", {"path": PLAN}),
        Turn.tool_call("edit", edit),
        Turn.text("It says bye."),
    )


async def _run(acp: Acp, picks: list[str]) -> Run:
    env = {"CONFIG": json.dumps([["autonomy", "plan"]]), "PROMPTS": json.dumps(["plan a goodbye"])}
    run = await acp.run("options", PICKS=json.dumps(picks), **env)
    assert run.failure is None, run.failure
    return run


def _plan_dialog(run: Run) -> dict[str, object]:
    dialogs = [e["params"] for e in run.log if e["kind"] == "permission"]
    return next(d for d in dialogs if d["toolCall"]["title"] == f"Review the plan {PLAN}")


async def test_the_plan_is_shown_and_approved_then_built(acp: Acp) -> None:
    _script(acp)
    run = await _run(acp, [APPROVE, "Allow once"])  # then the build agent's edit asks (mode ask)
    dialog = _plan_dialog(run)
    assert [o["name"] for o in dialog["options"]] == [APPROVE, "Reject"]
    assert "Print bye instead of hello" in json.dumps(dialog["toolCall"]["content"])
    plans = [u["entries"] for u in run.updates("plan")]
    assert [e["content"] for e in plans[-1]] == ["Print bye instead of hello in hello.py.", "Run it."]
    assert run.results["answers"][0] == {"stopReason": "end_turn"}
    assert (acp.project / "hello.py").read_text() == "print('bye')\n"
    build = str(acp.model.requests[2].messages)
    assert "approved the plan" in build and "Run it." in build


async def test_a_rejected_plan_changes_nothing_and_stops_the_turn(acp: Acp) -> None:
    _script(acp)
    run = await _run(acp, ["Reject"])
    _plan_dialog(run)
    assert len(acp.model.requests) == 2  # no step after the rejection
    assert (acp.project / "hello.py").read_text() == "print('hello')\n"
    failed = [u for u in run.updates("tool_call_update") if u.get("status") == "failed"]
    assert "their next message says why" in json.dumps(failed[-1])
