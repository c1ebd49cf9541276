"""session/fork and the older clients' session/set_model, under the SDK client."""

from __future__ import annotations

from demo.fake_script import Turn
from tests.acp.conftest import Acp


async def test_a_fork_carries_the_conversation_and_answers_on_its_own(acp: Acp) -> None:
    acp.model.script(Turn.text("First answer."), Turn.text("Second answer."))
    run = await acp.run("fork")
    assert run.failure is None, run.failure
    assert run.results["initialize"]["agentCapabilities"]["sessionCapabilities"]["fork"] == {}
    original, fork = run.results["session"]["sessionId"], run.results["fork"]["sessionId"]
    assert fork != original
    # The fork keeps what the user picked in the original (plan mode).
    assert run.results["fork"]["modes"]["currentModeId"] == "plan"
    assert run.results["second"]["stopReason"] == "end_turn"
    # The model saw the whole conversation so far when the fork was prompted.
    texts = [str(m.get("content")) for m in acp.model.requests[1].messages]
    assert any("first question" in t for t in texts) and any("First answer." in t for t in texts)
    assert any("second question" in t for t in texts)
    chunks = {
        u["content"]["text"]
        for e in run.log
        if e["kind"] == "update" and e["sessionId"] == fork
        for u in [e["update"]]
        if u["sessionUpdate"] == "agent_message_chunk"
    }
    assert "".join(chunks) == "Second answer."
    assert run.results["badFork"]["code"] == -32002  # an unknown session


async def test_set_model_switches_the_model_like_the_config_option(acp: Acp) -> None:
    run = await acp.run("setModel", MODEL="titles/t")
    assert run.failure is None, run.failure
    assert run.results["setModel"] == {}
    updates = run.updates("config_option_update")
    assert (
        updates and {o["id"]: o["currentValue"] for o in updates[-1]["configOptions"]}["model"] == "titles/t"
    )
    assert run.results["badModel"]["code"] == -32602 and "nope/none" in run.results["badModel"]["message"]
    assert run.results["badSession"]["code"] == -32002
    assert run.results["noModel"]["code"] == -32602
    # The prompt went to the chosen model (the title server answers "A title" to everything).
    assert run.text() == "A title"
    assert acp.model.requests == []
