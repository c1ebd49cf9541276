"""The ``list`` tool: a tree of a folder with generated and ignored files left out."""

from __future__ import annotations

import asyncio
import itertools
from pathlib import Path

from pydantic import Field

from core.errors import ToolError
from core.permission.request import PermissionAsk
from core.tools import paths
from core.tools.base import Tool, ToolParams, ToolResult
from core.tools.context import ToolContext
from core.tools.ignore import JUNK_NAMES, Entry, walk

MAX_ENTRIES = 100


class ListParams(ToolParams):
    path: str | None = Field(None, description="The folder to list (default: working directory)")
    ignore: list[str] | None = Field(None, description="Extra glob patterns of entries to leave out")


def collect(root: Path, top: Path, ignore: list[str], limit: int) -> tuple[list[Entry], bool]:
    """Up to ``limit`` entries, breadth first, and whether there were more."""
    entries = walk(root, top=top, hidden=True, skip_dirs=JUNK_NAMES, extra=ignore)
    taken = list(itertools.islice(entries, limit + 1))
    return taken[:limit], len(taken) > limit


def render(root: Path, entries: list[Entry]) -> str:
    """An indented tree: folders first, then files, by name; folders end with ``/``."""
    children: dict[Path, list[Entry]] = {}
    for entry in entries:
        children.setdefault(entry.path.parent, []).append(entry)
    lines = [f"{root}/"]

    def visit(folder: Path, depth: int) -> None:
        for entry in sorted(children.get(folder, []), key=lambda e: (not e.is_dir, e.path.name)):
            lines.append(f"{'  ' * depth}{entry.path.name}{'/' if entry.is_dir else ''}")
            if entry.is_dir:
                visit(entry.path, depth + 1)

    visit(root, 1)
    return "\n".join(lines)


class ListTool(Tool[ListParams]):
    id = "list"
    Params = ListParams
    read_only = True

    async def execute(self, params: ListParams, ctx: ToolContext) -> ToolResult:
        root = paths.resolve(ctx, params.path)
        if not root.exists():
            raise ToolError(paths.not_found_message(root))
        if not root.is_dir():
            raise ToolError(f"{root} is a file, not a folder. Use the read tool to see its content.")
        await paths.check_external(ctx, root, is_dir=True)
        rel = paths.permission_pattern(ctx, root)
        await ctx.ask(PermissionAsk("list", [rel], always=["*"], title=f"List {rel}"))
        entries, more = await asyncio.to_thread(
            collect, root, ctx.worktree.resolve(), params.ignore or [], MAX_ENTRIES
        )
        output = render(root, entries)
        if not entries:
            output += "\n(empty, or everything in it is ignored)"
        if more:
            output += (
                f"\n\n(Showing the first {MAX_ENTRIES} entries. "
                "List a subfolder, or use glob, to see the others.)"
            )
        return ToolResult(paths.display(ctx, root), output, {"count": len(entries), "truncated": more})
