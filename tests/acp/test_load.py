"""session/load replays a session stored by an earlier agent process, then the conversation goes on."""

from __future__ import annotations

from demo.fake_script import Turn
from tests.acp.conftest import Acp


async def test_load_replays_the_stored_session_and_continues_it(acp: Acp) -> None:
    acp.model.script(
        Turn.reasoning("Looking").tool_call("read", {"filePath": "hello.py"}),
        Turn.text("It prints hello."),
    )
    first = await acp.run("turn", PROMPT="what does hello.py do?")
    assert first.failure is None, first.failure
    session_id = first.results["session"]["sessionId"]
    listed = first.results["list"]["sessions"]
    assert [s["sessionId"] for s in listed] == [session_id]
    assert listed[0]["cwd"] == str(acp.project)

    acp.model.script(Turn.text("Yes, only that."))
    run = await acp.run("load", SESSION_ID=session_id, PROMPT="only that?")
    assert run.failure is None, run.failure
    loaded = run.kinds.index("loaded")
    replay = [e["update"] for e in run.log[:loaded] if e["kind"] == "update"]
    kinds = [u["sessionUpdate"] for u in replay]
    assert kinds[:5] == [
        "user_message_chunk",
        "agent_thought_chunk",
        "tool_call",
        "tool_call_update",
        "agent_message_chunk",
    ]
    assert replay[0]["content"]["text"] == "what does hello.py do?"
    assert replay[4]["content"]["text"] == "It prints hello."
    assert replay[3]["status"] == "completed"
    assert "session_info_update" in kinds
    assert run.results["load"]["modes"]["currentModeId"] == "build"
    # The next prompt continues the same conversation: the model sees the earlier turn.
    assert run.results["prompt"] == {"stopReason": "end_turn"}
    after = [e["update"] for e in run.log[loaded:] if e["kind"] == "update"]
    assert "".join(u["content"]["text"] for u in after if u["sessionUpdate"] == "agent_message_chunk") == (
        "Yes, only that."
    )
    sent = acp.model.requests[-1].messages
    assert any("It prints hello." in str(m.get("content")) for m in sent)


async def test_load_of_an_unknown_session_is_an_error(acp: Acp) -> None:
    run = await acp.run("load", SESSION_ID="ses_doesnotexist")
    assert run.failure is not None
    assert run.failure["code"] == -32002
