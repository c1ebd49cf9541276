"""Two prompts in flight in one session with the official SDK client: the second waits in the queue
and runs as its own turn when the first has ended; session/cancel stops both."""

from __future__ import annotations

from demo.fake_script import Turn
from tests.acp.conftest import Acp

BASH = {"command": "echo hi", "description": "Say hi"}


async def test_a_prompt_sent_while_one_runs_is_queued_and_answered_in_order(acp: Acp) -> None:
    acp.model.script(Turn.tool_call("bash", BASH), Turn.text("first answer"), Turn.text("second answer"))
    run = await acp.run("queue", PERMISSION_AFTER="second-sent")
    assert run.failure is None, run.failure
    assert run.results["first"] == {"stopReason": "end_turn"}
    assert run.results["second"] == {"stopReason": "end_turn"}
    answered = [e["which"] for e in run.log if e["kind"] == "answered"]
    assert answered == ["first", "second"]
    assert run.text() == "first answersecond answer"
    requests = [str(r.messages) for r in acp.model.requests]
    assert len(requests) == 3
    # The first turn finished without seeing the queued prompt; the third request answers it.
    assert "second prompt" not in requests[0] and "second prompt" not in requests[1]
    assert "second prompt" in requests[2]


async def test_cancel_stops_the_running_prompt_and_the_queued_one(acp: Acp) -> None:
    acp.model.script(Turn.tool_call("bash", BASH), Turn.text("never asked for"))
    run = await acp.run("queue", PERMISSION_HOLD="1", CANCEL="1")
    assert run.failure is None, run.failure
    assert run.results["first"] == {"stopReason": "cancelled"}
    assert run.results["second"] == {"stopReason": "cancelled"}
    assert len(acp.model.requests) == 1
