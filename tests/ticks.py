"""Waiting in tests without fixed pauses: the next loop pass, the file clock's next tick, and a
condition on state that no event announces."""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

POLL_S = 0.02  # how often a condition on another process's state is read again


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


async def until(condition: Callable[[], object], what: str, timeout: float = 20.0) -> None:
    """Until ``condition()`` is true, for state that no event announces (a process of another
    program started or ended, another process's answer): read again every ``POLL_S``;
    TimeoutError naming ``what`` after ``timeout`` seconds."""
    try:
        async with asyncio.timeout(timeout):
            while not condition():
                await asyncio.sleep(POLL_S)
    except TimeoutError:
        raise TimeoutError(f"waited {timeout:g} s for {what}") from None


async def until_async(condition: Callable[[], Awaitable[bool]], what: str, timeout: float = 20.0) -> None:
    """``until`` for a condition that is itself asked over a connection (another process's answer)."""
    try:
        async with asyncio.timeout(timeout):
            while not await condition():
                await asyncio.sleep(POLL_S)
    except TimeoutError:
        raise TimeoutError(f"waited {timeout:g} s for {what}") from None


def until_sync(condition: Callable[[], object], what: str, timeout: float = 20.0) -> None:
    """``until`` for a test that drives a terminal synchronously."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"waited {timeout:g} s for {what}")
        time.sleep(POLL_S)
