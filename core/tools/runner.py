"""Run one tool call: validate the model's arguments, execute, and truncate the output."""

from __future__ import annotations

import logging
from typing import Any

from pydantic import BaseModel, ValidationError

from core.errors import PermissionDeniedError, PermissionRejectedError, QuestionRejectedError, ToolError
from core.permission import rules
from core.tools import failures
from core.tools.base import Tool, ToolResult
from core.tools.context import ToolContext
from core.tools.text import printable, printable_data
from core.tools.truncation import truncate_output

log = logging.getLogger(__name__)


def validate_args(tool: Tool[Any], raw_args: dict[str, Any] | None) -> BaseModel:
    """The validated parameters, or a ``ToolError`` the model can use to fix its call."""
    try:
        return tool.Params.model_validate(raw_args if raw_args is not None else {})
    except ValidationError as exc:
        raise ToolError(
            failures.shorten(
                f"The {tool.id} tool was called with invalid arguments: {summarize(exc)}. "
                "Rewrite the input so it satisfies the expected schema."
            )
        ) from exc


def summarize(exc: ValidationError) -> str:
    """One clause per failing field, e.g. ``filePath: field required``."""
    parts = []
    for err in exc.errors(include_url=False):
        where = ".".join(str(loc) for loc in err["loc"]) or "input"
        msg = str(err["msg"])
        if err["type"] == "extra_forbidden":
            msg = "unknown parameter"
        parts.append(f"{where}: {msg[:1].lower()}{msg[1:]}")
    return "; ".join(parts)


def _can_delegate(ctx: ToolContext) -> bool:
    """Whether this call's agent may hand work to the explore subagent through the task tool."""
    if ctx.subtasks is None:
        return False
    return rules.evaluate("task", "explore", ctx.ruleset).action != "deny"


async def run_tool(tool: Tool[Any], raw_args: dict[str, Any] | None, ctx: ToolContext) -> ToolResult:
    """Validate ``raw_args``, execute ``tool`` and cut an oversized output (full text saved to a file).

    Output, title, metadata and error text come back as valid UTF-8 (see ``core.tools.text``).
    """
    params = validate_args(tool, raw_args)
    failures.check_nul(raw_args or {}, tool.nul_allowed)
    log.debug("tool %s call %s session %s: start", tool.id, ctx.call_id, ctx.session_id)
    try:
        result = await tool.execute(params, ctx)
    except (PermissionDeniedError, PermissionRejectedError, QuestionRejectedError):
        raise  # decisions of the user, carried as they are to the loop
    except ToolError as exc:
        message = failures.shorten(printable(str(exc)))
        if message != str(exc):
            raise ToolError(message) from exc
        raise
    except OSError as exc:
        # What the OS refused about the model's input (a name too long, a folder it may not read).
        raise failures.from_os_error(exc) from exc
    result.title = printable(result.title)
    result.output = printable(result.output)
    result.metadata = printable_data(result.metadata)
    if tool.truncate == "none":
        return result
    cut = await truncate_output(
        result.output,
        max_lines=ctx.max_lines,
        max_bytes=ctx.max_bytes,
        direction=tool.truncate,
        output_dir=ctx.output_dir,
        can_delegate=_can_delegate(ctx),
    )
    if cut.truncated:
        log.debug("tool %s call %s: output truncated to %s", tool.id, ctx.call_id, cut.output_path)
        result.output = cut.output
        result.metadata = {**result.metadata, "truncated": True, "outputPath": str(cut.output_path)}
    return result
