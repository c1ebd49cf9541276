"""``agentls serve``: run the language server on stdio (default) or TCP; logs never go to stdout."""

from __future__ import annotations

import argparse
import logging
import os
import sys
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

from agentls.boot import exit_now, startup_imports
from agentls.logs import configure_logging

if TYPE_CHECKING:
    from lsp_server.server import AgentServer

log = logging.getLogger(__name__)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``serve`` to the agentls command line."""
    parser = subparsers.add_parser("serve", help="run the agent as a language server")
    add_arguments(parser)
    parser.set_defaults(func=run)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The serve options, shared with ``python -m lsp_server``."""
    parser.add_argument("--tcp", metavar="HOST:PORT", help="listen on TCP instead of stdio (port 0: any)")
    parser.add_argument("--log-file", metavar="FILE", help="log here instead of stderr")
    parser.add_argument("--log-level", default="WARNING", help="DEBUG, INFO, WARNING (default), ERROR")


def run(args: argparse.Namespace) -> int:
    """Serve until the client exits (stdio) or the process is stopped (TCP)."""
    configure_logging(args.log_file, args.log_level, chatty=("pygls",))  # pygls logs every message at INFO
    # litellm must not fetch its cost map at import (no network, and it would print to stdout).
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    early = None
    if not args.tcp:
        from lsp_server.handshake import answer_early

        early = answer_early(sys.stdin.fileno(), _write_stdout)  # before pygls: see handshake
    with startup_imports():  # pygls and lsprotocol build ~600 classes: no collections meanwhile
        from lsp_server.lifecycle import run_stdio
        from lsp_server.server import build_server

        server = build_server()
    if args.tcp:
        import asyncio

        host, _, port = args.tcp.rpartition(":")
        server.watch_parent = False
        code = asyncio.run(serve_tcp(server, host or "127.0.0.1", int(port)))
    else:
        code = run_stdio(server, early)
    exit_now(code)
    return code


def _write_stdout(data: bytes) -> None:
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


async def serve_tcp(server: AgentServer, host: str, port: int) -> int:
    """Serve one client at a time; the agent outlives a client so a reconnect finds its dialogs."""
    import asyncio

    from pygls.io_ import run_async

    from lsp_server.lifecycle import close_server, install_signals

    lock = asyncio.Lock()

    async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        async with lock:
            log.info("client connected")
            server.protocol._shutdown = False  # a new client starts a new LSP session
            server.protocol.set_writer(writer)
            try:
                await run_async(threading.Event(), reader, server.protocol, log, server.report_server_error)
            finally:
                server.connection.connected = False
                writer.close()
                log.info("client disconnected")

    listener = await asyncio.start_server(connection, host, port)
    address = listener.sockets[0].getsockname()
    # The one line a launcher needs (the port, when 0 was asked for); stderr, never stdout.
    print(f"agentls listening on {address[0]}:{address[1]}", file=sys.stderr, flush=True)
    undo_signals = install_signals(server.lifetime)
    try:
        async with listener:
            serving = asyncio.create_task(listener.serve_forever())
            await server.lifetime.stopped.wait()
            serving.cancel()
    finally:
        undo_signals()
        await close_server(server)
    return server.lifetime.code


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m lsp_server [--tcp HOST:PORT] [--log-file F] [--log-level L]``."""
    parser = argparse.ArgumentParser(prog="agentls serve")
    add_arguments(parser)
    return run(parser.parse_args(argv))
