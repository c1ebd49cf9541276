"""`agentls host start|status|stop|serve`: the per-user host that every front end can attach to
(docs/host.md)."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from core.config.paths import data_dir
from core.remote.attach import AttachError, NoHost, connect, start_host
from core.remote.place import socket_path
from core.remote.tcp import add_tcp_options

STOP_TIMEOUT_S = 30.0  # the host closes its agents first (a running turn is aborted, its parts kept)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `agentls host`."""
    parser = sub.add_parser("host", help="the shared agent host front ends attach to: start, status, stop")
    parser.add_argument("--data-dir", type=Path, default=None, help=argparse.SUPPRESS)
    parser.set_defaults(func=lambda _args: _help(parser))
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    start = actions.add_parser("start", help="start the host in the background (no-op when it runs)")
    start.add_argument("--idle", type=float, default=None, help="seconds idle before it exits (default 600)")
    add_tcp_options(start)
    start.set_defaults(func=run_start)
    serve = actions.add_parser("serve", help="run the host in the foreground (logs to stderr)")
    serve.add_argument("--idle", type=float, default=None, help="seconds idle before it exits (default 600)")
    add_tcp_options(serve)
    serve.set_defaults(func=run_serve)
    status = actions.add_parser("status", help="whether a host runs, and who is attached")
    status.add_argument("--json", action="store_true", help="print the status as JSON")
    status.set_defaults(func=run_status)
    actions.add_parser("stop", help="stop the host (running turns are aborted)").set_defaults(func=run_stop)


def _help(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return 2


def _data(args: argparse.Namespace) -> Path:
    return Path(args.data_dir) if args.data_dir else data_dir()


async def run_start(args: argparse.Namespace) -> int:
    """Start a host unless one runs (with ``--tcp``: one that listens there too)."""
    data = _data(args)
    tcp = _tcp_flags(args)
    try:
        conn, hello, _ = await connect(data, "agentls host start", control=True)
    except NoHost:
        await start_host(data, idle_s=args.idle, tcp=tcp)
        conn, hello, _ = await connect(data, "agentls host start", control=True)
        started = True
    else:
        started = False
    try:
        status: dict[str, Any] = await conn.request("status", {})
    finally:
        conn.close()
    listening = status.get("tcp")
    if not started:
        print(f"agentls host: already running (pid {hello['pid']}{_tcp_words(listening)})")
        if tcp and not listening:
            print("agentls host: it does not listen on TCP: `agentls host stop` it first", file=sys.stderr)
            return 1
        return 0
    print(f"agentls host: started (pid {hello['pid']}, {socket_path(data)}{_tcp_words(listening)})")
    return 0


def _tcp_flags(args: argparse.Namespace) -> list[str]:
    """``--tcp`` and its options as `python -m host` takes them (none without ``--tcp``)."""
    flags = ["--tcp", args.tcp] if args.tcp else []
    if args.token_file:
        flags += ["--token-file", str(Path(args.token_file).expanduser().resolve())]
    if args.token_env:
        flags += ["--token-env", args.token_env]
    return flags + (["--allow-remote"] if args.allow_remote else [])


def _tcp_words(listening: dict[str, str] | None) -> str:
    return f"; {listening['address']}, its token in {listening['token']}" if listening else ""


def run_serve(args: argparse.Namespace) -> int:
    """The host in this process, until idle or stopped."""
    from core.errors import ConfigError
    from host.__main__ import idle_s, run, tcp_listen

    data = _data(args)
    try:
        tcp = tcp_listen(args, data)
    except (ConfigError, OSError) as exc:
        print(f"agentls host: {exc}", file=sys.stderr)
        return 2
    return run(data, idle_s(args.idle), None, tcp=tcp)


async def run_status(args: argparse.Namespace) -> int:
    """Print the host's status; exit 1 when none runs."""
    data = _data(args)
    try:
        conn, _, _ = await connect(data, "agentls host status", control=True)
    except NoHost:
        print(json.dumps({"running": False}) if args.json else "agentls host: not running")
        return 1
    try:
        status: dict[str, Any] = await conn.request("status", {})
    finally:
        conn.close()
    if args.json:
        print(json.dumps({"running": True, **status}, indent=2))
        return 0
    version = f"agentls {status['version']} (protocol {status['protocol']})"
    print(f"agentls host: running, pid {status['pid']}, {version}")
    print(f"  socket: {socket_path(data)}; up {status['uptime']} s; exits after {status['idleExit']} s idle")
    if status.get("tcp"):
        print(f"  tcp: {status['tcp']['address']}; its token in {status['tcp']['token']}")
    print(f"  clients: {', '.join(status['clients']) or 'none'}; calls running: {status['running']}")
    for project in status["projects"]:
        print(f"  project {project['directory']}")
        for lender in project.get("lenders", []):
            print(f"    {_lends(lender)}")
    return 0


def _lends(lender: dict[str, Any]) -> str:
    """One front end's loan to a project's agent, in a line."""
    opened = len(lender["open"])
    parts = [f"{opened} open file{'' if opened == 1 else 's'}"] if lender["workspace"] else []
    if lender["supported"]:
        parts.append("editor queries " + ", ".join(lender["supported"]))
    if lender["turns"]:
        parts.append("the files of its turns")
    if lender["terminal"]:
        parts.append("its terminal")
    return f"{lender['client']} lends " + ("; ".join(parts) or "nothing")


async def run_stop(args: argparse.Namespace) -> int:
    """Ask the host to stop and wait until it has."""
    data = _data(args)
    try:
        conn, hello, _ = await connect(data, "agentls host stop", control=True)
    except NoHost:
        print("agentls host: not running")
        return 0
    await conn.request("stop", {})
    try:
        await asyncio.wait_for(conn.closed.wait(), timeout=STOP_TIMEOUT_S)
    except TimeoutError:
        raise AttachError(f"the host (pid {hello['pid']}) did not stop in {STOP_TIMEOUT_S:.0f} s") from None
    print(f"agentls host: stopped (pid {hello['pid']})")
    return 0
