"""The ``grep`` tool: regex search over the project, ripgrep or a Python equivalent."""

from __future__ import annotations

from pydantic import Field

from core.errors import ToolError
from core.permission.request import PermissionAsk
from core.tools import paths
from core.tools.base import Tool, ToolParams, ToolResult
from core.tools.context import ToolContext
from core.tools.search import search

MAX_MATCHES = 100
MAX_LINE_CHARS = 2000


class GrepParams(ToolParams):
    pattern: str = Field(description="The regular expression to search for in file contents")
    path: str | None = Field(None, description="The folder or file to search (default: working directory)")
    include: str | None = Field(None, description='Only search files matching this glob, e.g. "*.{ts,tsx}"')


class GrepTool(Tool[GrepParams]):
    id = "grep"
    Params = GrepParams
    read_only = True

    def __init__(self, use_ripgrep: bool | None = None) -> None:
        # None: ripgrep when it is on PATH. False forces the Python search (tests, odd platforms).
        self.use_ripgrep = use_ripgrep

    async def execute(self, params: GrepParams, ctx: ToolContext) -> ToolResult:
        if not params.pattern:
            raise ToolError("pattern is empty: give a regular expression to search for.")
        root = paths.resolve(ctx, params.path)
        if not root.exists():
            raise ToolError(paths.not_found_message(root))
        await paths.check_external(ctx, root, is_dir=root.is_dir())
        await ctx.ask(PermissionAsk("grep", [params.pattern], always=["*"], title=f"Search {params.pattern}"))
        hits, capped = await search(
            params.pattern,
            root,
            include=params.include,
            top=ctx.worktree.resolve(),
            use_ripgrep=self.use_ripgrep,
        )
        total = sum(len(h.lines) for h in hits)
        title = params.pattern
        if total == 0:
            return ToolResult(title, "No matches found.", {"matches": 0, "truncated": False})
        out: list[str] = []
        shown = 0
        for hit in hits:
            if shown >= MAX_MATCHES:
                break
            if out:
                out.append("")
            out.append(f"{paths.display(ctx, hit.path.resolve())}:")
            for number, text in hit.lines[: MAX_MATCHES - shown]:
                if len(text) > MAX_LINE_CHARS:
                    text = text[:MAX_LINE_CHARS] + "..."
                out.append(f"  Line {number}: {text}")
                shown += 1
        more = "+" if capped else ""
        header = f"Found {total}{more} matches"
        if shown < total or capped:
            header += f" (showing the first {shown})"
            out += ["", "(Not all matches are shown. Narrow the pattern, the path or the include glob.)"]
        return ToolResult(
            title, header + "\n" + "\n".join(out), {"matches": total, "truncated": shown < total or capped}
        )
