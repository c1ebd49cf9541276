"""Which backend can confine commands on this machine: checked once per process, on first use."""

from __future__ import annotations

import functools
import shutil
import sys
from typing import Literal

from core.record import record
from core.sandbox import bubblewrap, seatbelt

BackendName = Literal["bubblewrap", "seatbelt"]


@record
class Backend:
    """The backend in use (None: none works here, ``detail`` says why) and the program it runs."""

    name: BackendName | None
    detail: str
    path: str | None = None


@functools.cache
def detect() -> Backend:
    """The backend for this machine; a failed check is not repeated (the answer would not change)."""
    if sys.platform == "darwin":
        path = shutil.which("sandbox-exec") or None
        if path is None:
            return Backend(None, "sandbox-exec is missing (macOS without Seatbelt)")
        return Backend("seatbelt", path, seatbelt.SANDBOX_EXEC)
    if sys.platform.startswith("linux"):
        found = bubblewrap.probe()
        if found.works:
            return Backend("bubblewrap", found.detail, found.path)
        return Backend(None, found.detail)
    return Backend(None, f"no sandbox backend for {sys.platform}")
