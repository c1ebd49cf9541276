"""rename, code_actions and format through the real server: offered only to a client that announces
the query, the client's edits read in its position encoding and applied by the server into the
editor's buffers, and an edit the server cannot apply whole is a tool error with nothing changed."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.lsp.conftest import Connected, agent_config
from tests.lsp.editor import PLUGIN, uri
from tests.lsp.test_agent import new_session, prompt, tool_results
from tests.lsp.test_editor_queries import EditorSide, editor_client, offered

REFACTOR_TOOLS = {"rename", "code_actions", "organize_imports", "format"}
QUERIES = "definition,references,hover,documentSymbols,workspaceSymbols,diagnostics,rename,codeActions,format"
LIB = "export function greet(name: string) {\n  return 'hi ' + name;\n}\n"
MAIN = "import { greet } from './lib';\nconst s = '😀'; greet(s);\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "lib.ts").write_text(LIB)
    (root / "main.ts").write_text(MAIN)
    return root


@pytest.fixture
def options(model: FakeModelServer, title_model: FakeModelServer) -> dict[str, Any]:
    return {"config": agent_config(model, title_model), "editorTimeout": 0.5}


@pytest.fixture
async def answering(
    tmp_path: Path, project: Path, options: Any
) -> AsyncIterator[tuple[Connected, EditorSide]]:
    async for pair in editor_client(tmp_path, project, f"{PLUGIN}+editor:{QUERIES}", options):
        yield pair


def span(line: int, start: int, end: int) -> dict[str, Any]:
    return {"start": {"line": line, "character": start}, "end": {"line": line, "character": end}}


def text_edit(line: int, start: int, end: int, text: str) -> dict[str, Any]:
    return {"range": span(line, start, end), "newText": text}


def read(path: Path) -> str:
    return path.read_text()


@pytest.mark.parametrize(
    ("profile", "expected"),
    [
        (f"{PLUGIN}+editor:{QUERIES}", REFACTOR_TOOLS),
        (f"{PLUGIN}+editor:definition,rename", {"rename"}),
        (f"{PLUGIN}+editor:codeActions", {"code_actions", "organize_imports"}),
        (PLUGIN, set()),
        ("neovim@v0.10.0", set()),  # a stock client answers no agent/editorQuery: not offered
        ("visual-studio-code", set()),
    ],
)
async def test_the_refactoring_tools_are_offered_only_for_the_queries_the_client_announced(
    tmp_path: Path, project: Path, options: Any, model: FakeModelServer, profile: str, expected: set[str]
) -> None:
    model.script(Turn.text("ok"))
    async for connected, _ in editor_client(tmp_path, project, profile, options):
        await prompt(connected, await new_session(connected), "hi")
        assert offered(model) & REFACTOR_TOOLS == expected


async def test_a_rename_lands_in_the_open_buffer_and_on_disk_counted_in_utf16(
    answering: tuple[Connected, EditorSide], model: FakeModelServer, project: Path
) -> None:
    connected, side = answering
    lib, main = project / "lib.ts", project / "main.ts"
    connected.editor.open(main, MAIN)
    # `greet` on main.ts's line 2 starts after an emoji: UTF-16 column 16, Python column 15.
    answer = {
        "changes": [
            {"uri": uri(lib), "edits": [text_edit(0, 16, 21, "hello")]},
            {"uri": uri(main), "edits": [text_edit(0, 9, 14, "hello"), text_edit(1, 16, 21, "hello")]},
        ]
    }
    side.answer = lambda params: answer if params["query"] == "rename" else []
    model.script(
        Turn.tool_call("rename", {"filePath": "main.ts", "line": 2, "symbol": "greet", "newName": "hello"}),
        Turn.text("Renamed."),
    )
    await prompt(connected, await new_session(connected), "rename greet")
    [asked, *_] = side.asked
    assert asked == {
        "query": "rename",
        "uri": uri(main),
        "position": {"line": 1, "character": 16},
        "newName": "hello",
    }
    expected_main = "import { hello } from './lib';\nconst s = '😀'; hello(s);\n"
    assert connected.editor.buffers[uri(main)].text == expected_main
    assert read(lib) == LIB.replace("greet", "hello")
    result = tool_results(model.requests[1].messages)
    assert "Renamed greet to hello: 3 edits in 2 files (lib.ts, main.ts)." in result
    assert "Diagnostics after the edit: nothing new in the changed files, nothing fixed." in result


def renamed(lib: str) -> list[dict[str, Any]]:
    return [{"uri": lib, "edits": [text_edit(0, 16, 21, "hello")]}]


@pytest.mark.parametrize(
    ("answer", "error"),
    [
        (
            lambda lib: {"changes": renamed(lib), "fileOperations": [{"kind": "rename", "uri": lib}]},
            "also changes files themselves (rename file://",
        ),
        (
            lambda lib: {"changes": [{"uri": lib, "edits": [{"range": span(0, 1, 2)}]}]},
            "could not be read: changes.0.edits.0.newText",
        ),
        (
            lambda lib: {"changes": [{"uri": "untitled:x", "edits": []}]},
            "changes untitled:x, which is not a file",
        ),
        (
            lambda lib: {"changes": [*renamed(lib), {"uri": lib, "edits": [text_edit(40, 0, 1, "x")]}]},
            "reaches line 41 of lib.ts",
        ),
    ],
    ids=["file-operations", "garbled", "not-a-file", "stale"],
)
async def test_an_edit_the_server_cannot_apply_whole_is_a_tool_error_and_nothing_changes(
    answering: tuple[Connected, EditorSide],
    model: FakeModelServer,
    project: Path,
    answer: Callable[[str], Any],
    error: str,
) -> None:
    connected, side = answering
    lib = project / "lib.ts"
    side.answer = lambda params: answer(uri(lib)) if params["query"] == "rename" else []
    model.script(
        Turn.tool_call("rename", {"filePath": "lib.ts", "line": 1, "symbol": "greet", "newName": "hello"}),
        Turn.text("I will edit instead."),
    )
    await prompt(connected, await new_session(connected), "rename greet")
    assert error in tool_results(model.requests[1].messages)
    assert read(lib) == LIB


async def test_a_code_action_is_listed_resolved_applied_and_its_command_run(
    answering: tuple[Connected, EditorSide], model: FakeModelServer, project: Path
) -> None:
    connected, side = answering
    main = project / "main.ts"
    listed = [
        {"title": "Add braces", "kind": "refactor.rewrite", "diagnostics": []},
        {"title": "Fix greeting", "kind": "quickfix", "isPreferred": True, "diagnostics": ["Bad greeting"]},
    ]
    resolved = {
        "title": "Fix greeting",
        "kind": "quickfix",
        "edit": {"changes": [{"uri": uri(main), "edits": [text_edit(1, 22, 23, "'x'")]}]},
        "command": {"title": "Log the fix", "command": "ts.log"},
        "token": "t1",
    }
    answers = {
        "codeActions": listed,
        "codeAction": resolved,
        "runCommand": {"changed": []},
        "diagnostics": [],
    }
    side.answer = lambda params: answers[params["query"]]
    model.script(
        Turn.tool_call("code_actions", {"filePath": "main.ts", "line": 2}),
        Turn.tool_call("code_actions", {"filePath": "main.ts", "line": 2, "apply": "quickfix"}),
        Turn.text("Fixed."),
    )
    await prompt(connected, await new_session(connected), "fix it")
    # The range is line 2 whole: its end counted in UTF-16 (the emoji is two units).
    line2 = {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 25}}
    queries = [a for a in side.asked if a["query"] != "diagnostics"]
    assert queries == [
        {"query": "codeActions", "uri": uri(main), "range": line2, "only": []},
        {"query": "codeActions", "uri": uri(main), "range": line2, "only": []},
        {"query": "codeAction", "uri": uri(main), "range": line2, "title": "Fix greeting", "only": []},
        {"query": "runCommand", "token": "t1"},
    ]
    assert "- Fix greeting [quickfix] (preferred) — fixes: Bad greeting" in tool_results(
        model.requests[1].messages
    )
    assert read(main) == "import { greet } from './lib';\nconst s = '😀'; greet('x');\n"
    applied = tool_results(model.requests[2].messages)
    assert "Applied “Fix greeting”: changed 1 file (main.ts)." in applied
    assert "Its command “Log the fix” ran in the editor and changed no file." in applied


async def test_format_asks_for_a_range_and_applies_the_edits(
    answering: tuple[Connected, EditorSide], model: FakeModelServer, project: Path
) -> None:
    connected, side = answering
    lib = project / "lib.ts"
    answers = {"format": [text_edit(1, 0, 2, "    ")], "diagnostics": []}
    side.answer = lambda params: answers[params["query"]]
    model.script(
        Turn.tool_call("format", {"filePath": "lib.ts", "line": 2, "endLine": 3}),
        Turn.text("Formatted."),
    )
    await prompt(connected, await new_session(connected), "format it")
    assert side.asked[0] == {
        "query": "format",
        "uri": uri(lib),
        "range": {"start": {"line": 1, "character": 0}, "end": {"line": 2, "character": 1}},
    }
    assert read(lib) == "export function greet(name: string) {\n    return 'hi ' + name;\n}\n"
    assert "Formatted lib.ts:2-3 with the editor's formatter (+1 -1 lines)." in tool_results(
        model.requests[1].messages
    )


async def late(params: dict[str, Any]) -> Any:
    await params["released"].wait()
    return None


async def test_a_server_that_times_out_is_a_tool_error_and_the_turn_goes_on(
    answering: tuple[Connected, EditorSide], model: FakeModelServer, project: Path
) -> None:
    connected, side = answering
    side.answer = late
    model.script(
        Turn.tool_call("rename", {"filePath": "lib.ts", "line": 1, "symbol": "greet", "newName": "hello"}),
        Turn.text("I will edit instead."),
    )
    await prompt(connected, await new_session(connected), "rename greet")
    side.released.set()
    assert "the editor did not answer the rename query within 0.5 s" in tool_results(
        model.requests[1].messages
    )
    assert read(project / "lib.ts") == LIB


async def test_a_code_action_gone_by_the_time_it_is_applied_changes_nothing(
    answering: tuple[Connected, EditorSide], model: FakeModelServer, project: Path
) -> None:
    connected, side = answering
    # Listed when the model looked, no longer offered when the client recomputes it to apply it.
    answers = {"codeActions": [{"title": "Fix greeting", "kind": "quickfix"}], "codeAction": None}
    side.answer = lambda params: answers[params["query"]]
    model.script(
        Turn.tool_call("code_actions", {"filePath": "main.ts", "line": 2, "apply": "Fix greeting"}),
        Turn.text("I will look again."),
    )
    await prompt(connected, await new_session(connected), "fix it")
    said = tool_results(model.requests[1].messages)
    assert "the code action “Fix greeting” is no longer offered at main.ts:2" in said, said
    assert [a["query"] for a in side.asked] == ["codeActions", "codeAction"]
    assert read(project / "main.ts") == MAIN
