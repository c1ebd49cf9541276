"""The editor tools against a fake ``EditorIntelligence``: positions, output, bounds, permissions, errors."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from core.editor import (
    EDITOR_QUERIES,
    EditorDiagnostic,
    EditorLocation,
    EditorQuery,
    EditorSymbol,
)
from core.errors import ToolError
from core.tools.context import ToolContext
from core.tools.editor import MAX_RESULTS, PositionParams
from core.tools.editor_tools import (
    DefinitionTool,
    DiagnosticsTool,
    DocumentSymbolsTool,
    FileParams,
    HoverTool,
    QueryParams,
    ReferencesTool,
    WorkspaceSymbolsTool,
)
from tests.unit.tools.harness import Recorder, allow_all


@dataclass
class FakeEditor:
    answers: dict[str, Any] = field(default_factory=dict)
    queries: frozenset[EditorQuery] = frozenset(EDITOR_QUERIES)
    asked: list[tuple[str, Any]] = field(default_factory=list)

    def supported(self) -> frozenset[EditorQuery]:
        return self.queries

    def _answer(self, kind: str, arg: Any) -> Any:
        self.asked.append((kind, arg))
        value = self.answers.get(kind)
        if isinstance(value, Exception):
            raise value
        return value

    async def definition(self, at: EditorLocation) -> list[EditorLocation]:
        return list(self._answer("definition", at) or [])

    async def references(self, at: EditorLocation) -> list[EditorLocation]:
        return list(self._answer("references", at) or [])

    async def hover(self, at: EditorLocation) -> str:
        return str(self._answer("hover", at) or "")

    async def document_symbols(self, path: Path) -> list[EditorSymbol]:
        return list(self._answer("documentSymbols", path) or [])

    async def workspace_symbols(self, query: str) -> list[EditorSymbol]:
        return list(self._answer("workspaceSymbols", query) or [])

    async def diagnostics(self, path: Path) -> list[EditorDiagnostic]:
        return list(self._answer("diagnostics", path) or [])


@pytest.fixture
def sources(project: Path) -> Path:
    (project / "lib.ts").write_text("export function greet(name: string) {\n  return 'hi ' + name;\n}\n")
    (project / "main.ts").write_text("import { greet } from './lib';\nconst greeting = greet('x');\n")
    return project


def with_editor(ctx: ToolContext, editor: FakeEditor | None) -> ToolContext:
    ctx.editor = editor
    return ctx


async def test_definition_finds_the_column_and_names_file_line_and_text(
    ctx: ToolContext, sources: Path
) -> None:
    editor = FakeEditor({"definition": [EditorLocation(sources / "lib.ts", 0, 16)]})
    params = PositionParams(filePath="main.ts", line=2, symbol="greet")
    result = await DefinitionTool().execute(params, with_editor(ctx, editor))
    # "greeting" comes first on the line; the whole word "greet" is the one asked about.
    assert editor.asked == [("definition", EditorLocation(sources / "main.ts", 1, 17))]
    assert result.output == "lib.ts:1: export function greet(name: string) {"


async def test_references_are_sorted_deduplicated_and_bounded(ctx: ToolContext, sources: Path) -> None:
    many = [EditorLocation(sources / "main.ts", 1, 17)] * 3
    many += [EditorLocation(sources / "lib.ts", i, 0) for i in range(MAX_RESULTS + 5)]
    editor = FakeEditor({"references": many})
    params = PositionParams(filePath="lib.ts", line=1, symbol="greet")
    result = await ReferencesTool().execute(params, with_editor(ctx, editor))
    lines = result.output.splitlines()
    assert lines[0] == "lib.ts:1: export function greet(name: string) {"
    assert len(lines) == MAX_RESULTS + 1
    assert lines[-1] == "… and 6 more (not shown)"
    assert result.metadata == {"count": len(many)}


async def test_results_outside_the_project_name_the_file_but_not_its_text(
    ctx: ToolContext, sources: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.d.ts"
    outside.write_text("declare secret: string;\n")
    editor = FakeEditor({"definition": [EditorLocation(outside, 0, 0)]})
    params = PositionParams(filePath="main.ts", line=2, symbol="greet")
    result = await DefinitionTool().execute(params, with_editor(ctx, editor))
    assert "secret" not in result.output
    assert result.output == f"{outside}:1: (outside the project: read the file to see it)"


@pytest.mark.parametrize(
    ("line", "symbol", "message"),
    [
        (2, "nope", "'nope' is not on line 2 of main.ts; that line reads: \"const greeting = greet('x');\""),
        (9, "greet", "line 9 is past the end of main.ts (2 lines)."),
    ],
)
async def test_a_wrong_position_is_a_clear_error_and_nothing_is_asked(
    ctx: ToolContext, sources: Path, line: int, symbol: str, message: str
) -> None:
    editor = FakeEditor()
    with pytest.raises(ToolError) as err:
        await HoverTool().execute(
            PositionParams(filePath="main.ts", line=line, symbol=symbol), with_editor(ctx, editor)
        )
    assert str(err.value).startswith(message)
    assert editor.asked == []


async def test_a_missing_file_is_said_as_such(ctx: ToolContext, sources: Path) -> None:
    editor = FakeEditor()
    with pytest.raises(ToolError, match="File not found"):
        await DocumentSymbolsTool().execute(FileParams(filePath="gone.ts"), with_editor(ctx, editor))
    assert editor.asked == []


@pytest.mark.parametrize("editor", [None, FakeEditor(queries=frozenset({"hover"}))])
async def test_without_an_editor_that_answers_the_tool_says_so(
    ctx: ToolContext, sources: Path, editor: FakeEditor | None
) -> None:
    params = PositionParams(filePath="main.ts", line=2, symbol="greet")
    with pytest.raises(ToolError, match="does not answer definition queries now"):
        await DefinitionTool().execute(params, with_editor(ctx, editor))


async def test_the_editors_failure_reaches_the_model(ctx: ToolContext, sources: Path) -> None:
    editor = FakeEditor({"references": ToolError("the editor did not answer within 10 s")})
    params = PositionParams(filePath="main.ts", line=2, symbol="greet")
    with pytest.raises(ToolError, match="did not answer within 10 s"):
        await ReferencesTool().execute(params, with_editor(ctx, editor))


async def test_hover_is_cut_to_its_bound(ctx: ToolContext, sources: Path) -> None:
    editor = FakeEditor({"hover": "x" * 10_000})
    params = PositionParams(filePath="lib.ts", line=1, symbol="greet")
    result = await HoverTool().execute(params, with_editor(ctx, editor))
    assert len(result.output) < 4100
    assert result.output.endswith("(6000 more characters cut)")


async def test_symbols_and_diagnostics_render_kind_and_severity(ctx: ToolContext, sources: Path) -> None:
    lib = sources / "lib.ts"
    symbol = EditorSymbol(name="greet", kind="function", location=EditorLocation(lib, 0, 0), container="lib")
    problems = [
        EditorDiagnostic(
            location=EditorLocation(lib, 1, 2), severity="warning", message="unused", source="ts"
        ),
        EditorDiagnostic(location=EditorLocation(lib, 2, 0), severity="error", message="bad"),
    ]
    editor = FakeEditor({"documentSymbols": [symbol], "workspaceSymbols": [symbol], "diagnostics": problems})
    ctx = with_editor(ctx, editor)
    doc = await DocumentSymbolsTool().execute(FileParams(filePath="lib.ts"), ctx)
    assert doc.output == "lib.ts:1: function greet (in lib) — export function greet(name: string) {"
    found = await WorkspaceSymbolsTool().execute(QueryParams(query="gre"), ctx)
    assert found.output == doc.output
    diags = await DiagnosticsTool().execute(FileParams(filePath="lib.ts"), ctx)
    assert diags.output == "lib.ts:3: error: bad\nlib.ts:2: warning: unused [ts]"


async def test_inside_the_project_it_asks_read_outside_it_asks_external_directory_too(
    project: Path, tmp_path: Path, sources: Path
) -> None:
    outside = tmp_path / "elsewhere.ts"
    outside.write_text("let greet = 1;\n")
    cases = [("main.ts", ["read"]), (str(outside), ["external_directory", "read"])]
    for file_path, kinds in cases:
        recorder = Recorder()
        ctx = allow_all(project, tmp_path / "data", recorder, editor=FakeEditor())
        await HoverTool().execute(PositionParams(filePath=file_path, line=1, symbol="greet"), ctx)
        assert recorder.kinds() == kinds, file_path
