"""The ``edit`` tool: replace a unique piece of a file, tolerating small whitespace differences."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from core.errors import ToolError
from core.permission.request import PermissionAsk, Proposal
from core.tools import paths
from core.tools.base import Tool, ToolParams, ToolResult
from core.tools.context import ToolContext
from core.tools.diagnostics import editor_errors
from core.tools.diff import file_diff
from core.tools.matching import replace
from core.tools.proposal import edited_note, settle

BOM = "\ufeff"


class EditParams(ToolParams):
    filePath: str = Field(description="The file to change: absolute, or relative to the working directory")
    oldString: str = Field(description="The exact text to replace")
    newString: str = Field(description="The text to replace it with (must differ from oldString)")
    replaceAll: bool = Field(False, description="Replace every occurrence of oldString (default false)")


def _is_crlf(text: str) -> bool:
    # Most lines ending in CRLF means the file is CRLF; a stray LF line should not flip it.
    return text.count("\r\n") * 2 > text.count("\n")


class EditTool(Tool[EditParams]):
    id = "edit"
    Params = EditParams
    nul_allowed = frozenset({"oldString", "newString"})

    async def execute(self, params: EditParams, ctx: ToolContext) -> ToolResult:
        if params.oldString == params.newString:
            raise ToolError("oldString and newString are identical, so the edit would change nothing.")
        path = paths.resolve(ctx, params.filePath)
        await paths.check_external(ctx, path)
        rel = paths.permission_pattern(ctx, path)
        st = await ctx.workspace.stat(path)
        if st.is_dir:
            raise ToolError(f"{path} is a directory; give the path of a file to edit.")
        if not st.exists:
            if params.oldString:
                raise ToolError(paths.not_found_message(path))
            return await self._save(ctx, path, rel, "", params.newString, count=1, strategy="create")
        raw = await ctx.workspace.read_bytes(path)
        try:
            before = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ToolError(f"Cannot edit {path}: it is not a UTF-8 text file.") from exc
        bom = before.startswith(BOM)
        body = before[1:] if bom else before
        crlf = _is_crlf(body)
        if crlf:
            body = body.replace("\r\n", "\n")
        old = params.oldString.replace("\r\n", "\n")
        new = params.newString.replace("\r\n", "\n")
        if not old:
            if body:
                raise ToolError(
                    f"oldString is empty but {rel} is not: give the text to replace, "
                    "or use the write tool to replace the whole file."
                )
            changed, count, strategy = new, 1, "fill-empty"
        else:
            result = replace(body, old, new, replace_all=params.replaceAll, label=rel)
            changed, count, strategy = result.content, result.count, result.strategy
        if crlf:
            changed = changed.replace("\n", "\r\n")
        after = (BOM if bom else "") + changed
        return await self._save(ctx, path, rel, before, after, count=count, strategy=strategy)

    async def _save(
        self, ctx: ToolContext, path: Path, rel: str, before: str, after: str, *, count: int, strategy: str
    ) -> ToolResult:
        diff = file_diff(rel, before, after)
        proposal = Proposal(after)
        await ctx.ask(
            PermissionAsk(
                "edit",
                [rel],
                always=[rel],
                title=f"Edit {rel}",
                metadata={"filepath": str(path), "diff": diff.diff, "after": after},
                proposal=proposal,
            )
        )
        now, final = await settle(ctx, path, rel, before, proposal.final)
        if (now, final) != (before, after):
            diff = file_diff(rel, now, final)
        edit = ctx.edit_context(f"agent: edit {rel}", proposal.approved)
        await ctx.workspace.write_bytes(path, final.encode("utf-8"), edit)
        shown = paths.display(ctx, path)
        if strategy == "create":
            output = f"Created {shown}."
        else:
            output = f"Edited {shown}: {count} {'replacement' if count == 1 else 'replacements'}."
        output += edited_note(rel, after, proposal.final)
        problems, errors = await editor_errors(ctx, path)
        return ToolResult(
            title=shown,
            output=output + problems,
            metadata={
                "diagnostics": errors,
                "filepath": str(path),
                "diff": diff.diff,
                "additions": diff.additions,
                "deletions": diff.deletions,
                "replacements": count,
                "strategy": strategy,
                "edited": proposal.final != after,
            },
        )
