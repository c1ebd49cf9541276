"""The agent asks VS Code's language servers: a real VS Code (code-server + Chromium) with its built-in
TypeScript server, the extension, the real ``agentls serve`` and the scripted fake model. The model calls
``editor_definition``, ``editor_references`` and ``editor_diagnostics`` for a function used across two
files; the extension answers them through ``vscode.execute*Provider`` / ``getDiagnostics``, and the
requests the model received hold the answers. Screenshots go to ``tests/vscode/screenshots/editor``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from demo.config import fake_model_config
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.vscode.scenario import Driven, drive

LIB = 'export function greet(name: string): string {\n  return "hello " + name;\n}\n'
MAIN = (
    'import { greet } from "./lib";\nexport const message = greet("world");\n'
    + 'export const wrong: number = "x";\n'
)
TSCONFIG = {"compilerOptions": {"strict": True, "module": "commonjs"}, "include": ["*.ts"]}
ANSWER = "greet is defined in lib.ts and used in main.ts."


@dataclass
class Run(Driven):
    model: FakeModelServer

    def tool_result(self, step: int) -> str:
        """The tool results the model read in its request number ``step`` (0: the prompt's)."""
        messages = self.model.requests[step].messages
        return "\n".join(str(m.get("content")) for m in messages if m.get("role") == "tool")


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    tmp = tmp_path_factory.mktemp("vscode-editor")
    folder = tmp / "project"
    folder.mkdir()
    (folder / "lib.ts").write_text(LIB)
    (folder / "main.ts").write_text(MAIN)
    (folder / "tsconfig.json").write_text(json.dumps(TSCONFIG))
    at_use = {"filePath": "main.ts", "line": 2, "symbol": "greet"}
    with FakeModelServer.threaded() as model, FakeModelServer.threaded() as titles:
        model.script(
            Turn.tool_call("editor_definition", at_use),
            Turn.tool_call("editor_references", at_use),
            Turn.tool_call("editor_diagnostics", {"filePath": "main.ts"}),
            Turn.text(ANSWER),
        )
        titles.script(*[Turn.text("Where greet is") for _ in range(3)])
        driven = drive("e2e_editor.mjs", "editor", tmp, folder, fake_model_config(model, titles))
        yield Run(driven.result, driven.output, model)


def test_the_model_is_offered_the_editor_tools(run: Run) -> None:
    run.phase("ask")
    offered = {t["function"]["name"] for t in run.model.requests[0].tools}
    expected = {"definition", "references", "hover", "document_symbols", "workspace_symbols", "diagnostics"}
    assert {f"editor_{name}" for name in expected} <= offered, offered


def test_typescripts_definition_across_files_reaches_the_model(run: Run) -> None:
    run.phase("ask")
    assert "lib.ts:1: export function greet(name: string): string {" in run.tool_result(1), run.tool_result(1)


def test_typescripts_references_across_files_reach_the_model(run: Run) -> None:
    run.phase("ask")
    found = run.tool_result(2)
    assert "lib.ts:1: export function greet(name: string): string {" in found, found
    assert 'main.ts:1: import { greet } from "./lib";' in found, found
    assert 'main.ts:2: export const message = greet("world");' in found, found


def test_typescripts_diagnostics_reach_the_model(run: Run) -> None:
    run.phase("ask")
    problems = run.tool_result(3)
    assert "main.ts:3: error: Type 'string' is not assignable to type 'number'. [ts]" in problems, problems


def test_the_answer_and_the_tool_cards_are_shown(run: Run) -> None:
    r = run.phase("ask")
    assert len(r["cards"]) == 3, r["cards"]
