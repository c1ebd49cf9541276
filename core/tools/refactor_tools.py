"""Refactors by the editor's language servers: rename, code actions, organize imports, format.

The editor computes the edit (``core.editor``), the agent applies it (``core.tools.refactor``) and
reports what the editor's checkers say afterwards (``core.tools.diagnostics_delta``). Offered while
the connected editor answers the query (``EditorTool.query``), like the reading editor tools.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import Field

from core.editor import EditorActionEdit, EditorCodeAction, EditorFileEdit, EditorIntelligence
from core.errors import ToolError
from core.permission.request import PermissionAsk
from core.tools import diagnostics_delta, paths
from core.tools.base import ToolParams, ToolResult
from core.tools.context import ToolContext
from core.tools.diff import file_diff
from core.tools.editor import EditorTool, FileParams, PositionParams, checked_path, clip, file_lines, position
from core.tools.refactor import FileChange, apply_changes, file_changes

MAX_ACTIONS = 40
ORGANIZE_IMPORTS = "source.organizeImports"
# A name most languages accept: letters, digits, _ and $, not starting with a digit.
IDENTIFIER = re.compile(r"(?:[^\W\d]|\$)[\w$]*")


class RenameParams(PositionParams):
    newName: str = Field(min_length=1, description="The symbol's new name")


class ActionParams(ToolParams):
    filePath: str = Field(description="The file: absolute, or relative to the working directory")
    line: int = Field(ge=1, description="The 1-based line the actions are for (where the problem is)")
    endLine: int | None = Field(None, ge=1, description="The last line of the range (default: line)")
    apply: str | None = Field(
        None,
        description="To apply an action: its title exactly as listed, or a kind (quickfix, "
        "refactor.extract, source.organizeImports…) for the first preferred action of that kind. "
        "Leave out to list the actions",
    )


class FormatParams(FileParams):
    line: int | None = Field(
        None, ge=1, description="Format only from this 1-based line (default: the whole file)"
    )
    endLine: int | None = Field(None, ge=1, description="The last line to format (default: line)")


async def _land(
    ctx: ToolContext, title: str, label: str, edits: Sequence[EditorFileEdit]
) -> tuple[list[FileChange], diagnostics_delta.Delta | None]:
    """Apply the editor's edits, and the diagnostics delta over the changed files (None: no change)."""
    changes = await file_changes(ctx, edits)
    if not changes:
        return [], None
    files = [c.path for c in changes]
    before = await diagnostics_delta.read(ctx.editor, files)
    written = await apply_changes(ctx, title, label, changes)
    return written, await diagnostics_delta.after_edit(ctx, files, before)


def _summary(ctx: ToolContext, changes: Sequence[FileChange]) -> str:
    names = ", ".join(paths.display(ctx, c.path) for c in changes)
    return f"{len(changes)} file{'s' if len(changes) != 1 else ''} ({names})"


def _metadata(
    ctx: ToolContext, changes: Sequence[FileChange], delta: diagnostics_delta.Delta | None
) -> dict[str, Any]:
    meta: dict[str, Any] = {"files": [str(c.path) for c in changes]}
    if delta is not None:
        meta["diagnostics"] = diagnostics_delta.as_metadata(ctx, delta)
    return meta


class RenameTool(EditorTool[RenameParams]):
    id = "rename"
    query = "rename"
    fallback = "Find the uses with grep and change them with edit instead."
    read_only = False
    Params = RenameParams

    async def ask_editor(
        self, editor: EditorIntelligence, params: RenameParams, ctx: ToolContext
    ) -> ToolResult:
        new = params.newName.strip()
        if not IDENTIFIER.fullmatch(new):
            raise ToolError(
                f"{params.newName!r} is not a valid name: use letters, digits, _ or $, not starting with "
                "a digit. Nothing was renamed."
            )
        if new == params.symbol:
            raise ToolError(f"{params.symbol!r} already has that name; nothing to rename.")
        at = await position(ctx, params)
        edits = await editor.rename(at, new)
        title = f"Rename {params.symbol} to {new}"
        if not edits:
            raise ToolError(
                f"the editor's language servers rename nothing for {params.symbol!r} on line {params.line} "
                f"of {paths.display(ctx, at.path)}: no server that renames serves this file, or that is "
                "not a symbol one can rename. Nothing was changed."
            )
        changes, delta = await _land(ctx, title, f"rename {params.symbol} to {new}", edits)
        if not changes:
            return ToolResult(title, f"Renaming {params.symbol} to {new} changes no file.", {"files": []})
        count = sum(len(e.edits) for e in edits)
        output = f"Renamed {params.symbol} to {new}: {count} edits in {_summary(ctx, changes)}."
        return ToolResult(
            title,
            output + diagnostics_delta.render(ctx, delta) if delta else output,
            _metadata(ctx, changes, delta),
        )


