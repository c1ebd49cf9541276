"""Running a hook command: real subprocesses, stdin JSON, the project folder, bounds."""

from __future__ import annotations

import json
from pathlib import Path

from core.hooks.runner import OUTPUT_LIMIT, run_command


async def test_the_event_arrives_as_json_on_stdin_in_the_project_folder(tmp_path: Path) -> None:
    run = await run_command('cat; printf "|%s|%s" "$PWD" "$CLAUDE_PROJECT_DIR"', {"a": "ü"}, tmp_path, 10)
    data, _, where = run.stdout.partition("|")
    assert json.loads(data) == {"a": "ü"}
    assert where == f"{tmp_path}|{tmp_path}"
    assert run.exit_code == 0 and not run.timed_out


async def test_exit_code_and_stderr_are_kept(tmp_path: Path) -> None:
    run = await run_command("echo nope >&2; exit 2", {}, tmp_path, 10)
    assert (run.exit_code, run.stderr) == (2, "nope\n")


async def test_a_hanging_hook_and_its_children_are_killed_at_the_timeout(tmp_path: Path) -> None:
    marker = tmp_path / "child.pid"
    run = await run_command(f"sleep 60 & echo $! > {marker}; wait", {}, tmp_path, 0.5)
    assert run.timed_out and run.exit_code is None
    assert gone(int(marker.read_text()))


def gone(pid: int) -> bool:
    """The process ended (a zombie waiting for init to reap it counts)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z"
    except FileNotFoundError:
        return True


async def test_output_beyond_the_limit_is_dropped_not_kept(tmp_path: Path) -> None:
    run = await run_command(f"head -c {OUTPUT_LIMIT * 4} /dev/zero | tr '\\0' x", {}, tmp_path, 20)
    assert run.exit_code == 0 and run.truncated and len(run.stdout) == OUTPUT_LIMIT


async def test_a_hook_that_does_not_read_its_input_is_fine(tmp_path: Path) -> None:
    run = await run_command("exit 0", {"big": "x" * 1_000_000}, tmp_path, 10)
    assert run.exit_code == 0


async def test_a_missing_folder_is_a_failed_start_not_an_exception(tmp_path: Path) -> None:
    run = await run_command("true", {}, tmp_path / "gone", 10)
    assert run.failed_to_start and "could not start" in run.stderr
