"""One writer at a time per snapshot store: within the process and across agentls processes."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from types import TracebackType

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: the in-process lock is all we have
    fcntl = None  # type: ignore[assignment]


class StoreLock:
    """An asyncio lock plus an ``flock`` on a file, so two editors on one project take turns."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = asyncio.Lock()
        self._fd: int | None = None

    async def __aenter__(self) -> None:
        await self._lock.acquire()
        try:
            await self._acquire_file()
        except BaseException:
            self._lock.release()
            raise

    async def _acquire_file(self) -> None:
        if fcntl is None:
            return
        await asyncio.to_thread(self.path.parent.mkdir, parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_CREAT | os.O_RDWR, 0o600)
        waiting = asyncio.ensure_future(asyncio.to_thread(fcntl.flock, fd, fcntl.LOCK_EX))
        try:
            await asyncio.shield(waiting)
        except BaseException:
            # Cancelled while the thread still waits: close (and so release) once it is done.
            waiting.add_done_callback(lambda _f: os.close(fd))
            raise
        self._fd = fd

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the descriptor releases the flock
            self._fd = None
        self._lock.release()