def _pick(actions: list[EditorCodeAction], wanted: str) -> EditorCodeAction | None:
    """The action titled ``wanted``, else the first (preferred first) whose kind is ``wanted`` or under it."""
    for action in actions:
        if action.title == wanted:
            return action
    kinds = [a for a in actions if a.kind == wanted or a.kind.startswith(wanted + ".")]
    return next((a for a in kinds if a.preferred), kinds[0] if kinds else None)


def _listing(actions: list[EditorCodeAction]) -> str:
    out = []
    for action in actions[:MAX_ACTIONS]:
        kind = f" [{action.kind}]" if action.kind else ""
        star = " (preferred)" if action.preferred else ""
        fixes = f" — fixes: {clip('; '.join(action.diagnostics))}" if action.diagnostics else ""
        off = f" — unavailable: {action.disabled}" if action.disabled else ""
        out.append(f"- {action.title}{kind}{star}{fixes}{off}")
    if len(actions) > MAX_ACTIONS:
        out.append(f"… and {len(actions) - MAX_ACTIONS} more")
    return "\n".join(out)


async def apply_action(
    ctx: ToolContext, editor: EditorIntelligence, path: Path, action: EditorActionEdit
) -> ToolResult:
    """Land a resolved action's edit, then run its command if it has one: one permission for both
    (the command's changes cannot be shown before it runs; the editor saves them, so review has them)."""
    rel = paths.permission_pattern(ctx, path)
    changes = await file_changes(ctx, action.edits)
    watch = sorted({path, *(c.path for c in changes)})
    before = await diagnostics_delta.read(ctx.editor, watch)
    title = f"Apply the code action “{action.title}”"
    if action.command:
        title += f" and run its command “{action.command}” (what the command changes shows only once it ran)"
    if changes:
        changes = await apply_changes(ctx, title, action.title, changes)
    elif action.command:
        meta = {"filepath": str(path), "command": action.command}
        await ctx.ask(PermissionAsk("edit", [rel], always=[rel], title=title, metadata=meta))
    output = f"Applied “{action.title}”"
    output += f": changed {_summary(ctx, changes)}." if changes else " (its edit changes no text)."
    changed: list[Path] = []
    if action.command:
        changed = await editor.run_command(action.token)
        names = ", ".join(paths.display(ctx, p) for p in changed)
        what = f"{names} (saved; in the review)" if changed else "no file"
        output += f"\nIts command “{action.command}” ran in the editor and changed {what}."
    delta = await diagnostics_delta.after_edit(ctx, watch, before) if changes or changed else None
    meta_out = _metadata(ctx, changes, delta)
    meta_out["commandChanged"] = [str(p) for p in changed]
    if delta is not None:
        output += diagnostics_delta.render(ctx, delta)
    return ToolResult(f"{action.title} ({paths.display(ctx, path)})", output, meta_out)


