"""Tools that ask the editor's language servers: definition, references, hover, symbols, diagnostics.

They exist only where the host passed an ``EditorIntelligence`` and are offered only while the
connected editor says it answers their query (``EditorTool.query``). These six read, never write
(the refactoring tools built on them, ``core/tools/refactor_tools.py``, write through the agent's
own edit path): a file inside the project is asked about like ``read`` asks (the built-in rules allow it), one
outside asks ``external_directory`` and ``read`` first. Results name the file, the 1-based line
and that line's text — the text only for files inside the project (one outside is named, so the
model can ``read`` it, which asks) — at most ``MAX_RESULTS`` of them.
"""

from __future__ import annotations

import re
from abc import abstractmethod
from pathlib import Path
from typing import ClassVar, TypeVar

from pydantic import Field

from core.editor import EditorDiagnostic, EditorIntelligence, EditorLocation, EditorQuery, EditorSymbol
from core.errors import ToolError
from core.permission.request import PermissionAsk
from core.tools import paths
from core.tools.base import Tool, ToolParams, ToolResult, load_description
from core.tools.context import ToolContext
from core.tools.read import split_lines

MAX_RESULTS = 50
MAX_LINE_TEXT = 200
MAX_HOVER_CHARS = 4000


class FileParams(ToolParams):
    filePath: str = Field(description="The file: absolute, or relative to the working directory")


class PositionParams(ToolParams):
    filePath: str = Field(description="The file: absolute, or relative to the working directory")
    line: int = Field(ge=1, description="The 1-based line number the symbol is on")
    symbol: str = Field(min_length=1, description="The symbol's name exactly as it is written on that line")


P = TypeVar("P", bound=ToolParams)


class EditorTool(Tool[P]):
    """A read-only tool answered by the editor's language servers."""

    query: ClassVar[EditorQuery]
    fallback: ClassVar[str] = "Use grep and read instead."
    read_only = True
    truncate = "none"  # bounded here: MAX_RESULTS entries of at most MAX_LINE_TEXT characters

    @property
    def description(self) -> str:
        return load_description(f"core.tools.{self.id}")

    async def execute(self, params: P, ctx: ToolContext) -> ToolResult:
        editor = ctx.editor
        if editor is None or self.query not in editor.supported():
            raise ToolError(
                f"{self.id} is not available: the connected editor does not answer {self.query} "
                f"queries now. {self.fallback}"
            )
        return await self.ask_editor(editor, params, ctx)

    @abstractmethod
    async def ask_editor(self, editor: EditorIntelligence, params: P, ctx: ToolContext) -> ToolResult:
        """Ask the editor and render its answer for the model."""


async def checked_path(ctx: ToolContext, raw: str) -> Path:
    """The resolved path, after the permissions ``read`` asks for it (outside the project: more)."""
    path = paths.resolve(ctx, raw)
    await paths.check_external(ctx, path)
    rel = paths.permission_pattern(ctx, path)
    await ctx.ask(PermissionAsk("read", [rel], always=[rel], title=f"Read {rel}"))
    return path


async def file_lines(ctx: ToolContext, path: Path) -> list[str]:
    """The file's lines as the editor holds them; a clear error when it is missing or not text."""
    try:
        return split_lines(await ctx.workspace.read_text(path))
    except FileNotFoundError as exc:
        raise ToolError(paths.not_found_message(path)) from exc
    except IsADirectoryError as exc:
        raise ToolError(f"{path} is a directory, not a file.") from exc
    except UnicodeDecodeError as exc:
        raise ToolError(f"{path} is not a text file.") from exc


