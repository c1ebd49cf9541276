"""Editor tools through the real server: offered only to a client that announces ``editorQueries``,
answered by the client over ``agent/editorQuery``, and a slow, failing or garbled answer is a tool
error the model reads while the turn goes on."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from lsp_server.clients import Connection, parse_options
from tests.lsp.conftest import Connected, agent_config, connect
from tests.lsp.editor import PLUGIN, uri
from tests.lsp.test_agent import new_session, prompt, tool_results

EDITOR_TOOLS = {
    "editor_definition",
    "editor_references",
    "editor_hover",
    "editor_document_symbols",
    "editor_workspace_symbols",
    "editor_diagnostics",
}
ALL = "definition,references,hover,documentSymbols,workspaceSymbols,diagnostics"

Answer = Callable[[dict[str, Any]], Any]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "lib.ts").write_text("export function greet(name: string) {\n  return 'hi ' + name;\n}\n")
    (root / "main.ts").write_text("import { greet } from './lib';\nconst s = '😀'; greet(s);\n")
    return root


@pytest.fixture
def options(model: FakeModelServer, title_model: FakeModelServer) -> dict[str, Any]:
    return {"config": agent_config(model, title_model), "editorTimeout": 0.5}


class EditorSide:
    """What the test client answers to ``agent/editorQuery``, and what it was asked."""

    def __init__(self) -> None:
        self.asked: list[dict[str, Any]] = []
        self.answer: Answer = lambda params: None
        self.released = asyncio.Event()

    async def handle(self, params: Any) -> Any:
        self.asked.append(params)
        result = self.answer({**params, "released": self.released})
        return await result if asyncio.iscoroutine(result) else result


async def editor_client(
    tmp_path: Path, project: Path, profile: str, options: Any
) -> AsyncIterator[tuple[Connected, EditorSide]]:
    side = EditorSide()
    async for connected in connect(tmp_path, project, profile, options):

        async def handle(params: Any) -> Any:
            return await side.handle(params)

        connected.client.feature("agent/editorQuery")(handle)
        yield connected, side


@pytest.fixture
async def answering(
    tmp_path: Path, project: Path, options: Any
) -> AsyncIterator[tuple[Connected, EditorSide]]:
    async for pair in editor_client(tmp_path, project, f"{PLUGIN}+editor:{ALL}", options):
        yield pair


def location(path: Path, line: int, character: int = 0) -> dict[str, Any]:
    pos = {"line": line, "character": character}
    return {"uri": uri(path), "range": {"start": pos, "end": pos}}


def offered(model: FakeModelServer) -> set[str]:
    return {t["function"]["name"] for t in model.requests[0].tools}


@pytest.mark.parametrize(
    ("profile", "expected"),
    [
        (f"{PLUGIN}+editor:{ALL}", EDITOR_TOOLS),
        (f"{PLUGIN}+editor:definition,references,codeLens", {"editor_definition", "editor_references"}),
        (PLUGIN, set()),
        ("neovim@v0.10.0", set()),
    ],
)
async def test_the_tools_are_offered_only_for_the_queries_the_client_announced(
    tmp_path: Path, project: Path, options: Any, model: FakeModelServer, profile: str, expected: set[str]
) -> None:
    model.script(Turn.text("ok"))
    async for connected, _ in editor_client(tmp_path, project, profile, options):
        await prompt(connected, await new_session(connected), "hi")
        assert offered(model) & EDITOR_TOOLS == expected
        assert "read" in offered(model)


async def test_definition_and_references_across_files_reach_the_model(
    answering: tuple[Connected, EditorSide], model: FakeModelServer, project: Path
) -> None:
    connected, side = answering
    lib, main = project / "lib.ts", project / "main.ts"
    answers = {
        "definition": [location(lib, 0, 16)],
        "references": [location(lib, 0, 16), location(main, 0, 9), location(main, 1, 16)],
    }
    side.answer = lambda params: answers[params["query"]]
    at = {"filePath": "main.ts", "line": 2, "symbol": "greet"}
    model.script(
        Turn.tool_call("editor_definition", at),
        Turn.tool_call("editor_references", at),
        Turn.text("Found it."),
    )
    await prompt(connected, await new_session(connected), "where is greet?")
    # Line 2 is `const s = '😀'; greet(s);`: the emoji is two UTF-16 units, so greet starts at 16.
    expected_at = {"uri": uri(main), "position": {"line": 1, "character": 16}}
    assert side.asked == [{"query": "definition", **expected_at}, {"query": "references", **expected_at}]
    assert "lib.ts:1: export function greet(name: string) {" in tool_results(model.requests[1].messages)
    references = tool_results(model.requests[2].messages)
    assert "main.ts:1: import { greet } from './lib';" in references
    assert "main.ts:2: const s = '😀'; greet(s);" in references


async def test_hover_symbols_and_diagnostics_reach_the_model(
    answering: tuple[Connected, EditorSide], model: FakeModelServer, project: Path
) -> None:
    connected, side = answering
    lib = project / "lib.ts"
    symbol = {"name": "greet", "kind": "function", "location": location(lib, 0, 16)}
    problem = {"range": location(lib, 1, 2)["range"], "severity": "warning", "message": "unused"}
    problem["source"] = "ts"
    answers = {
        "hover": {"contents": "function greet(name: string): string"},
        "documentSymbols": [symbol],
        "workspaceSymbols": [symbol],
        "diagnostics": [problem],
    }
    side.answer = lambda params: answers[params["query"]]
    model.script(
        Turn.tool_call("editor_hover", {"filePath": "lib.ts", "line": 1, "symbol": "greet"}),
        Turn.tool_call("editor_document_symbols", {"filePath": "lib.ts"}),
        Turn.tool_call("editor_workspace_symbols", {"query": "gre"}),
        Turn.tool_call("editor_diagnostics", {"filePath": "lib.ts"}),
        Turn.text("Done."),
    )
    await prompt(connected, await new_session(connected), "tell me about greet")
    asked = [{k: v for k, v in a.items() if k != "position"} for a in side.asked]
    assert asked == [
        {"query": "hover", "uri": uri(lib)},
        {"query": "documentSymbols", "uri": uri(lib)},
        {"query": "workspaceSymbols", "text": "gre"},
        {"query": "diagnostics", "uri": uri(lib)},
    ]
    seen = [tool_results(model.requests[i].messages) for i in range(1, 5)]
    assert "function greet(name: string): string" in seen[0]
    assert "lib.ts:1: function greet — export function greet(name: string) {" in seen[1]
    assert "lib.ts:1: function greet — export function greet(name: string) {" in seen[2]
    assert "lib.ts:2: warning: unused [ts]" in seen[3]


async def late(params: dict[str, Any]) -> Any:
    await params["released"].wait()  # the slow editor answers once the test is done with it
    return []


def fails(params: dict[str, Any]) -> Any:
    raise RuntimeError("no language server for typescript")


@pytest.mark.parametrize(
    ("answer", "error"),
    [
        (late, "the editor did not answer the definition query within 0.5 s"),
        (fails, "the editor could not answer the definition query: "),
        (lambda params: {"not": "a list"}, "the editor's answer to the definition query could not be read"),
        (
            lambda params: [{"uri": "x"}],
            "the editor's answer to the definition query could not be read: range",
        ),
    ],
    ids=["slow", "error", "not-a-list", "bad-location"],
)
async def test_a_slow_failing_or_garbled_editor_is_a_tool_error_and_the_turn_ends(
    answering: tuple[Connected, EditorSide], model: FakeModelServer, answer: Answer, error: str
) -> None:
    connected, side = answering
    side.answer = answer
    model.script(
        Turn.tool_call("editor_definition", {"filePath": "main.ts", "line": 2, "symbol": "greet"}),
        Turn.text("I will grep instead."),
    )
    result = await prompt(connected, await new_session(connected), "where is greet?")
    assert [p["text"] for p in result["parts"] if p["type"] == "text"] == ["I will grep instead."]
    side.released.set()  # an answer after the time-out changes nothing
    assert error in tool_results(model.requests[1].messages)


@pytest.mark.parametrize(
    ("given", "timeout", "warned"),
    [(None, 10.0, False), (2.5, 2.5, False), (0, 10.0, True), (61, 10.0, True), ("soon", 10.0, True)],
)
def test_the_editor_timeout_option_is_bounded_and_a_bad_one_is_reported(
    given: Any, timeout: float, warned: bool
) -> None:
    said: list[str] = []
    options = parse_options(
        {} if given is None else {"editorTimeout": given}, "initializationOptions", said.append
    )
    assert Connection(initial=options).editor_timeout == timeout
    assert bool(said) == warned, said
