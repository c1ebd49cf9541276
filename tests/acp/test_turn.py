"""A full turn through a real ACP client: streamed chunks, a tool call with its updates, usage."""

from __future__ import annotations

from demo.fake_script import Turn
from tests.acp.conftest import Acp


async def test_a_turn_streams_text_and_a_tool_call(acp: Acp) -> None:
    acp.model.script(
        Turn.reasoning("Let me look", chunks=2).tool_call("read", {"filePath": "hello.py"}).usage(input=50),
        # The model pauses mid-answer: what came before the pause reaches the client on its own.
        Turn.text("It prints hello.", chunks=4).usage(input=120, output=8).stall(after=2, until=0.3),
    )
    run = await acp.run("turn", PROMPT="what does hello.py do?")
    assert run.failure is None, run.failure
    init = run.results["initialize"]
    assert init["protocolVersion"] == 1
    assert init["agentCapabilities"]["loadSession"] is True
    assert run.results["prompt"] == {"stopReason": "end_turn"}
    assert run.text("agent_thought_chunk") == "Let me look"
    assert run.text() == "It prints hello."
    assert len(run.updates("agent_message_chunk")) >= 2, "the answer arrives in pieces as it streams"
    start = run.updates("tool_call")
    assert len(start) == 1 and start[0]["kind"] == "read"
    call_id = start[0]["toolCallId"]
    done = [u for u in run.updates("tool_call_update") if u["toolCallId"] == call_id]
    assert done[-1]["status"] == "completed"
    assert done[-1]["locations"] == [{"path": str(acp.project / "hello.py")}]
    assert "print('hello')" in done[-1]["content"][0]["content"]["text"]
    # The file was read through the client (its buffer), not behind its back.
    assert any(e["kind"] == "read" and e["params"]["path"].endswith("hello.py") for e in run.log)
    usage = run.updates("usage_update")
    assert usage and usage[-1]["used"] == 128 and usage[-1]["size"] == 100_000
    # Every update of the turn came before the answer to session/prompt.
    assert run.kinds.index("stop") > max(
        i
        for i, k in enumerate(run.kinds)
        if k == "update" and run.log[i]["update"]["sessionUpdate"] != "session_info_update"
    )
    assert run.agent_exit == 0
