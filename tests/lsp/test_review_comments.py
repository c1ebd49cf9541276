"""agent/review/comment through the real server: a batch of review comments reaches the agent as
one prompt, waits its turn behind a running one, and bad batches are refused before anything is sent."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest
from pygls.exceptions import JsonRpcException

from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from lsp_server import errors
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
    model.script(
        Turn.tool_call("edit", {"filePath": str(path), "oldString": "b\n", "newString": "B\n"}).tool_call(
            "edit", {"filePath": str(path), "oldString": "d\n", "newString": "D\n"}
        ),
        Turn.text("Changed."),
    )
    sid = str((await plugin.call("agent/session/create", {}))["id"])
    await plugin.call("agent/session/prompt", {"sessionID": sid, "parts": [{"type": "text", "text": "go"}]})
    return sid, (await plugin.call("agent/review/list", {"sessionID": sid}))["hunks"]


def _comment(**fields: Any) -> dict[str, Any]:
    """A valid comment on hello.py's first line with ``fields`` changed (a field set to None is left out)."""
    made = {"path": "hello.py", "startLine": 1, "endLine": 1, "body": "x", **fields}
    return {k: v for k, v in made.items() if v is not None}


def _user_texts(model: FakeModelServer, index: int = -1) -> list[str]:
    """The text of every user message of one model request."""
    out: list[str] = []
    for message in model.requests[index].messages:
        if message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, str):
            out.append(content)
        else:
            out.append("".join(c.get("text", "") for c in content or [] if isinstance(c, dict)))
    return out


async def test_a_batch_of_comments_is_one_prompt_with_the_lines_quoted(
    plugin: Connected, model: FakeModelServer
) -> None:
    sid, hunks = await _two_edits(plugin, model)
    plugin.editor.type(plugin.root / "hello.py", "a\nB\nc\nD\ne\n# the user's line\n")  # unsaved
    model.script(Turn.text("Both done."))
    comments = [
        {
            "path": "hello.py",
            "startLine": 2,
            "endLine": 2,
            "body": "Why upper case?",
            "hunkId": hunks[0]["id"],
        },
        {"path": str(plugin.root / "hello.py"), "startLine": 4, "endLine": 6, "body": "Keep these lower."},
    ]
    answer = await plugin.call("agent/review/comment", {"sessionId": sid, "comments": comments})

    messages = (await plugin.call("agent/session/messages", {"sessionID": sid}))["messages"]
    assert answer["sessionID"] == sid
    assert answer["messageID"] == messages[-1]["info"]["id"] and messages[-1]["info"]["role"] == "assistant"
    review = _user_texts(model)[-1]  # ONE user message holds the whole batch
    assert "left 2 comments" in review
    assert (
        f"## 1. hello.py, line 2 (on your change to line 2, hunk {hunks[0]['id']})\n```py\nB\n```" in review
    )
    assert "Why upper case?" in review
    assert "## 2. hello.py, lines 4-6\n```py\nD\ne\n# the user's line\n```\nKeep these lower." in review
    assert len(model.requests) == 3  # the edits' two steps, then the review's turn


async def test_comments_sent_while_a_turn_runs_wait_in_the_queue(
    plugin: Connected, model: FakeModelServer
) -> None:
    sid, hunks = await _two_edits(plugin, model)
    release = asyncio.Event()
    model.script(Turn.text("busy with it", chunks=6).stall(after=2, until=release), Turn.text("Reviewed."))
    params = {"sessionID": sid, "parts": [{"type": "text", "text": "carry on"}]}
    streamed = len(plugin.events("message.part.delta"))
    running = asyncio.ensure_future(plugin.client.protocol.send_request_async("agent/session/prompt", params))
    await plugin.editor.wait_for(lambda: len(plugin.events("message.part.delta")) > streamed)
    comment = {
        "path": "hello.py",
        "startLine": 2,
        "endLine": 2,
        "body": "Rename this.",
        "hunkID": hunks[0]["id"],
    }
    review = asyncio.ensure_future(
        plugin.call("agent/review/comment", {"sessionID": sid, "comments": [comment]})
    )
    (queued,) = await plugin.editor.wait_for(lambda: plugin.events("queue.added"))
    assert "Rename this." in str(queued["properties"])
    release.set()
    first, answer = await asyncio.wait_for(asyncio.gather(running, review), 30)
    assert answer["messageID"] != first["info"]["id"]
    assert "Rename this." not in str(model.requests[-2].messages)  # the running turn never saw it
    assert "Rename this." in _user_texts(model)[-1]


