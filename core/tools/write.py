"""The ``write`` tool: create or overwrite a file through the workspace."""

from __future__ import annotations

from pydantic import Field

from core.errors import ToolError
from core.permission.request import PermissionAsk, Proposal
from core.tools import paths
from core.tools.base import Tool, ToolParams, ToolResult
from core.tools.context import ToolContext
from core.tools.diagnostics import editor_errors
from core.tools.diff import file_diff
from core.tools.proposal import edited_note, settle


class WriteParams(ToolParams):
    filePath: str = Field(description="The file to write: absolute, or relative to the working directory")
    content: str = Field(description="The complete content to write to the file")


class WriteTool(Tool[WriteParams]):
    id = "write"
    Params = WriteParams
    nul_allowed = frozenset({"content"})

    async def execute(self, params: WriteParams, ctx: ToolContext) -> ToolResult:
        path = paths.resolve(ctx, params.filePath)
        await paths.check_external(ctx, path)
        rel = paths.permission_pattern(ctx, path)
        st = await ctx.workspace.stat(path)
        if st.is_dir:
            raise ToolError(f"{path} is a directory; give the path of a file to write.")
        before = ""
        if st.exists:
            before = (await ctx.workspace.read_bytes(path)).decode("utf-8", errors="replace")
        diff = file_diff(rel, before, params.content)
        proposal = Proposal(params.content)
        await ctx.ask(
            PermissionAsk(
                "edit",
                [rel],
                always=[rel],
                title=f"Write {rel}",
                metadata={"filepath": str(path), "diff": diff.diff, "after": params.content},
                proposal=proposal,
            )
        )
        now, content = await settle(ctx, path, rel, before, proposal.final)
        if (now, content) != (before, params.content):
            diff = file_diff(rel, now, content)
        await ctx.workspace.write_bytes(
            path, content.encode("utf-8"), ctx.edit_context(f"agent: write {rel}", proposal.approved)
        )
        shown = paths.display(ctx, path)
        verb = "Overwrote" if st.exists else "Created"
        lines = content.count("\n") + (0 if content.endswith("\n") or not content else 1)
        note = edited_note(rel, params.content, proposal.final)
        problems, errors = await editor_errors(ctx, path)
        return ToolResult(
            title=shown,
            output=f"{verb} {shown} ({lines} lines).{note}{problems}",
            metadata={
                "diagnostics": errors,
                "filepath": str(path),
                "exists": st.exists,
                "diff": diff.diff,
                "additions": diff.additions,
                "deletions": diff.deletions,
                "edited": proposal.final != params.content,
            },
        )
