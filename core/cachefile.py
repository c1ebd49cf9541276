"""Cache files (the code cache, the tools' schemas, the model map's index): written whole or not at all."""

from __future__ import annotations

import contextlib
import os
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
