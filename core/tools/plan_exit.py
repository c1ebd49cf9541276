"""``plan_exit``: the plan agent presents its plan file for the user's approval (``core.plan``).

Approve: the build agent carries the plan out in the same turn (``Handoff``). Revise: the user's
line comments and message come back as this call's result and the plan agent goes on. Reject: the
turn stops with the user's message, nothing else changes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from pydantic import Field

from core.errors import QuestionRejectedError, ToolError
from core.plan.review import PlanAnswer, PlanReviews
from core.tools.base import Tool, ToolParams, ToolResult
from core.tools.context import ToolContext
from core.workspace import Workspace

PLAN_DIR = Path(".agentls") / "plans"
MAX_PLAN_BYTES = 200_000


class Handoff(Protocol):
    """What an approval starts (``core.plan.handoff.BuildHandoff``)."""

    async def approve(self, session_id: str, path: str, text: str) -> str: ...


class PlanRejectedError(QuestionRejectedError):
    """The user rejected the plan: the turn stops with their message."""


class PlanExitParams(ToolParams):
    path: str = Field(
        min_length=1,
        description="The plan file you wrote, under .agentls/plans/ (e.g. .agentls/plans/auth.md)",
    )


class PlanExitTool(Tool[PlanExitParams]):
    id = "plan_exit"
    Params = PlanExitParams
    truncate = "none"

    def __init__(self, reviews: PlanReviews, handoff: Handoff) -> None:
        self._reviews = reviews
        self._handoff = handoff

    async def execute(self, params: PlanExitParams, ctx: ToolContext) -> ToolResult:
        relative, text = await read_plan(ctx.workspace, ctx.worktree, params.path)
        answer = await self._reviews.ask(
            ctx.session_id, ctx.message_id, ctx.call_id, relative, text, ctx.abort
        )
        if answer.reply == "approve":
            agent = await self._handoff.approve(ctx.session_id, relative, text)
            return ToolResult(
                title=f"Plan approved: {relative}",
                output=f"The user approved the plan. The {agent} agent carries it out next; stop here.",
                metadata={"reply": "approve", "path": relative, "agent": agent},
            )
        if answer.reply == "revise":
            return ToolResult(
                title=f"Plan revision asked: {relative}",
                output=revision_request(relative, text, answer),
                metadata={"reply": "revise", "path": relative, "comments": len(answer.comments)},
            )
        message = (answer.message or "").strip()
        said = f" and said: {message}" if message else ""
        raise PlanRejectedError(
            f"The user rejected the plan{said}. Nothing was changed. "
            "Stop and wait for the user's instructions."
        )


async def read_plan(workspace: Workspace, worktree: Path, path: str) -> tuple[str, str]:
    """The plan file's path relative to the project and its text as the editor holds it (a buffer
    the agent's write left unsaved); a ToolError the model can act on when it is outside the plan
    folder, missing, not a file, too large or not text."""
    target, relative = plan_target(worktree, path)
    stat = await workspace.stat(target)
    if not stat.exists or stat.is_dir:
        raise ToolError(
            f"The plan file {relative} does not exist: write the plan there first, then call plan_exit again."
        )
    data = await workspace.read_bytes(target)
    if len(data) > MAX_PLAN_BYTES:
        raise ToolError(f"The plan file {relative} is over {MAX_PLAN_BYTES // 1000} KB: make it shorter.")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ToolError(f"The plan file {relative} is not UTF-8 text: write it as Markdown.") from None
    if not text.strip():
        raise ToolError(f"The plan file {relative} is empty: write the plan into it first.")
    return relative, text


def plan_target(worktree: Path, path: str) -> tuple[Path, str]:
    """The plan file's absolute path (links resolved) and its path relative to the project; a
    ToolError when it is not inside the plan folder."""
    root = worktree.resolve()
    folder = root / PLAN_DIR
    target = (root / path).resolve()  # an absolute ``path`` stays itself
    if not target.is_relative_to(folder) or target == folder:
        raise ToolError(
            f"{path} is not under the plan folder {PLAN_DIR.as_posix()}/: write the plan to a file "
            f"there (e.g. {PLAN_DIR.as_posix()}/plan.md), then call plan_exit with its path."
        )
    return target, target.relative_to(root).as_posix()


def revision_request(path: str, text: str, answer: PlanAnswer) -> str:
    """The user's comments and message as the plan agent reads them: each comment under its line."""
    lines = text.splitlines()
    out = [f"The user asked you to revise the plan in {path}."]
    if answer.comments:
        out.append("Their comments, each under the line of the plan it is about:")
        for comment in sorted(answer.comments, key=lambda c: c.line):
            quoted = lines[comment.line] if comment.line < len(lines) else ""
            out += [f"- line {comment.line + 1}: {quoted.strip()}", f"  comment: {comment.text.strip()}"]
    if (answer.message or "").strip():
        out.append(f"Their message: {(answer.message or '').strip()}")
    out.append("Edit the plan file to address every point, then call plan_exit again to present it.")
    return "\n".join(out)
