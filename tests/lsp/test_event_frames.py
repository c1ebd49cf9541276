"""Text deltas reach a plugin client merged per frame: few notifications, the same text, the same order."""

from __future__ import annotations

from typing import Any

import pytest

from core.events import PartDelta, TodoUpdated
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from lsp_server.events import merge_deltas
from tests.lsp.conftest import Connected, agent_config


@pytest.fixture
def options(model: FakeModelServer, title_model: FakeModelServer) -> Any:
    return {"config": agent_config(model, title_model)}


def delta(part: str, text: str, field: str = "text") -> PartDelta:
    return PartDelta(sessionID="ses_1", messageID="msg_1", partID=part, field=field, delta=text)


def test_runs_of_one_part_merge_and_everything_else_keeps_its_place() -> None:
    todo = TodoUpdated(sessionID="ses_1", todos=[])
    events = [delta("a", "1"), delta("a", "2"), delta("b", "x"), delta("a", "3"), todo, delta("a", "4")]
    merged = merge_deltas(events)
    assert [(e.partID, e.delta) if isinstance(e, PartDelta) else "todo" for e in merged] == [
        ("a", "12"),
        ("b", "x"),
        ("a", "3"),
        "todo",
        ("a", "4"),
    ]
    assert merge_deltas([delta("a", "1"), delta("a", "2", field="other")]) == [
        delta("a", "1"),
        delta("a", "2", field="other"),
    ]


async def test_a_fast_stream_arrives_in_few_notifications(plugin: Connected, model: FakeModelServer) -> None:
    text = "".join(f"word{i} " for i in range(3000))
    model.script(Turn.text(text, chunks=3000))
    session = await plugin.call("agent/session/create", {})
    params = {"sessionID": session["id"], "parts": [{"type": "text", "text": "talk"}]}
    await plugin.call("agent/session/prompt", params, timeout=60)
    await plugin.editor.wait_for(lambda: plugin.events("session.idle"))
    deltas = [e["properties"]["delta"] for e in plugin.events("message.part.delta")]
    assert "".join(deltas) == text
    assert len(deltas) < 300, f"{len(deltas)} delta notifications for 3000 chunks"
