"""The real server's answers and events are what docs/protocol.schema.json (and so the clients'
generated types) say they are: every request of the table is called after a turn that edited a
file, and each answer, and each event sent meanwhile, is checked against the generated schema."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from lsp_server import methods
from tests.lsp.conftest import Connected, agent_config
from tests.lsp.editor import uri

SCHEMA = json.loads((Path(__file__).parents[2] / "docs" / "protocol.schema.json").read_text())


def validator(ref: dict[str, Any]) -> Draft202012Validator:
    return Draft202012Validator({**ref, "$defs": SCHEMA["$defs"]})


def problems(ref: dict[str, Any], value: Any) -> list[str]:
    return [
        f"{'/'.join(map(str, e.absolute_path))}: {e.message}"[:300] for e in validator(ref).iter_errors(value)
    ]


@pytest.fixture
def options(model: FakeModelServer, title_model: FakeModelServer) -> Any:
    return {"config": agent_config(model, title_model)}


async def test_every_answer_and_event_matches_the_generated_schema(
    plugin: Connected, model: FakeModelServer
) -> None:
    path = plugin.root / "hello.py"
    plugin.editor.open(path, "print('hello')\n")
    edit = {"filePath": str(path), "oldString": "hello", "newString": "bye"}
    todos = {"todos": [{"content": "check", "status": "pending", "priority": "high"}]}
    model.script(
        Turn.tool_call("edit", edit),
        Turn.tool_call("todowrite", todos),
        Turn.reasoning("thinking").text("Changed."),
        Turn.text("Compacted summary."),
        Turn.text("Second answer."),
    )
    session = await plugin.call("agent/session/create", {"title": "shapes"})
    assert not problems(SCHEMA["methods"]["agent/session/create"]["result"], session)
    sid = session["id"]
    text = {"type": "text", "text": "change it"}
    calls: list[tuple[str, Any]] = [
        ("agent/session/prompt", {"sessionID": sid, "parts": [text, {"type": "file", "uri": uri(path)}]}),
        ("agent/session/get", {"sessionID": sid}),
        ("agent/session/list", {}),
        ("agent/session/search", {"query": "change"}),
        ("agent/session/export", {"sessionID": sid}),
        ("agent/session/update", {"sessionID": sid, "title": "renamed"}),
        ("agent/session/messages", {"sessionID": sid}),
        ("agent/session/todo", {"sessionID": sid}),
        ("agent/session/diff", {"sessionID": sid}),
        ("agent/review/list", {"sessionID": sid}),
        (
            "agent/context/resolve",
            {"sessionID": sid, "items": [{"kind": "changes"}, {"kind": "folder", "path": "nope"}]},
        ),
        ("agent/session/queue/list", {"sessionID": sid}),
        ("agent/session/mode", {"sessionID": sid}),
        ("agent/session/effort", {"sessionID": sid}),
        ("agent/commands", {}),
        ("agent/mcp/list", {}),
        ("agent/mcp/resources", {}),
        ("agent/config", {}),
        ("agent/providers", {}),
        ("agent/permission/list", {}),
        ("agent/question/list", {}),
        ("agent/plan/list", {}),
        ("agent/session/command", {"sessionID": sid, "command": "changes"}),
        ("agent/review/keep", {"sessionID": sid}),
        ("agent/session/compact", {"sessionID": sid}),
        ("agent/session/prompt", {"sessionID": sid, "parts": [{"type": "text", "text": "again"}]}),
        ("agent/session/fork", {"sessionID": sid}),
        ("agent/session/abort", {"sessionID": sid}),
        (
            "agent/review/comment",
            {
                "sessionID": sid,
                "comments": [{"path": "hello.py", "startLine": 1, "endLine": 1, "body": "why?"}],
                "send": False,
            },
        ),
    ]
    messages = (await plugin.call("agent/session/messages", {"sessionID": sid}))["messages"]
    assert messages == []
    called = {"agent/session/create"}
    for method, params in calls:
        answer = await plugin.call(method, params)
        found = problems(SCHEMA["methods"][method]["result"], answer)
        assert not found, f"{method} answered {json.dumps(answer)[:500]}: {found}"
        called.add(method)
    first_user = (await plugin.call("agent/session/messages", {"sessionID": sid}))["messages"][0]["info"][
        "id"
    ]
    for method, params in [
        ("agent/session/revert", {"sessionID": sid, "messageID": first_user}),
        ("agent/session/unrevert", {"sessionID": sid}),
        ("agent/session/delete", {"sessionID": sid}),
    ]:
        answer = await plugin.call(method, params)
        assert not problems(SCHEMA["methods"][method]["result"], answer), (method, answer)
        called.add(method)
    # Every event sent on the way, each checked against its own type's schema.
    events = plugin.events()
    seen = {event["type"] for event in events}
    assert {
        "message.part.updated",
        "message.part.delta",
        "todo.updated",
        "review.updated",
        "file.edited",
    } <= seen
    for event in events:
        found = problems({"$ref": "#/$defs/AgentEvent"}, event)
        assert not found, f"{json.dumps(event)[:500]}: {found}"
    # What was not called here is covered by the malformed-params table and the dialog tests.
    untried = {
        m.name for m in methods.METHODS if m.direction == "client→server" and m.kind == "request"
    } - called
    assert untried == {
        "agent/permission/reply",
        "agent/question/reply",
        "agent/question/reject",
        "agent/plan/reply",  # tests/lsp/test_plan_review.py
        "agent/session/queue/update",
        "agent/session/queue/remove",
        "agent/review/undo",
        # tests/lsp/test_background.py checks these against the schema with background work running
        "agent/background/list",
        "agent/background/stop",
        "agent/background/message",
        "agent/background/shell/stop",
        # tests/lsp/test_worktrees.py checks these against the schema in a git repository
        "agent/worktree/list",
        "agent/worktree/diff",
        "agent/worktree/merge",
        "agent/worktree/discard",
        # needs an MCP server: tests/e2e/test_mcp_servers.py and the editors' MCP scenarios run it
        "agent/mcp/set",
    }


def test_a_result_that_differs_from_the_schema_is_reported() -> None:
    session = {
        "id": "ses_1",
        "projectID": "p",
        "title": "t",
        "directory": "/",
        "time": {"created": 1, "updated": 2},
    }
    assert problems(SCHEMA["methods"]["agent/session/get"]["result"], session) == []
    # An optional field sent as null (the types say it is left out), a missing field, an unknown key.
    assert problems(SCHEMA["methods"]["agent/session/get"]["result"], {**session, "parentID": None})
    assert problems(SCHEMA["methods"]["agent/session/list"]["result"], {"sessions": [{"id": "x"}]})
    assert problems(SCHEMA["methods"]["agent/session/list"]["result"], {"sessions": [], "more": True})
