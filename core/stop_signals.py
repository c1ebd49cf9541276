"""SIGTERM and SIGINT as a request to stop cleanly: every long-running command (``serve``, ``run``)
installs them here, so that a process stopped by its supervisor closes what it runs (a turn, a tool's
process group, the store) the same way whatever the command."""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import Callable

log = logging.getLogger(__name__)

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


def exit_code(sig: signal.Signals) -> int:
    """The shell's exit status for a command ended by ``sig`` (128 + its number)."""
    return 128 + int(sig)


def on_stop_signals(stop: Callable[[signal.Signals], None]) -> Callable[[], None]:
    """Call ``stop(sig)`` on the running loop when SIGTERM or SIGINT arrives; returns the undo.

    Outside the main thread, or on a loop without signal support, nothing is installed (the
    default handlers stay)."""
    loop = asyncio.get_running_loop()
    installed: list[signal.Signals] = []
    for sig in STOP_SIGNALS:
        try:
            loop.add_signal_handler(sig, _received, stop, sig)
        except (NotImplementedError, RuntimeError):  # not the main thread, or not a POSIX loop
            continue
        installed.append(sig)

    def undo() -> None:
        for sig in installed:
            loop.remove_signal_handler(sig)

    return undo


def _received(stop: Callable[[signal.Signals], None], sig: signal.Signals) -> None:
    log.info("received %s: stopping", sig.name)
    stop(sig)
