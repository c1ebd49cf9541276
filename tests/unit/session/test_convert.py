"""History → model messages: the rendered request is snapshot-tested (it is what the model reads)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from core.message.models import MessageAdapter, MessageWithParts, PartAdapter
from core.session.convert import CLEARED, INTERRUPTED, to_model_messages

SNAPSHOTS = Path(__file__).parent / "snapshots"


def msg(info: dict[str, Any], *parts: dict[str, Any]) -> MessageWithParts:
    base = {"sessionID": "ses_1", "messageID": info["id"]}
    return MessageWithParts(
        info=MessageAdapter.validate_python({"sessionID": "ses_1", **info}),
        parts=[
            PartAdapter.validate_python({**base, "id": f"prt_{i}_{info['id']}", **p})
            for i, p in enumerate(parts)
        ],
    )


USER = {
    "role": "user",
    "time": {"created": 1},
    "agent": "build",
    "model": {"providerID": "p", "modelID": "m"},
}
ASSISTANT = {
    "role": "assistant",
    "time": {"created": 1},
    "parentID": "msg_1",
    "providerID": "p",
    "modelID": "m",
    "agent": "build",
    "mode": "build",
}


def tool(call: str, status: str, **state: Any) -> dict[str, Any]:
    return {
        "type": "tool",
        "callID": call,
        "tool": "read",
        "state": {"status": status, "input": {"filePath": "a"}, **state},
    }


HISTORY = [
    msg(
        {"id": "msg_1", **USER},
        {"type": "text", "text": "look at a"},
        {"type": "text", "text": "hidden", "ignored": True},
        {"type": "file", "mime": "image/png", "url": "data:image/png;base64,AA"},
    ),
    msg(
        {"id": "msg_2", **ASSISTANT},
        {"type": "step-start"},
        {
            "type": "reasoning",
            "text": "hm",
            "time": {"start": 1},
            "metadata": {"anthropic": {"signature": "s"}},
        },
        {"type": "text", "text": "reading"},
        tool("c1", "completed", output="old output", title="a", time={"start": 1, "end": 2, "compacted": 3}),
        tool(
            "c2",
            "completed",
            output="fresh",
            title="a",
            time={"start": 1, "end": 2},
            attachments=[
                {
                    "id": "prt_x",
                    "sessionID": "ses_1",
                    "messageID": "msg_2",
                    "type": "file",
                    "mime": "image/png",
                    "url": "data:image/png;base64,BB",
                }
            ],
        ),
        tool("c3", "error", error="boom", time={"start": 1, "end": 2}),
        tool("c4", "running", time={"start": 1}),
        {"type": "step-finish", "reason": "tool-calls"},
    ),
    msg({"id": "msg_3", **USER}, {"type": "compaction", "auto": True}),
    msg({"id": "msg_4", **USER}, {"type": "subtask", "prompt": "p", "description": "d", "agent": "explore"}),
    msg({"id": "msg_5", **ASSISTANT, "error": {"name": "api", "message": "x"}}, {"type": "step-start"}),
]


def check_snapshot(name: str, value: Any) -> None:
    path = SNAPSHOTS / name
    rendered = json.dumps(value, indent=2, sort_keys=True) + "\n"
    if os.environ.get("AGENTLS_UPDATE_SNAPSHOTS") or not path.exists():
        path.write_text(rendered)
    assert rendered == path.read_text(), f"{name} changed; set AGENTLS_UPDATE_SNAPSHOTS=1 if intended"


def test_rendered_history_without_media_in_tool_results() -> None:
    out = to_model_messages(HISTORY, media_in_tool_results=False)
    results = {m["tool_call_id"]: m["content"] for m in out if m["role"] == "tool"}
    assert results == {"c1": CLEARED, "c2": "fresh", "c3": "Error: boom", "c4": INTERRUPTED}
    assert out[-1]["content"][0]["text"] == "The following tool was executed by the user"
    check_snapshot("convert_openai.json", out)


def test_rendered_history_with_media_in_tool_results() -> None:
    out = to_model_messages(HISTORY, media_in_tool_results=True)
    c2 = next(m for m in out if m.get("tool_call_id") == "c2")
    assert c2["content"][1]["image_url"]["url"].endswith("BB")
    check_snapshot("convert_anthropic.json", out)
