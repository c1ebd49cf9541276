"""``python -m host``: run the host in the foreground, or (``--detach``) in a process of its own
that outlives the front end that started it (``core.remote.attach.start_host``)."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import sys
from pathlib import Path

from core.config.paths import data_dir
from core.errors import AgentError
from host.server import DEFAULT_IDLE_S, serve

WAIT_LOCK_S = 30  # SIGALRM ends a host that waited this long for the lock (its front end gave up)


def main(argv: list[str] | None = None) -> int:
    """Parse the options and serve until idle or stopped; 1 when the host could not start."""
    parser = argparse.ArgumentParser(prog="python -m host")
    parser.add_argument("--data-dir", type=Path, default=None, help="the data dir (default: agentls's)")
    parser.add_argument("--idle", type=float, default=None, help="seconds idle before exiting")
    parser.add_argument("--ready-fd", type=int, default=None, help="write 'ready' here once listening")
    parser.add_argument("--detach", action="store_true", help="fork: the launching process exits at once")
    parser.add_argument("--wait-lock", action="store_true", help="wait for a stopping host to exit")
    parser.add_argument("--log-level", default="INFO")
    args = parser.parse_args(argv)
    if args.detach and os.fork() != 0:
        os._exit(0)  # the launcher is reaped at once; the host is nobody's child to wait for
    logging.basicConfig(
        level=args.log_level.upper(),
        stream=sys.stderr,
        format="%(asctime)s %(process)d %(name)s: %(message)s",
    )
    return run(args.data_dir or data_dir(), idle_s(args.idle), args.ready_fd, args.wait_lock)


def idle_s(given: float | None) -> float:
    """The idle time: the option, else AGENTLS_HOST_IDLE (seconds), else the default."""
    if given is not None:
        return given
    text = os.environ.get("AGENTLS_HOST_IDLE", "")
    try:
        return float(text) if text else DEFAULT_IDLE_S
    except ValueError:
        print(
            f"agentls host: AGENTLS_HOST_IDLE={text!r} is not seconds; using {DEFAULT_IDLE_S}",
            file=sys.stderr,
        )
        return DEFAULT_IDLE_S


def run(data: Path, idle: float, ready_fd: int | None, wait_lock: bool = False) -> int:
    """Serve ``data``'s host; the exit status."""

    def ready(path: Path) -> None:
        if ready_fd is not None:
            os.write(ready_fd, f"ready {path}\n".encode())
            os.close(ready_fd)

    if wait_lock:  # a host that exits lets go of the lock within moments; a live one would not
        signal.alarm(WAIT_LOCK_S)
    try:
        asyncio.run(serve(data, idle, ready, wait_lock))
    except AgentError as exc:
        print(f"agentls host: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
