"""session/load replays a session stored by an earlier agent process, then the conversation goes on."""

from __future__ import annotations

from typing import Any

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


def diffs(updates: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Each tool call's last ``diff`` content, by call id."""
    found: dict[str, list[dict[str, Any]]] = {}
    for update in updates:
        if update.get("sessionUpdate") != "tool_call_update":
            continue
        content = [c for c in update.get("content") or [] if c.get("type") == "diff"]
        if content:
            found[update["toolCallId"]] = content
    return found


async def test_load_replays_whole_file_diffs_as_they_were_shown_live(acp: Acp) -> None:
    hello, other = acp.project / "hello.py", acp.project / "other.py"
    other.write_text("old = 1\nkeep = 2\n")
    acp.model.script(
        Turn.tool_call("edit", {"filePath": str(hello), "oldString": "hello", "newString": "hi"}),
        Turn.tool_call("edit", {"filePath": str(hello), "oldString": "hi", "newString": "hey"}),
        Turn.tool_call("write", {"filePath": str(other), "content": "new = 3\n"}),
        Turn.tool_call("write", {"filePath": str(acp.project / "fresh.py"), "content": "x = 1\n"}),
        Turn.text("Done."),
    )
    first = await acp.run("turn", PROMPT="change things")
    assert first.failure is None, first.failure
    live = diffs(first.updates())
    assert len(live) == 4
    assert sorted((d[0].get("oldText") or "", d[0]["newText"]) for d in live.values()) == sorted(
        [
            ("print('hello')\n", "print('hi')\n"),
            ("print('hi')\n", "print('hey')\n"),
            ("old = 1\nkeep = 2\n", "new = 3\n"),  # an overwrite shows what it replaced
            ("", "x = 1\n"),  # a new file
        ]
    )
    hello.write_text("changed since\n")  # what is on disk now must not leak into the replay

    run = await acp.run("load", SESSION_ID=first.results["session"]["sessionId"])
    assert run.failure is None, run.failure
    loaded = run.kinds.index("loaded")
    replayed = diffs([e["update"] for e in run.log[:loaded] if e["kind"] == "update"])
    assert replayed == live
