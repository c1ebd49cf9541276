"""agent/review/* through the real server: hunks listed, undone around the user's unsaved typing."""

from __future__ import annotations

from typing import Any

import pytest
from pygls.exceptions import JsonRpcException

from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.lsp.conftest import Connected, agent_config
from tests.lsp.editor import uri

FILE = "a\nb\nc\nd\ne\n"


@pytest.fixture
def options(model: FakeModelServer, title_model: FakeModelServer) -> Any:
    return {"config": agent_config(model, title_model)}


async def _two_edits(plugin: Connected, model: FakeModelServer) -> tuple[str, list[dict[str, Any]]]:
    path = plugin.root / "hello.py"
    path.write_text(FILE)
    plugin.editor.open(path, FILE)
    edits = [
        {"filePath": str(path), "oldString": old, "newString": new}
        for old, new in (("b\n", "B\n"), ("d\n", "D\n"))
    ]
    model.script(
        Turn.tool_call("edit", edits[0]).tool_call("edit", edits[1]),
        Turn.text("Changed."),
    )
    sid = str((await plugin.call("agent/session/create", {}))["id"])
    await plugin.call("agent/session/prompt", {"sessionID": sid, "parts": [{"type": "text", "text": "go"}]})
    hunks = (await plugin.call("agent/review/list", {"sessionID": sid}))["hunks"]
    return sid, hunks


async def test_undo_one_hunk_keeps_the_users_unsaved_typing(
    plugin: Connected, model: FakeModelServer
) -> None:
    sid, hunks = await _two_edits(plugin, model)
    path = plugin.root / "hello.py"
    assert [(h["file"], h["after"], h["state"]) for h in hunks] == [
        ("hello.py", ["B\n"], "pending"),
        ("hello.py", ["D\n"], "pending"),
    ]
    assert hunks[0]["uri"] == uri(path)
    plugin.editor.type(path, "# mine\na\nB\nc\nD\ne\n")  # unsaved: only the buffer has it
    result = await plugin.call("agent/review/undo", {"sessionID": sid, "hunkIDs": [hunks[0]["id"]]})
    assert [h["state"] for h in result["changed"]] == ["undone"] and result["conflicts"] == []
    assert plugin.editor.buffers[uri(path)].text == "# mine\na\nb\nc\nD\ne\n"
    updated = await plugin.editor.wait_for(lambda: plugin.events("review.updated")[-1:])
    assert updated[0]["properties"]["pending"] == 1
    left = (await plugin.call("agent/review/list", {"sessionID": sid}))["hunks"]
    assert [h["id"] for h in left] == [hunks[1]["id"]]

    # The next turn's request tells the model what the user undid.
    model.script(Turn.text("Noted."))
    await plugin.call("agent/session/prompt", {"sessionID": sid, "parts": [{"type": "text", "text": "next"}]})
    sent = str(model.requests[-1].messages)
    assert "the user undid these changes of yours" in sent and "hello.py, line 2: you wrote" in sent


async def test_an_undo_over_the_users_edit_is_a_conflict(plugin: Connected, model: FakeModelServer) -> None:
    sid, hunks = await _two_edits(plugin, model)
    path = plugin.root / "hello.py"
    mine = "a\nB\nc\nD, fixed by me\ne\n"
    plugin.editor.type(path, mine)
    edits_before = len(plugin.editor.edits)
    result = await plugin.call("agent/review/undo", {"sessionID": sid, "uri": uri(path)})
    assert [h["after"] for h in result["changed"]] == [["B\n"]]
    (conflict,) = result["conflicts"]
    assert (conflict["agent"], conflict["current"]) == (["D\n"], ["D, fixed by me\n"])
    assert plugin.editor.buffers[uri(path)].text == "a\nb\nc\nD, fixed by me\ne\n"
    assert len(plugin.editor.edits) == edits_before + 1
    kept = await plugin.call("agent/review/keep", {"sessionID": sid})
    assert [h["id"] for h in kept["changed"]] == [hunks[1]["id"]]
    assert (await plugin.call("agent/review/list", {"sessionID": sid}))["hunks"] == []


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"hunkIDs": ["hnk_x"], "uri": "file:///x"}, "hunkIDs or uri, not both"),
        ({"uri": "https://example.com/a.py"}, "not a file:// URI"),
        ({"hunkIDs": ["hnk_unknown"]}, "no hunk hnk_unknown"),
        ({"hunkIDs": []}, "hunkIDs"),
    ],
)
async def test_bad_choices_are_refused_and_change_nothing(
    plugin: Connected, model: FakeModelServer, params: dict[str, Any], message: str
) -> None:
    sid, _ = await _two_edits(plugin, model)
    with pytest.raises(JsonRpcException, match=message):
        await plugin.call("agent/review/undo", {"sessionID": sid, **params})
    assert len((await plugin.call("agent/review/list", {"sessionID": sid}))["hunks"]) == 2
