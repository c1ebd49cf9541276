"""The part model: every type round-trips through JSON; unions pick the right class; wire names kept."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from core.message.models import PART_TYPES, MessageAdapter, PartAdapter

BASE = {"id": "prt_1", "sessionID": "ses_1", "messageID": "msg_1"}
SAMPLES = [
    {"type": "text", "text": "hi", "synthetic": True, "time": {"start": 1, "end": 2}},
    {"type": "reasoning", "text": "hm", "time": {"start": 1}, "metadata": {"anthropic": {"signature": "s"}}},
    {"type": "file", "mime": "image/png", "filename": "a.png", "url": "data:image/png;base64,AA"},
    {"type": "tool", "callID": "c", "tool": "read", "state": {"status": "pending", "input": {}, "raw": "{"}},
    {
        "type": "tool",
        "callID": "c",
        "tool": "read",
        "state": {"status": "running", "input": {"a": 1}, "time": {"start": 1}},
    },
    {
        "type": "tool",
        "callID": "c",
        "tool": "read",
        "state": {
            "status": "completed",
            "input": {},
            "output": "o",
            "title": "t",
            "metadata": {},
            "time": {"start": 1, "end": 2, "compacted": 3},
        },
    },
    {
        "type": "tool",
        "callID": "c",
        "tool": "read",
        "state": {"status": "error", "input": {}, "error": "e", "time": {"start": 1, "end": 2}},
    },
    {"type": "step-start", "snapshot": "abc"},
    {"type": "step-finish", "reason": "stop", "tokens": {"input": 1, "cache": {"read": 2}}, "cost": 0.5},
    {"type": "snapshot", "snapshot": "abc"},
    {"type": "patch", "hash": "abc", "files": ["a.py"]},
    {"type": "agent", "name": "explore", "source": {"value": "@explore", "start": 0, "end": 8}},
    {
        "type": "retry",
        "attempt": 1,
        "error": {"name": "api", "message": "m", "status": 500},
        "time": {"created": 1},
    },
    {"type": "compaction", "auto": True},
    {"type": "subtask", "prompt": "p", "description": "d", "agent": "explore"},
    {"type": "hook", "event": "PreToolUse", "command": "./x.sh", "source": "agentls config", "exitCode": 2},
]


@pytest.mark.parametrize(
    "sample", SAMPLES, ids=lambda s: f"{s['type']}-{s.get('state', {}).get('status', '')}"
)
def test_every_part_round_trips(sample: dict[str, object]) -> None:
    part = PartAdapter.validate_python({**BASE, **sample})
    assert part.type == sample["type"]
    again = PartAdapter.validate_json(PartAdapter.dump_json(part))
    assert again == part


def test_all_thirteen_part_types_are_covered() -> None:
    assert {s["type"] for s in SAMPLES} == set(PART_TYPES) and len(PART_TYPES) == 13


def test_unknown_part_type_and_bad_state_are_rejected() -> None:
    with pytest.raises(ValidationError):
        PartAdapter.validate_python({**BASE, "type": "video"})
    with pytest.raises(ValidationError):
        PartAdapter.validate_python(
            {**BASE, "type": "tool", "callID": "c", "tool": "t", "state": {"status": "?"}}
        )


def test_messages_discriminate_on_role_and_keep_unknown_keys() -> None:
    user = MessageAdapter.validate_python(
        {
            "role": "user",
            "id": "msg_1",
            "sessionID": "s",
            "time": {"created": 1},
            "agent": "build",
            "model": {"providerID": "p", "modelID": "m"},
            "fromTheFuture": 1,
        }
    )
    assert user.role == "user" and user.model_dump()["fromTheFuture"] == 1
    assistant = MessageAdapter.validate_python(
        {
            "role": "assistant",
            "id": "msg_2",
            "sessionID": "s",
            "parentID": "msg_1",
            "time": {"created": 1},
            "providerID": "p",
            "modelID": "m",
            "agent": "build",
            "mode": "build",
            "error": {"name": "context-overflow", "message": "too long"},
        }
    )
    assert assistant.role == "assistant" and assistant.error is not None
