"""``python -m host``: run the host in the foreground, or (``--detach``) in a process of its own
that outlives the front end that started it (``core.remote.attach.start_host``)."""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import logging
import os
import signal
import sys
from pathlib import Path

from core.config.paths import data_dir, use_data_dir
from core.errors import AgentError, ConfigError
from core.remote.tcp import Token, add_tcp_options, check_host, load_token, split_address
from host.server import DEFAULT_IDLE_S, TcpListen, serve

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
    add_tcp_options(parser)
    args = parser.parse_args(argv)
    if args.detach and os.fork() != 0:
        os._exit(0)  # the launcher is reaped at once; the host is nobody's child to wait for
    logging.basicConfig(
        level=args.log_level.upper(),
        stream=sys.stderr,
        format="%(asctime)s %(process)d %(name)s: %(message)s",
    )
    data = args.data_dir or data_dir()
    try:
        tcp = tcp_listen(args, data)
    except (ConfigError, OSError) as exc:
        print(f"agentls host: {exc}", file=sys.stderr)
        return 2
    return run(data, idle_s(args.idle), args.ready_fd, args.wait_lock, tcp)


def tcp_listen(args: argparse.Namespace, data: Path) -> TcpListen | None:
    """Where to listen over TCP and with which token (None without ``--tcp``); ConfigError or
    OSError says what is wrong."""
    if not args.tcp:
        if args.token_file or args.token_env or args.allow_remote:
            raise ConfigError("--token-file, --token-env and --allow-remote go with --tcp HOST:PORT")
        return None
    host, port = split_address(args.tcp, "--tcp")
    bind = check_host(host, args.allow_remote)
    if not _loopback(bind):
        print(
            f"agentls host: listening on {bind}, beyond loopback: anyone who reaches it with the "
            "token drives the agents (an SSH tunnel to 127.0.0.1 is safer)",
            file=sys.stderr,
        )
    # Its own file by pid: a second host that loses the race for the lock removes only its own.
    token = load_token(args.token_file, args.token_env, data / "tcp" / f"host-{os.getpid()}.token")
    if args.token_file:  # the user's file stays (a front end elsewhere keeps a copy of it)
        token = Token(token.value, token.source)
    return TcpListen(bind, port, token)


def _loopback(host: str) -> bool:
    try:
        return host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:  # a name: it may resolve to anything
        return False


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


def run(
    data: Path, idle: float, ready_fd: int | None, wait_lock: bool = False, tcp: TcpListen | None = None
) -> int:
    """Serve ``data``'s host; the exit status."""

    def ready(path: Path, address: str | None) -> None:
        if tcp is not None:  # the lines a user (or a launcher) needs; the port when 0 was asked for
            print(f"agentls host: listening on {address}", file=sys.stderr)
            print(f"agentls host: token in {tcp.token.source}", file=sys.stderr, flush=True)
        if ready_fd is not None:
            os.write(ready_fd, f"ready {path}{f' {address}' if address else ''}\n".encode())
            os.close(ready_fd)

    use_data_dir(data)  # the sessions it serves in this process (relays) are this data dir's
    if wait_lock:  # a host that exits lets go of the lock within moments; a live one would not
        signal.alarm(WAIT_LOCK_S)
    try:
        asyncio.run(serve(data, idle, ready, wait_lock, tcp))
    except (AgentError, OSError) as exc:  # OSError: the TCP address is taken or cannot be bound
        print(f"agentls host: {exc}", file=sys.stderr)
        return 1
    finally:
        if tcp is not None and tcp.token.created is not None:
            tcp.token.created.unlink(missing_ok=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
