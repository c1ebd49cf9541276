"""Hostile tool-call arguments end as tool errors the model can read, never as a broken turn."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from core.errors import ToolError
from core.llm.arguments import parse_arguments
from core.message.models import AssistantMessage, ToolStateCompleted, ToolStateError
from core.tools.bash import BashTool
from core.tools.context import ToolContext
from core.tools.edit import EditTool
from core.tools.glob import GlobTool
from core.tools.grep import GrepTool
from core.tools.list import ListTool
from core.tools.read import ReadTool
from core.tools.runner import run_tool
from core.tools.webfetch import WebFetchTool
from core.tools.write import WriteTool
from demo import Turn
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


@pytest.fixture
def odd_names(project: Path) -> Path:
    """A project holding a file and a folder whose names are not UTF-8 (Latin-1 bytes)."""
    root = os.fsencode(project)
    os.mkdir(os.path.join(root, b"d\xe9p\xf4t"))
    with open(os.path.join(root, b"d\xe9p\xf4t", b"caf\xe9.txt"), "wb") as f:
        f.write(b"menu\n")
    (project / "plain.txt").write_text("plain\n")
    return project


async def test_list_shows_non_utf8_names_escaped(odd_names: Path, ctx: ToolContext) -> None:
    result = await run_tool(ListTool(), {}, ctx)
    assert "d\\xe9p\\xf4t/" in result.output and "caf\\xe9.txt" in result.output
    assert "plain.txt" in result.output
    result.output.encode("utf-8")  # what the model reads is valid text


async def test_glob_shows_non_utf8_names_escaped(odd_names: Path, ctx: ToolContext) -> None:
    result = await run_tool(GlobTool(), {"pattern": "**/*.txt"}, ctx)
    assert sorted(result.output.splitlines()) == ["d\\xe9p\\xf4t/caf\\xe9.txt", "plain.txt"]


async def test_a_tool_error_naming_a_non_utf8_path_is_valid_text(odd_names: Path, ctx: ToolContext) -> None:
    with pytest.raises(ToolError) as caught:
        await run_tool(ReadTool(), {"filePath": str(odd_names / "d\udce9p\udcf4t")}, ctx)
    str(caught.value).encode("utf-8")
    assert "d\\xe9p\\xf4t" in str(caught.value)


async def test_list_in_a_project_with_a_non_utf8_name_completes_through_the_loop(
    odd_names: Path, tmp_path: Path
) -> None:
    turns = (Turn.tool_call("list", {}), Turn.text("listed"))
    result = await run_turn(odd_names, tmp_path / "loop-data", *turns)
    (part,) = result.tool_parts()
    assert isinstance(part.state, ToolStateCompleted), part.state
    assert "caf\\xe9.txt" in part.state.output


LONG = "x" * 100_000
HOSTILE = [
    ("read", {"filePath": "a\x00b"}, "filePath", "NUL byte"),
    ("write", {"filePath": "a\x00b", "content": "x"}, "filePath", "NUL byte"),
    ("edit", {"filePath": "a\x00b", "oldString": "a", "newString": "b"}, "filePath", "NUL byte"),
    ("list", {"path": "a\x00b"}, "path", "NUL byte"),
    ("glob", {"pattern": "*", "path": "a\x00"}, "path", "NUL byte"),
    ("grep", {"pattern": "a\x00b"}, "pattern", "NUL byte"),
    ("grep", {"pattern": "a", "include": "\x00"}, "include", "NUL byte"),
    ("bash", {"command": "echo a\x00b", "description": "echo"}, "command", "NUL byte"),
    ("bash", {"command": "echo hi", "workdir": "a\x00", "description": "echo"}, "workdir", "NUL byte"),
    ("webfetch", {"url": "http://127.0.0.1:1/\x00", "format": "text"}, "url", "NUL byte"),
    ("webfetch", {"url": "http://127.0.0.1:1/\x01", "format": "text"}, "", "not a valid URL"),
    ("read", {"filePath": LONG}, "", "too long"),
    ("write", {"filePath": LONG, "content": "x"}, "", "too long"),
    ("list", {"path": LONG}, "", "too long"),
    ("bash", {"command": "echo hi", "workdir": LONG, "description": "echo"}, "", "too long"),
    ("grep", {"pattern": "(" + LONG}, "", "regular expression"),
    ("webfetch", {"url": LONG, "format": "text"}, "", "http"),
]


@pytest.mark.parametrize(("tool_id", "args", "names", "says"), HOSTILE)
async def test_hostile_arguments_get_a_short_error_written_for_the_model(
    project: Path, ctx: ToolContext, tool_id: str, args: dict[str, object], names: str, says: str
) -> None:
    tools = {
        t.id: t
        for t in (
            ReadTool(),
            WriteTool(),
            EditTool(),
            ListTool(),
            GlobTool(),
            GrepTool(),
            BashTool(),
            WebFetchTool(),
        )
    }
    with pytest.raises(ToolError) as caught:
        await run_tool(tools[tool_id], args, ctx)
    message = str(caught.value)
    assert says in message and names in message
    assert len(message) < 1_500, message[:300]  # the 100 kB input is cut, not echoed whole
    for raw in ("ValueError", "OSError", "Errno", "embedded null", "\\x00'", "Traceback"):
        assert raw not in message, message