async def position(ctx: ToolContext, params: PositionParams) -> EditorLocation:
    """Where ``params.symbol`` is written on ``params.line`` (a whole-word match first)."""
    path = await checked_path(ctx, params.filePath)
    lines = await file_lines(ctx, path)
    if params.line > len(lines):
        raise ToolError(
            f"line {params.line} is past the end of {paths.display(ctx, path)} ({len(lines)} lines)."
        )
    text = lines[params.line - 1]
    word = re.search(rf"(?<![\w$]){re.escape(params.symbol)}(?![\w$])", text)
    column = word.start() if word else text.find(params.symbol)
    if column < 0:
        shown = clip(text.strip())
        raise ToolError(
            f"{params.symbol!r} is not on line {params.line} of {paths.display(ctx, path)}; that line reads: "
            f"{shown!r}. Give the line where the symbol is written."
        )
    return EditorLocation(path=path, line=params.line - 1, column=column)


def clip(text: str) -> str:
    return text if len(text) <= MAX_LINE_TEXT else text[:MAX_LINE_TEXT] + "…"


class LineTexts:
    """The text of result lines, read once per file, for files inside the project only."""

    def __init__(self, ctx: ToolContext) -> None:
        self._ctx = ctx
        self._files: dict[Path, list[str] | None] = {}

    async def text(self, location: EditorLocation) -> str | None:
        path = location.path
        if not paths.is_within(path, self._ctx.worktree.resolve()):
            return None
        if path not in self._files:
            try:
                self._files[path] = split_lines(await self._ctx.workspace.read_text(path))
            except (OSError, UnicodeDecodeError):
                self._files[path] = None
        lines = self._files[path]
        if lines is None or not 0 <= location.line < len(lines):
            return None
        return clip(lines[location.line].strip())


async def render_locations(ctx: ToolContext, locations: list[EditorLocation]) -> str:
    """``path:line: text`` per location (sorted, duplicates dropped), at most ``MAX_RESULTS``."""
    unique = sorted(set(locations), key=lambda loc: (str(loc.path), loc.line, loc.column))
    texts = LineTexts(ctx)
    out = []
    for loc in unique[:MAX_RESULTS]:
        out.append(await _one(ctx, texts, loc, ""))
    return "\n".join(out) + _more(len(unique))


async def render_symbols(ctx: ToolContext, symbols: list[EditorSymbol]) -> str:
    """``path:line: kind name (in container)`` per symbol, at most ``MAX_RESULTS``."""
    texts = LineTexts(ctx)
    out = []
    for sym in symbols[:MAX_RESULTS]:
        inside = f" (in {sym.container})" if sym.container else ""
        out.append(await _one(ctx, texts, sym.location, f"{sym.kind} {sym.name}{inside}"))
    return "\n".join(out) + _more(len(symbols))


def render_diagnostics(ctx: ToolContext, problems: list[EditorDiagnostic]) -> str:
    """``path:line: severity: message [source]`` per problem, errors first, at most ``MAX_RESULTS``."""
    order = {"error": 0, "warning": 1, "information": 2, "hint": 3}
    ranked = sorted(problems, key=lambda d: (order.get(d.severity, 4), d.location.line))
    out = []
    for problem in ranked[:MAX_RESULTS]:
        source = f" [{problem.source}]" if problem.source else ""
        where = f"{paths.display(ctx, problem.location.path)}:{problem.location.line + 1}"
        out.append(f"{where}: {problem.severity}: {clip(problem.message)}{source}")
    return "\n".join(out) + _more(len(problems))


async def _one(ctx: ToolContext, texts: LineTexts, loc: EditorLocation, label: str) -> str:
    where = f"{paths.display(ctx, loc.path)}:{loc.line + 1}"
    text = await texts.text(loc)
    shown = text if text is not None else "(outside the project: read the file to see it)"
    return f"{where}: {label} — {shown}" if label else f"{where}: {shown}"


def _more(total: int) -> str:
    return f"\n… and {total - MAX_RESULTS} more (not shown)" if total > MAX_RESULTS else ""


def hover_text(text: str) -> str:
    """The hover text, cut to ``MAX_HOVER_CHARS``."""
    text = text.strip()
    if len(text) > MAX_HOVER_CHARS:
        return text[:MAX_HOVER_CHARS] + f"\n… ({len(text) - MAX_HOVER_CHARS} more characters cut)"
    return text