class CodeActionsTool(EditorTool[ActionParams]):
    id = "code_actions"
    query = "codeActions"
    fallback = "Make the change with edit instead."
    read_only = False
    Params = ActionParams

    async def ask_editor(
        self, editor: EditorIntelligence, params: ActionParams, ctx: ToolContext
    ) -> ToolResult:
        path = await checked_path(ctx, params.filePath)
        count = len(await file_lines(ctx, path))
        last = params.endLine or params.line
        if last < params.line or last > max(count, 1):
            raise ToolError(
                f"lines {params.line}-{last} are not a range of {paths.display(ctx, path)} ({count} lines)."
            )
        lines = (params.line - 1, last - 1)
        actions = await editor.code_actions(path, lines)
        shown = paths.display(ctx, path)
        where = f"{shown}:{params.line}" + (f"-{last}" if last != params.line else "")
        if params.apply is None:
            if not actions:
                return ToolResult(
                    f"Code actions at {where}",
                    f"The editor's language servers offer no code actions at {where}.",
                    {"count": 0},
                )
            text = f"Code actions at {where} (apply one with apply=<title or kind>):\n{_listing(actions)}"
            return ToolResult(f"Code actions at {where}", text, {"count": len(actions)})
        chosen = _pick(actions, params.apply)
        if chosen is None:
            offered = f" Offered:\n{_listing(actions)}" if actions else " None is offered there."
            raise ToolError(f"no code action titled or of kind {params.apply!r} at {where}.{offered}")
        if chosen.disabled:
            raise ToolError(
                f"“{chosen.title}” cannot be applied now: {chosen.disabled}. Nothing was changed."
            )
        resolved = await editor.code_action(path, lines, chosen.title)
        if resolved is None:
            raise ToolError(
                f"the code action “{chosen.title}” is no longer offered at {where} (the file changed?). "
                "Nothing was changed; list the actions again."
            )
        return await apply_action(ctx, editor, path, resolved)


class OrganizeImportsTool(EditorTool[FileParams]):
    id = "organize_imports"
    query = "codeActions"
    fallback = "Make the change with edit instead."
    read_only = False
    Params = FileParams

    async def ask_editor(
        self, editor: EditorIntelligence, params: FileParams, ctx: ToolContext
    ) -> ToolResult:
        path = await checked_path(ctx, params.filePath)
        count = len(await file_lines(ctx, path))
        lines = (0, max(count - 1, 0))
        resolved = await editor.code_action(path, lines, "", (ORGANIZE_IMPORTS,))
        if resolved is None:
            raise ToolError(
                "no language server in the editor offers to organize the imports of "
                f"{paths.display(ctx, path)}."
            )
        return await apply_action(ctx, editor, path, resolved)


class FormatTool(EditorTool[FormatParams]):
    id = "format"
    query = "format"
    fallback = "Make the change with edit instead."
    read_only = False
    Params = FormatParams

    async def ask_editor(
        self, editor: EditorIntelligence, params: FormatParams, ctx: ToolContext
    ) -> ToolResult:
        path = await checked_path(ctx, params.filePath)
        count = len(await file_lines(ctx, path))
        shown = paths.display(ctx, path)
        lines: tuple[int, int] | None = None
        if params.line is not None:
            last = params.endLine or params.line
            if last < params.line or last > max(count, 1):
                raise ToolError(f"lines {params.line}-{last} are not a range of {shown} ({count} lines).")
            lines = (params.line - 1, last - 1)
        elif params.endLine is not None:
            raise ToolError("endLine needs line: give the first line of the range too.")
        edits = await editor.format(path, lines)
        what = shown if lines is None else f"{shown}:{lines[0] + 1}-{lines[1] + 1}"
        changes, delta = await _land(
            ctx, f"Format {what}", f"format {what}", [EditorFileEdit(path, tuple(edits))]
        )
        if not changes:
            return ToolResult(
                f"Format {what}",
                f"{what} is already formatted as the editor's formatter wants.",
                {"files": []},
            )
        diff = file_diff(changes[0].rel, changes[0].before, changes[0].after)
        output = f"Formatted {what} with the editor's formatter (+{diff.additions} -{diff.deletions} lines)."
        if delta is not None:
            output += diagnostics_delta.render(ctx, delta)
        return ToolResult(f"Format {what}", output, _metadata(ctx, changes, delta))


REFACTOR_TOOLS = (RenameTool, CodeActionsTool, OrganizeImportsTool, FormatTool)
