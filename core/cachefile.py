"""Cache files (the model map's index): written whole or not at all, read only when they are a
regular file of bounded size. A cache folder is writable by the agent's own tools and by anything
else of the user's: a FIFO, a device or a huge file put there must not hang or exhaust a start."""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path


def write_whole(path: Path, data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path`` and rename it over ``path``, so a reader
    (another agentls starting meanwhile) sees the old file or the new one, never half of one.

    Raises OSError (a full disk, a read-only folder) after removing the temporary file."""
    import tempfile  # here: only a process that has something new to store pays for it

    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def read_capped(path: Path, max_bytes: int) -> bytes:
    """The contents of the regular file at ``path``, at most ``max_bytes`` long.

    OSError when it cannot be opened (missing, unreadable); ValueError when it is not a regular
    file (a FIFO, a device, a folder) or is longer than ``max_bytes``. Opening does not wait: a
    FIFO without a writer is refused, not waited on."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ValueError(f"{path} is not a regular file")
        if info.st_size > max_bytes:
            raise ValueError(f"{path} is larger than {max_bytes} bytes")
        chunks: list[bytes] = []
        size = 0
        while chunk := os.read(fd, max_bytes + 1 - size):
            chunks.append(chunk)
            size += len(chunk)
            if size > max_bytes:  # it grew while being read
                raise ValueError(f"{path} is larger than {max_bytes} bytes")
        return b"".join(chunks)
    finally:
        os.close(fd)
