"""Waiting in tests without sleeping: the next loop pass, and the file clock's next tick."""

from __future__ import annotations

import asyncio
import contextlib
import os
from pathlib import Path


async def next_tick() -> None:
    """Let every task that is ready run once, then continue (no timer involved)."""
    loop = asyncio.get_running_loop()
    done = loop.create_future()
    loop.call_soon(done.set_result, None)
    await done


async def past_mtime(path: Path, timeout: float = 5.0) -> None:
    """Until the file system's clock has moved past ``path``'s modification time, so that a write
    from now on gives a file a later one. File times move in ticks of a few milliseconds: a write
    right after another can carry the same time. Waits on that condition, touching a probe file
    beside ``path`` once per loop pass; TimeoutError after ``timeout`` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    probe = f"{path}.tick"
    try:
        while True:
            os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600))  # stamps it now
            if os.stat(probe).st_mtime_ns > os.stat(path).st_mtime_ns:
                return
            if loop.time() > deadline:
                raise TimeoutError(f"the file clock did not move past {path}'s time in {timeout} s")
            await next_tick()
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(probe)
