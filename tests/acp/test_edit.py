"""Edits through a real ACP client: the permission dialog carries the diff, the client writes the file."""

from __future__ import annotations

import json

from demo.fake_script import Turn
from tests.acp.conftest import Acp

UNSAVED = "print('hello')  # unsaved in the editor\n"


def edit_turns() -> list[Turn]:
    return [
        Turn.tool_call("edit", {"filePath": "hello.py", "oldString": "hello", "newString": "world"}),
        Turn.text("Changed it."),
    ]


async def test_edit_asks_with_the_diff_and_is_written_by_the_client(acp: Acp) -> None:
    acp.model.script(*edit_turns())
    path = str(acp.project / "hello.py")
    run = await acp.run("turn", PROMPT="say world", BUFFERS=json.dumps({path: UNSAVED}))
    assert run.failure is None, run.failure
    asks = [e["params"] for e in run.log if e["kind"] == "permission"]
    assert len(asks) == 1
    tool_call = asks[0]["toolCall"]
    assert tool_call["kind"] == "edit"
    # The diff is against what the user sees (the unsaved buffer), not the disk.
    assert tool_call["content"] == [
        {"type": "diff", "path": path, "oldText": UNSAVED, "newText": UNSAVED.replace("hello", "world")}
    ]
    assert {o["kind"] for o in asks[0]["options"]} == {
        "allow_once",
        "allow_always",
        "reject_once",
        "reject_always",
    }
    writes = [e["params"] for e in run.log if e["kind"] == "write"]
    assert writes == [
        {"sessionId": asks[0]["sessionId"], "path": path, "content": UNSAVED.replace("hello", "world")}
    ]
    assert (acp.project / "hello.py").read_text() == UNSAVED.replace("hello", "world")
    final = [u for u in run.updates("tool_call_update") if u["toolCallId"] == tool_call["toolCallId"]][-1]
    assert final["status"] == "completed"
    assert final["content"] == [
        {"type": "diff", "path": path, "oldText": UNSAVED, "newText": UNSAVED.replace("hello", "world")}
    ]
    assert run.results["prompt"] == {"stopReason": "end_turn"}


async def test_allow_always_is_kept_for_the_project_across_restarts(acp: Acp) -> None:
    acp.model.script(*edit_turns())
    first = await acp.run("turn", PROMPT="say world", PERMISSION_CHOICE="allow_always")
    assert [e["kind"] for e in first.log].count("permission") == 1
    acp.model.script(
        Turn.tool_call("edit", {"filePath": "hello.py", "oldString": "world", "newString": "again"}),
        Turn.text("Changed it again."),
    )
    second = await acp.run("turn", PROMPT="say again")
    assert second.failure is None, second.failure
    assert "permission" not in second.kinds, "the stored approval answers without a dialog"
    assert (acp.project / "hello.py").read_text() == "print('again')\n"


async def test_reject_leaves_the_file_and_tells_the_model(acp: Acp) -> None:
    acp.model.script(*edit_turns(), Turn.text("unused"))
    run = await acp.run("turn", PROMPT="say world", PERMISSION_CHOICE="reject_once")
    assert run.failure is None, run.failure
    assert (acp.project / "hello.py").read_text() == "print('hello')\n"
    assert "write" not in run.kinds
    failed = [u for u in run.updates("tool_call_update") if u.get("status") == "failed"]
    assert failed and "rejected" in failed[-1]["content"][0]["content"]["text"]
    assert run.results["prompt"]["stopReason"] == "end_turn"


async def test_an_edit_call_is_titled_with_its_path_and_points_at_the_changed_line(acp: Acp) -> None:
    path = acp.project / "hello.py"
    path.write_text("".join(f"line{n}\n" for n in range(1, 11)))
    acp.model.script(
        Turn.tool_call("edit", {"filePath": "hello.py", "oldString": "line7", "newString": "seven"}),
        Turn.text("Changed it."),
    )
    run = await acp.run("turn", PROMPT="change line 7")
    assert run.failure is None, run.failure
    (announced,) = run.updates("tool_call")
    # Announced once its input is known: never an untitled "edit" without a path.
    assert announced["title"] == "Edit hello.py" and announced["status"] == "in_progress"
    assert announced["locations"][0]["path"] == str(path)
    (ask,) = [e["params"]["toolCall"] for e in run.log if e["kind"] == "permission"]
    assert ask["title"] == "Edit hello.py"
    assert ask["locations"] == [{"path": str(path), "line": 6}]  # 0-based: the seventh line
    final = run.updates("tool_call_update")[-1]
    assert final["status"] == "completed" and final["title"] == "Edit hello.py"
    assert final["locations"] == [{"path": str(path), "line": 6}]
    assert path.read_text().splitlines()[6] == "seven"


async def test_an_edit_written_on_disk_points_at_its_line_from_the_stored_diff(acp: Acp) -> None:
    # No fs capability: the agent writes the file itself and the line comes from the edit's diff.
    path = acp.project / "hello.py"
    path.write_text("".join(f"line{n}\n" for n in range(1, 11)))
    acp.model.script(
        Turn.tool_call("edit", {"filePath": str(path), "oldString": "line3\n", "newString": ""}),
        Turn.text("Removed it."),
    )
    run = await acp.run("turn", PROMPT="drop line 3", FS="none")
    assert run.failure is None, run.failure
    final = run.updates("tool_call_update")[-1]
    assert final["status"] == "completed"
    assert final["locations"] == [{"path": str(path), "line": 2}]


async def test_reject_for_this_session_is_named_when_the_next_edit_is_refused(acp: Acp) -> None:
    edit = {"filePath": "hello.py", "oldString": "hello", "newString": "world"}
    acp.model.script(Turn.tool_call("edit", edit), Turn.tool_call("edit", edit), Turn.text("I will not."))
    run = await acp.run(
        "options",
        CONFIG="[]",
        PROMPTS=json.dumps(["say world", "try again"]),
        PERMISSION_CHOICE="reject_always",
    )
    assert run.failure is None, run.failure
    assert run.kinds.count("permission") == 1  # the second edit is refused without asking
    told = str(acp.model.requests[-1].messages[-1]["content"])
    assert 'the user chose "Reject for this session"' in told
    assert "denied by the configuration" not in told and "change the rule" not in told
    assert (acp.project / "hello.py").read_text() == "print('hello')\n"
