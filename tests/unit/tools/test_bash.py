"""The bash tool against real processes: output, exit codes, process-group kills, abort, truncation."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path
from typing import Any

import pytest

from core.errors import ToolError
from core.tools.bash import BashTool
from core.tools.context import ToolContext
from core.tools.runner import run_tool
from tests.unit.tools.harness import Recorder, text_of


def gone(pid: int) -> bool:
    """A process that no longer exists or is only a zombie waiting for a (non-reaping) parent."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return True
    state = next(line for line in status.splitlines() if line.startswith("State:"))
    return "Z" in state.split()[1]


def reap(pid: int) -> None:
    if not gone(pid):
        os.kill(pid, signal.SIGKILL)


async def bash(ctx: ToolContext, command: str, **kw: Any) -> Any:
    return await run_tool(BashTool(), {"command": command, **kw}, ctx)


async def test_output_is_merged_and_the_exit_code_reported(ctx: ToolContext, recorder: Recorder) -> None:
    result = await bash(ctx, "echo out; echo err >&2; echo again; exit 3", description="Print things")
    assert result.output == "out\nerr\nagain\n\nExit code: 3"
    assert result.metadata["exit"] == 3 and result.metadata["description"] == "Print things"
    assert result.title == "Print things"
    assert recorder.updates, "live output was never reported"
    assert recorder.updates[-1][1]["output"] == "out\nerr\nagain\n"


async def test_success_and_no_output(ctx: ToolContext) -> None:
    result = await bash(ctx, "true")
    assert result.output == "(no output)" and result.metadata["exit"] == 0


async def test_workdir_relative_to_the_working_directory(ctx: ToolContext, project: Path) -> None:
    (project / "sub").mkdir()
    result = await bash(ctx, "pwd", workdir="sub")
    assert result.output.strip() == str(project / "sub")


async def test_missing_workdir_is_an_error(ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="does not exist"):
        await bash(ctx, "pwd", workdir="nope")


async def test_timeout_above_the_maximum_is_a_validation_error(ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="timeout: input should be less than or equal to 600000"):
        await bash(ctx, "true", timeout=600_001)


async def test_timeout_kills_the_whole_process_group(ctx: ToolContext, project: Path) -> None:
    pidfile = project / "grandchild.pid"
    # bash -> sh -> sleep: the sleep is a grandchild, and it ignores SIGTERM so SIGKILL must follow.
    command = f"sh -c 'trap \"\" TERM; sleep 300 & echo $! > {pidfile}; wait'"
    result = await bash(ctx, command, timeout=1000)
    pid = int(text_of(pidfile))
    try:
        assert result.metadata["timedOut"] is True
        assert "still running after 1000 ms" in result.output
        assert gone(pid), "the grandchild survived the timeout"
    finally:
        reap(pid)


async def test_abort_stops_the_command_within_a_second(ctx: ToolContext) -> None:
    started = asyncio.Event()

    def update(title: str | None, metadata: dict[str, Any]) -> None:
        if "started" in metadata.get("output", ""):
            started.set()

    ctx.update = update
    task = asyncio.create_task(bash(ctx, "echo started; sleep 30; echo never"))
    await asyncio.wait_for(started.wait(), 10)
    ctx.abort.set()
    result = await asyncio.wait_for(task, 1.0)
    assert result.metadata["aborted"] is True
    assert "started" in result.output and "never" not in result.output
    assert "aborted" in result.output


async def test_a_background_child_does_not_hold_the_call_open(ctx: ToolContext, project: Path) -> None:
    pidfile = project / "bg.pid"
    result = await asyncio.wait_for(bash(ctx, f"sleep 300 & echo $! > {pidfile}; echo done"), 10)
    reap(int(text_of(pidfile)))
    assert result.output.strip() == "done" and result.metadata["exit"] == 0


async def test_long_output_keeps_the_tail(ctx: ToolContext) -> None:
    result = await bash(ctx, "seq 1 3000")
    assert result.output.startswith("[... 1000 lines truncated ...]")
    assert result.output.endswith("\n\n" + "".join(f"{i}\n" for i in range(1001, 3001)))
    assert result.metadata["truncated"] is True
    saved = text_of(result.metadata["outputPath"])
    assert saved.startswith("1\n2\n") and saved.endswith("3000\n")


async def test_each_simple_command_is_asked_for(ctx: ToolContext, recorder: Recorder) -> None:
    await bash(ctx, "echo a && echo b")
    assert [a.permission for a in recorder.asks] == ["bash", "bash"]
    assert [a.patterns for a in recorder.asks] == [["echo a"], ["echo b"]]


async def test_workdir_outside_the_worktree_asks_external_directory_first(
    ctx: ToolContext, tmp_path: Path, recorder: Recorder
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    await bash(ctx, "pwd", workdir=str(outside))
    assert recorder.kinds() == ["external_directory", "bash"]


async def test_empty_command_is_refused(ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="command is empty"):
        await bash(ctx, "   ")


async def test_memory_cap_keeps_the_newest_output(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from core.tools import process

    monkeypatch.setattr(process, "MEMORY_CAP", 1000)
    result = await process.run_command(
        "seq 1 2000", cwd=tmp_path, timeout_s=30, abort=asyncio.Event(), on_output=None
    )
    assert result.dropped_bytes > 0 and result.exit_code == 0
    assert len(result.output) <= 1000 and result.output.endswith("1999\n2000\n")
