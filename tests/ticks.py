"""Yielding to the event loop in tests without sleeping: a future resolved on the next loop pass."""

from __future__ import annotations

import asyncio


async def next_tick() -> None:
    """Let every task that is ready run once, then continue (no timer involved)."""
    loop = asyncio.get_running_loop()
    done = loop.create_future()
    loop.call_soon(done.set_result, None)
    await done
