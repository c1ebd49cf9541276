"""Kill the tools' process groups when agentls itself dies without cleaning up (``kill -9``, the
OOM killer), so that a command the agent started does not run on unwatched.

A clean stop (SIGTERM, SIGINT, an abort) kills a running command's group itself
(``core.tools.process``). Nothing runs in a process killed with SIGKILL, so a small helper process
does it instead: agentls starts it with the first command, tells it through a pipe which process
groups are running (``+PGID`` / ``-PGID`` lines), and when the pipe reaches end-of-file (the kernel
closes it as agentls dies) the helper SIGKILLs the groups still listed and exits.

Measured here (Linux 6.x): ``PR_SET_PDEATHSIG`` on the tool's shell kills only the shell; its
children (``sleep 300 & …``) keep running, reparented to init. The helper reaches the whole group.
Limits: a command that leaves its group (``setsid``) or a process that ignores nothing but is
started in the instant between spawn and registration escapes; a group is forgotten once its
command ends, so background jobs a finished command left running on purpose are not killed.

Run as a script (``python -I -S reaper.py``): only the standard library, so it starts in ~10 ms.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import threading
from typing import IO

log = logging.getLogger(__name__)


class Reaper:
    """The agentls side: starts the helper on first use and reports groups to it."""

    def __init__(self) -> None:
        self._helper: subprocess.Popen[bytes] | None = None
        self._pipe: IO[bytes] | None = None
        self._lock = threading.Lock()
        self._broken = False

    def start(self) -> None:
        """Start the helper now (before a command is spawned: less time between spawn and watch)."""
        self._send("")

    def watch(self, pgid: int) -> None:
        """``pgid`` runs a command now: kill it if agentls dies first."""
        if self._send(f"+{pgid}\n"):
            log.debug("the reaper watches process group %d", pgid)

    def forget(self, pgid: int) -> None:
        """``pgid``'s command is over."""
        self._send(f"-{pgid}\n")

    def _send(self, line: str) -> bool:
        with self._lock:
            if self._broken:
                return False
            try:
                pipe = self._pipe or self._start()
                if line:
                    pipe.write(line.encode("ascii"))
                    pipe.flush()
            except OSError as exc:
                # Commands still run and are still killed on a clean stop; only kill -9 loses them.
                self._broken = True
                log.warning("the process reaper is unavailable (%s): tools may outlive a killed agentls", exc)
                return False
            return True

    def _start(self) -> IO[bytes]:
        self._helper = subprocess.Popen(
            [sys.executable, "-I", "-S", os.path.abspath(__file__)],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            start_new_session=True,  # a Ctrl-C to agentls's terminal group does not take it first
        )
        assert self._helper.stdin is not None
        self._pipe = self._helper.stdin
        return self._pipe


_reaper = Reaper()


def reaper() -> Reaper:
    """The process's reaper."""
    return _reaper


def serve(lines: IO[bytes]) -> set[int]:
    """The helper's loop: track ``+PGID``/``-PGID`` lines until EOF; the groups left."""
    groups: set[int] = set()
    for raw in lines:
        line = raw.strip()
        if len(line) < 2 or line[:1] not in (b"+", b"-") or not line[1:].isdigit():
            continue
        pgid = int(line[1:])
        if pgid <= 1:
            continue  # never the init group or "every process"
        if line[:1] == b"+":
            groups.add(pgid)
        else:
            groups.discard(pgid)
    return groups


def main() -> None:
    """Entry point of the helper process."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # it outlives agentls's own stop signals
    for pgid in serve(sys.stdin.buffer):
        try:
            os.killpg(pgid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            continue


if __name__ == "__main__":
    main()
