"""Run one hook command: ``sh -c`` in the project folder, the event's JSON on stdin.

Output is bounded (what a hook prints beyond ``OUTPUT_LIMIT`` bytes per stream is read and
dropped, so a chatty hook cannot fill memory or stall on a full pipe); a hook that outlives its
timeout is killed with its whole process group and counts as failed, and the turn goes on.
The environment is the agent's, with ``CLAUDE_PROJECT_DIR`` (Claude Code's name, which its
documented hooks use) and ``AGENTLS_PROJECT_DIR`` set to the project folder.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

OUTPUT_LIMIT = 64 * 1024
_KILL_WAIT = 2.0


@dataclass(frozen=True, slots=True)
class HookRun:
    """What one command did: its exit code (None when killed at its timeout or not started)."""

    command: str
    exit_code: int | None
    stdout: str
    stderr: str
    duration_ms: int
    timed_out: bool = False
    truncated: bool = False

    @property
    def failed_to_start(self) -> bool:
        return self.exit_code is None and not self.timed_out


async def run_command(command: str, payload: dict[str, Any], cwd: Path, timeout: float) -> HookRun:
    """Run ``command`` with ``payload`` as JSON on its stdin; never raises for the command's faults."""
    started = time.monotonic()
    env = {**os.environ, "CLAUDE_PROJECT_DIR": str(cwd), "AGENTLS_PROJECT_DIR": str(cwd)}
    try:
        proc = await asyncio.create_subprocess_exec(
            "/bin/sh",
            "-c",
            command,
            cwd=cwd,
            env=env,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
        )
    except OSError as exc:
        return HookRun(command, None, "", f"the hook could not start: {exc}", _ms(started))
    data = json.dumps(payload, ensure_ascii=False).encode()
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    out = asyncio.ensure_future(_read_bounded(proc.stdout))
    err = asyncio.ensure_future(_read_bounded(proc.stderr))
    timed_out = False
    try:
        await asyncio.wait_for(_feed_and_wait(proc, data), timeout)
    except TimeoutError:
        timed_out = True
        _kill_group(proc.pid)
        try:
            await asyncio.wait_for(proc.wait(), _KILL_WAIT)
        except TimeoutError:
            pass
    except asyncio.CancelledError:
        _kill_group(proc.pid)
        out.cancel()
        err.cancel()
        raise
    try:
        (stdout, cut_out), (stderr, cut_err) = await asyncio.wait_for(asyncio.gather(out, err), _KILL_WAIT)
    except TimeoutError:  # a grandchild kept the pipes open past the kill
        out.cancel()
        err.cancel()
        stdout, stderr, cut_out, cut_err = b"", b"", False, False
    code = None if timed_out else proc.returncode
    return HookRun(
        command,
        code,
        stdout.decode(errors="replace"),
        stderr.decode(errors="replace"),
        _ms(started),
        timed_out=timed_out,
        truncated=cut_out or cut_err,
    )


async def _feed_and_wait(proc: asyncio.subprocess.Process, data: bytes) -> None:
    assert proc.stdin is not None
    try:
        proc.stdin.write(data)
        await proc.stdin.drain()
    except (BrokenPipeError, ConnectionResetError):
        pass  # a hook that does not read its input is fine
    finally:
        proc.stdin.close()
    await proc.wait()


async def _read_bounded(stream: asyncio.StreamReader) -> tuple[bytes, bool]:
    kept = bytearray()
    truncated = False
    while chunk := await stream.read(65536):
        room = OUTPUT_LIMIT - len(kept)
        if len(chunk) > room:
            truncated = True
        kept += chunk[: max(room, 0)]
    return bytes(kept), truncated


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _ms(started: float) -> int:
    return int((time.monotonic() - started) * 1000)
