"""The ``glob`` tool: files whose path matches a pattern, newest first."""

from __future__ import annotations

import asyncio
from pathlib import Path

from pydantic import Field

from core.errors import ToolError
from core.permission.request import PermissionAsk
from core.tools import paths
from core.tools.base import Tool, ToolParams, ToolResult
from core.tools.context import ToolContext
from core.tools.ignore import glob_matcher, walk

MAX_FILES = 100


class GlobParams(ToolParams):
    pattern: str = Field(description='The glob pattern to match file paths against, e.g. "**/*.py"')
    path: str | None = Field(None, description="The folder to search in (default: working directory)")


def find_files(root: Path, pattern: str, top: Path) -> list[tuple[int, Path]]:
    """Every non-ignored file below ``root`` matching ``pattern``, with its mtime, newest first."""
    matches = glob_matcher(pattern)
    found: list[tuple[int, Path]] = []
    for entry in walk(root, top=top):
        if entry.is_dir or not matches(entry.path.relative_to(root).as_posix(), entry.path.name):
            continue
        try:
            mtime = entry.path.stat().st_mtime_ns
        except OSError:
            continue
        found.append((mtime, entry.path))
    found.sort(key=lambda item: (-item[0], str(item[1])))
    return found


class GlobTool(Tool[GlobParams]):
    id = "glob"
    Params = GlobParams
    read_only = True

    async def execute(self, params: GlobParams, ctx: ToolContext) -> ToolResult:
        if not params.pattern.strip():
            raise ToolError('pattern is empty: give a glob such as "**/*.py".')
        root = paths.resolve(ctx, params.path)
        if not root.is_dir():
            raise ToolError(f"{root} is not a folder; give a folder to search in as path.")
        await paths.check_external(ctx, root, is_dir=True)
        await ctx.ask(PermissionAsk("glob", [params.pattern], always=["*"], title=f"Find {params.pattern}"))
        found = await asyncio.to_thread(find_files, root, params.pattern, ctx.worktree.resolve())
        if not found:
            return ToolResult(params.pattern, "No files found.", {"count": 0, "truncated": False})
        shown = [paths.display(ctx, path) for _, path in found[:MAX_FILES]]
        output = "\n".join(shown)
        if len(found) > MAX_FILES:
            output += (
                f"\n\n(Showing {MAX_FILES} of {len(found)} files, newest first. "
                "Use a more specific pattern or path to see the others.)"
            )
        return ToolResult(params.pattern, output, {"count": len(found), "truncated": len(found) > MAX_FILES})
