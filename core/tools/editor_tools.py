"""The six editor tools; each asks one query of the editor's language servers (``core/tools/editor.py``)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from core.editor import EditorIntelligence
from core.tools import paths
from core.tools.base import ToolParams, ToolResult
from core.tools.context import ToolContext
from core.tools.editor import (
    EditorTool,
    FileParams,
    PositionParams,
    checked_path,
    file_lines,
    hover_text,
    position,
    render_diagnostics,
    render_locations,
    render_symbols,
)
from core.tools.refactor_tools import REFACTOR_TOOLS


class QueryParams(ToolParams):
    query: str = Field(min_length=1, description="The name, or part of the name, of the symbols to find")


class DefinitionTool(EditorTool[PositionParams]):
    id = "editor_definition"
    query = "definition"
    Params = PositionParams

    async def ask_editor(
        self, editor: EditorIntelligence, params: PositionParams, ctx: ToolContext
    ) -> ToolResult:
        at = await position(ctx, params)
        found = await editor.definition(at)
        title = f"Definition of {params.symbol}"
        if not found:
            return ToolResult(
                title, f"The editor knows no definition of {params.symbol!r} there.", {"count": 0}
            )
        return ToolResult(title, await render_locations(ctx, found), {"count": len(found)})


class ReferencesTool(EditorTool[PositionParams]):
    id = "editor_references"
    query = "references"
    Params = PositionParams

    async def ask_editor(
        self, editor: EditorIntelligence, params: PositionParams, ctx: ToolContext
    ) -> ToolResult:
        at = await position(ctx, params)
        found = await editor.references(at)
        title = f"References to {params.symbol}"
        if not found:
            return ToolResult(title, f"The editor knows no references to {params.symbol!r}.", {"count": 0})
        return ToolResult(title, await render_locations(ctx, found), {"count": len(found)})


class HoverTool(EditorTool[PositionParams]):
    id = "editor_hover"
    query = "hover"
    Params = PositionParams

    async def ask_editor(
        self, editor: EditorIntelligence, params: PositionParams, ctx: ToolContext
    ) -> ToolResult:
        at = await position(ctx, params)
        text = hover_text(await editor.hover(at))
        title = f"Type of {params.symbol}"
        return ToolResult(title, text or f"The editor has no hover information for {params.symbol!r}.", {})


class DocumentSymbolsTool(EditorTool[FileParams]):
    id = "editor_document_symbols"
    query = "documentSymbols"
    Params = FileParams

    async def ask_editor(
        self, editor: EditorIntelligence, params: FileParams, ctx: ToolContext
    ) -> ToolResult:
        path = await checked_path(ctx, params.filePath)
        await file_lines(ctx, path)  # a missing file is said as such, not as "no symbols"
        found = await editor.document_symbols(path)
        title = f"Symbols of {paths.display(ctx, path)}"
        if not found:
            return ToolResult(title, "The editor knows no symbols in this file.", {"count": 0})
        return ToolResult(title, await render_symbols(ctx, found), {"count": len(found)})


class WorkspaceSymbolsTool(EditorTool[QueryParams]):
    id = "editor_workspace_symbols"
    query = "workspaceSymbols"
    Params = QueryParams

    async def ask_editor(
        self, editor: EditorIntelligence, params: QueryParams, ctx: ToolContext
    ) -> ToolResult:
        found = await editor.workspace_symbols(params.query)
        title = f"Symbols matching {params.query}"
        if not found:
            return ToolResult(title, f"The editor knows no symbols matching {params.query!r}.", {"count": 0})
        return ToolResult(title, await render_symbols(ctx, found), {"count": len(found)})


class DiagnosticsTool(EditorTool[FileParams]):
    id = "editor_diagnostics"
    query = "diagnostics"
    Params = FileParams

    async def ask_editor(
        self, editor: EditorIntelligence, params: FileParams, ctx: ToolContext
    ) -> ToolResult:
        path = await checked_path(ctx, params.filePath)
        await file_lines(ctx, path)
        found = await editor.diagnostics(path)
        title = f"Problems in {paths.display(ctx, path)}"
        if not found:
            return ToolResult(title, "The editor reports no problems in this file.", {"count": 0})
        return ToolResult(title, render_diagnostics(ctx, found), {"count": len(found)})


EDITOR_TOOLS: tuple[type[EditorTool[Any]], ...] = (
    DefinitionTool,
    ReferencesTool,
    HoverTool,
    DocumentSymbolsTool,
    WorkspaceSymbolsTool,
    DiagnosticsTool,
    *REFACTOR_TOOLS,
)