async def test_send_false_stores_the_review_without_a_turn(plugin: Connected, model: FakeModelServer) -> None:
    sid, _ = await _two_edits(plugin, model)
    asked = len(model.requests)
    comment = _comment(body="Later: docstring.")
    answer = await plugin.call(
        "agent/review/comment", {"sessionID": sid, "comments": [comment], "send": False}
    )
    messages = (await plugin.call("agent/session/messages", {"sessionID": sid}))["messages"]
    last = messages[-1]
    assert (answer["messageID"], last["info"]["role"]) == (last["info"]["id"], "user")
    assert "Later: docstring." in str(last["parts"])
    assert len(model.requests) == asked


# One bad batch per row: what the batch holds (None: no comment at all), and the error it gets.
BAD_BATCHES: list[tuple[str, dict[str, Any] | None, int, str]] = [
    ("empty", None, errors.INVALID_PARAMS, "at least one comment"),
    (
        "relative outside",
        {"path": "../outside.py"},
        errors.INVALID_PARAMS,
        "comments.0.path: ../outside.py is outside the project",
    ),
    ("absolute outside", {"path": "/etc/passwd"}, errors.INVALID_PARAMS, "outside the project"),
    ("not a file URI", {"path": "https://x.test/a.py"}, errors.INVALID_PARAMS, "not a path or a file:// URI"),
    ("unknown hunk", {"hunkID": "hnk_nope"}, errors.NOT_FOUND, "no hunk hnk_nope"),
    ("reversed range", {"startLine": 3, "endLine": 2}, errors.INVALID_PARAMS, "not a range"),
    ("line 0", {"startLine": 0, "endLine": 2}, errors.INVALID_PARAMS, "startLine"),
    (
        "past the end",
        {"startLine": 40, "endLine": 41},
        errors.INVALID_PARAMS,
        "line 40 is past the end of hello.py (5 lines)",
    ),
    ("blank body", {"body": "   "}, errors.INVALID_PARAMS, "comment is empty"),
    ("missing file", {"path": "missing.py"}, errors.INVALID_PARAMS, "missing.py does not exist"),
    ("no body", {"body": None}, errors.INVALID_PARAMS, "comments.0.body"),
]


@pytest.mark.parametrize(
    ("fields", "code", "message"), [pytest.param(*row[1:], id=row[0]) for row in BAD_BATCHES]
)
async def test_bad_batches_are_refused_and_nothing_is_sent(
    plugin: Connected, model: FakeModelServer, fields: dict[str, Any] | None, code: int, message: str
) -> None:
    comments = [] if fields is None else [_comment(**fields)]
    sid, _ = await _two_edits(plugin, model)
    asked, count = (
        len(model.requests),
        len((await plugin.call("agent/session/messages", {"sessionID": sid}))["messages"]),
    )
    with pytest.raises(JsonRpcException, match=re.escape(message)) as caught:
        await plugin.call("agent/review/comment", {"sessionID": sid, "comments": comments})
    assert caught.value.code == code
    assert len(model.requests) == asked
    assert len((await plugin.call("agent/session/messages", {"sessionID": sid}))["messages"]) == count


async def test_a_hunk_of_another_file_and_an_unknown_session_are_refused(
    plugin: Connected, model: FakeModelServer
) -> None:
    sid, hunks = await _two_edits(plugin, model)
    (plugin.root / "other.py").write_text("x\n")
    wrong = _comment(path="other.py", hunkID=hunks[0]["id"])
    with pytest.raises(JsonRpcException, match=re.escape("changed hello.py, not other.py")):
        await plugin.call("agent/review/comment", {"sessionID": sid, "comments": [wrong]})
    fine = _comment(path=uri(plugin.root / "other.py"))
    with pytest.raises(JsonRpcException) as caught:
        await plugin.call("agent/review/comment", {"sessionID": "ses_nope", "comments": [fine]})
    assert caught.value.code == errors.NOT_FOUND
