"""Full outputs of truncated tool calls: unique files, removed after a week, and the hint the model gets."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import ClassVar

from pydantic import Field

from core.permission.rules import Rule
from core.tools.base import Tool, ToolParams, ToolResult
from core.tools.context import SubtaskResult, ToolContext
from core.tools.runner import run_tool
from core.tools.truncation import KEEP_DAYS, remove_old_outputs
from tests.unit.tools.harness import text_of


class ManyParams(ToolParams):
    text: str = Field(description="what to repeat")


class Many(Tool[ManyParams]):
    id: ClassVar[str] = "many"
    Params = ManyParams

    @property
    def description(self) -> str:
        return "Repeat a line 50 times."

    async def execute(self, params: ManyParams, ctx: ToolContext) -> ToolResult:
        return ToolResult(params.text, "\n".join([params.text] * 50))


def saved_path(result: ToolResult) -> Path:
    return Path(result.metadata["outputPath"])


async def test_a_reused_provider_call_id_never_overwrites_an_earlier_output(ctx: ToolContext) -> None:
    ctx.max_lines = 10
    ctx.call_id = "call_0"  # providers number calls per response: the next response reuses the id
    first = await run_tool(Many(), {"text": "first"}, ctx)
    second = await run_tool(Many(), {"text": "second"}, ctx)
    assert saved_path(first) != saved_path(second)
    assert text_of(saved_path(first)).startswith("first") and text_of(saved_path(second)).startswith("second")
    assert saved_path(first).parent == ctx.output_dir


def test_outputs_older_than_a_week_are_removed(tmp_path: Path) -> None:
    assert KEEP_DAYS == 7
    folder = tmp_path / "tool-output"
    folder.mkdir()
    old, fresh = folder / "tool_old.txt", folder / "tool_fresh.txt"
    old.write_text("old")
    fresh.write_text("fresh")
    week_ago = time.time() - 7 * 86_400 - 60
    os.utime(old, (week_ago, week_ago))
    assert remove_old_outputs(folder) == 1
    assert not old.exists() and fresh.exists()
    assert remove_old_outputs(tmp_path / "missing") == 0  # nothing saved yet: nothing to do


async def test_saving_an_output_sweeps_the_old_ones(ctx: ToolContext) -> None:
    ctx.output_dir.mkdir(parents=True)
    stale = ctx.output_dir / "tool_stale.txt"
    stale.write_text("stale")
    long_ago = time.time() - 30 * 86_400
    os.utime(stale, (long_ago, long_ago))
    ctx.max_lines = 10
    await run_tool(Many(), {"text": "x"}, ctx)
    assert not stale.exists()


class UnusedSubtasks:
    """A session that has the task tool; these tests never run a subagent."""

    def describe_subagents(self) -> list[tuple[str, str]]:
        return [("explore", "reads the code")]

    async def run_subtask(
        self, ctx: ToolContext, agent: str, prompt: str, description: str, task_id: str | None
    ) -> SubtaskResult:
        raise AssertionError("no subagent runs here")


SUBTASKS = UnusedSubtasks()


async def test_the_hint_suggests_the_explore_agent_when_the_task_tool_is_there(ctx: ToolContext) -> None:
    ctx.max_lines = 10
    ctx.subtasks, ctx.ruleset = SUBTASKS, [Rule("*", "*", "allow")]
    with_task = (await run_tool(Many(), {"text": "x"}, ctx)).output
    assert "task tool" in with_task and "explore" in with_task
    ctx.subtasks, ctx.ruleset = SUBTASKS, [Rule("*", "*", "allow"), Rule("task", "*", "deny")]
    without = (await run_tool(Many(), {"text": "x"}, ctx)).output
    assert "explore" not in without and "grep" in without and "offset" in without
    ctx.subtasks, ctx.ruleset = None, []
    assert "explore" not in (await run_tool(Many(), {"text": "x"}, ctx)).output
