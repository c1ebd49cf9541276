"""Hostile tool-call arguments end as tool errors the model can read, never as a broken turn."""

from __future__ import annotations

import json
from pathlib import Path

from core.demo import Turn
from core.llm.arguments import parse_arguments
from core.session.models import AssistantMessage, ToolStateError
from tests.unit.tools.loop_harness import run_turn


def test_a_lone_surrogate_in_the_arguments_is_refused_with_a_reason() -> None:
    raw = json.dumps({"filePath": "a\udcffb.txt"})  # JSON escapes it: valid JSON, invalid Unicode
    value, error = parse_arguments(raw)
    assert value is None and error is not None
    assert "filePath" in error and "surrogate" in error and "\\udcff" in error
    value, error = parse_arguments(json.dumps({"edits": [{"k\ud800": 1}]}))
    assert value is None and error is not None and "edits[0]" in error
    assert parse_arguments(json.dumps({"text": "emoji 😀 is fine"})) == ({"text": "emoji 😀 is fine"}, None)


async def test_a_lone_surrogate_ends_the_call_with_a_tool_error_and_the_turn_goes_on(
    tmp_path: Path,
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    turns = (
        Turn.tool_call("read", {"filePath": str(project / "x\udcff.txt")}),
        Turn.text("I will fix the path."),
    )
    result = await run_turn(project, tmp_path / "data", *turns)
    (part,) = result.tool_parts()
    assert isinstance(part.state, ToolStateError)
    assert "not valid Unicode" in part.state.error
    assert isinstance(result.answer.info, AssistantMessage) and result.answer.info.error is None
    assert [p.text for p in result.answer.parts if p.type == "text"] == ["I will fix the path."]
    tool_results = [m for m in result.requests[1].messages if m.get("role") == "tool"]
    assert len(tool_results) == 1 and "not valid Unicode" in str(tool_results[0]["content"])
