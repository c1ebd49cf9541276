"""After an edit: the editor's own checkers' errors for the file, appended for the model to fix."""

from __future__ import annotations

from pathlib import Path

from core.tools.context import ToolContext

MAX_SHOWN = 20


async def editor_errors(ctx: ToolContext, path: Path) -> tuple[str, list[str]]:
    """Text to append to the tool's output (empty when the file is clean) and the raw errors."""
    errors = await ctx.workspace.wait_diagnostics(path)
    if not errors:
        return "", []
    shown = "\n".join(errors[:MAX_SHOWN])
    more = f"\n… and {len(errors) - MAX_SHOWN} more" if len(errors) > MAX_SHOWN else ""
    intro = "The editor reports errors in this file after the change; fix them if they are yours:"
    text = f"\n\n{intro}\n{shown}{more}"
    return text, errors
