"""Review through the real server with git snapshots: what the user types and saves while the agent's
step runs (another file, another part of the file the agent edits) is not recorded as the agent's."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from lsprotocol import types as lsp

from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.lsp.conftest import Connected, agent_config
from tests.lsp.editor import uri


@pytest.fixture
def options(model: FakeModelServer, title_model: FakeModelServer) -> Any:
    config = agent_config(model, title_model, snapshot={"enabled": True}, permission={"edit": "ask"})
    return {"config": config}


def _save(plugin: Connected, path: Any, text: str) -> None:
    """The user types ``text`` into the open buffer and saves it."""
    plugin.editor.type(path, text)
    path.write_text(text)
    plugin.client.text_document_did_save(
        lsp.DidSaveTextDocumentParams(text_document=lsp.TextDocumentIdentifier(uri=uri(path)))
    )


QUESTION = {"questions": [{"question": "Go on?", "header": "Step", "options": [{"label": "yes"}]}]}


async def test_the_users_saved_edits_during_a_step_are_not_review_hunks(
    plugin: Connected, model: FakeModelServer
) -> None:
    hello, other = plugin.root / "hello.py", plugin.root / "other.py"
    for path in (hello, other):
        path.write_text("a\nb\nc\nd\ne\n")
        plugin.editor.open(path, "a\nb\nc\nd\ne\n")
    # One step: an edit no one is asked about (Auto-accept), and a question that keeps the step open.
    model.script(
        Turn.tool_call("edit", {"filePath": str(hello), "oldString": "b\n", "newString": "B\n"}).tool_call(
            "question", QUESTION
        ),
        Turn.text("Changed."),
    )
    sid = str((await plugin.call("agent/session/create", {}))["id"])
    await plugin.call("agent/session/mode", {"sessionID": sid, "mode": "auto"})
    params = {"sessionID": sid, "parts": [{"type": "text", "text": "go"}]}
    turn = asyncio.ensure_future(plugin.client.protocol.send_request_async("agent/session/prompt", params))
    (asked,) = await plugin.editor.wait_for(lambda: plugin.events("question.asked"))
    await plugin.editor.wait_for(lambda: plugin.editor.buffers[uri(hello)].text.startswith("a\nB\n"))

    # While the step waits on the question, the user edits and saves both files.
    _save(plugin, other, "a\nb\nc, the user's\nd\ne\n")
    _save(plugin, hello, "a\nB\nc\nd\ne, the user's\n")
    reply = {"requestID": asked["properties"]["request"]["id"], "answers": [["yes"]]}
    await plugin.call("agent/question/reply", reply)
    await asyncio.wait_for(turn, 30)
    assert hello.read_text() == "a\nB\nc\nd\ne, the user's\n"

    hunks = (await plugin.call("agent/review/list", {"sessionID": sid}))["hunks"]
    assert [(h["file"], h["before"], h["after"]) for h in hunks] == [("hello.py", ["b\n"], ["B\n"])]
    diff = await plugin.call("agent/session/diff", {"sessionID": sid})
    assert {f["file"] for f in diff["files"]} >= {"hello.py"}  # the diff is the snapshots' (unchanged)

    result = await plugin.call("agent/review/undo", {"sessionID": sid})
    assert result["conflicts"] == [] and [h["id"] for h in result["changed"]] == [hunks[0]["id"]]
    assert plugin.editor.buffers[uri(hello)].text == "a\nb\nc\nd\ne, the user's\n"
    assert other.read_text() == "a\nb\nc, the user's\nd\ne\n"


async def test_an_edit_approved_in_its_dialog_is_not_reviewed_again(
    plugin: Connected, model: FakeModelServer
) -> None:
    hello, other = plugin.root / "hello.py", plugin.root / "other.py"
    for path in (hello, other):
        path.write_text("a\nb\nc\nd\ne\n")
        plugin.editor.open(path, "a\nb\nc\nd\ne\n")
    model.script(
        Turn.tool_call("edit", {"filePath": str(hello), "oldString": "b\n", "newString": "B\n"}),
        Turn.text("Changed."),
    )
    sid = str((await plugin.call("agent/session/create", {}))["id"])
    params = {"sessionID": sid, "parts": [{"type": "text", "text": "go"}]}
    turn = asyncio.ensure_future(plugin.client.protocol.send_request_async("agent/session/prompt", params))
    (asked,) = await plugin.editor.wait_for(lambda: plugin.events("permission.asked"))

    # While the step waits on the dialog, the user edits and saves both files; then allows the edit.
    _save(plugin, other, "a\nb\nc, the user's\nd\ne\n")
    _save(plugin, hello, "a\nb\nc\nd\ne, the user's\n")
    reply = {"requestID": asked["properties"]["request"]["id"], "reply": "once"}
    await plugin.call("agent/permission/reply", reply)
    await asyncio.wait_for(turn, 30)
    assert hello.read_text() == "a\nB\nc\nd\ne, the user's\n"

    # The user saw the diff and allowed it: kept, not waiting for a second review; no review event.
    assert (await plugin.call("agent/review/list", {"sessionID": sid}))["hunks"] == []
    assert not plugin.events("review.updated")
    diff = await plugin.call("agent/session/diff", {"sessionID": sid})
    assert {f["file"] for f in diff["files"]} >= {"hello.py"}  # the session's diff still shows it
