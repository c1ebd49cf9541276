"""session/cancel stops a turn within a second, whether it waits on the model or on the user."""

from __future__ import annotations

from demo.fake_script import Turn
from tests.acp.conftest import Acp


async def test_cancel_while_a_permission_dialog_is_open(acp: Acp) -> None:
    acp.model.script(Turn.tool_call("bash", {"command": "echo hi", "description": "Say hi"}))
    run = await acp.run("cancel", PROMPT="run it", PERMISSION_HOLD="1")
    assert run.failure is None, run.failure
    assert run.results["prompt"] == {"stopReason": "cancelled"}
    assert run.results["cancelToStopMs"] < 1000
    ask = next(e["params"] for e in run.log if e["kind"] == "permission")
    assert ask["toolCall"]["kind"] == "execute"
    assert "echo hi" in ask["toolCall"]["content"][0]["content"]["text"], "a bash ask shows the command"


async def test_cancel_while_the_model_streams(acp: Acp) -> None:
    # The model sends a little text and then goes silent until the agent hangs up.
    acp.model.script(Turn.text("Thinking about it for a long while", chunks=6).stall(after=2))
    run = await acp.run("cancel", PROMPT="go", CANCEL_AFTER="agent_message_chunk")
    assert run.failure is None, run.failure
    assert run.results["prompt"] == {"stopReason": "cancelled"}
    assert run.results["cancelToStopMs"] < 1000
