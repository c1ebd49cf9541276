"""A line typed on the terminal, read without blocking the event loop."""

from __future__ import annotations

import asyncio
import sys
from typing import TextIO


async def read_line(prompt: str, out: TextIO | None = None) -> str:
    """A line typed on the terminal, waited for on the event loop: a thread blocked in ``input()``
    could not be stopped, and held the process at exit after SIGTERM until someone pressed Enter.

    ``out``: where the prompt goes (default stdout). An empty string at the end of input."""
    print(prompt, end="", flush=True, file=out or sys.stdout)
    loop = asyncio.get_running_loop()
    fd = sys.stdin.fileno()
    typed: asyncio.Future[None] = loop.create_future()
    loop.add_reader(fd, _settle, typed)
    try:
        await typed  # a terminal in line mode is readable once Enter is pressed
    finally:
        loop.remove_reader(fd)
    return sys.stdin.readline()


def _settle(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)
