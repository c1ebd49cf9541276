"""``agentls acp``: serve the agent to an ACP client over stdio; logs never go to stdout."""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Sequence
from pathlib import Path

from agentls.logs import configure_logging


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``acp`` to the agentls command line."""
    parser = subparsers.add_parser("acp", help="run the agent for an Agent Client Protocol client (stdio)")
    add_arguments(parser)
    parser.set_defaults(func=run)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The acp options, shared with ``python -m acp_server``."""
    parser.add_argument("--log-file", metavar="FILE", help="log here instead of stderr")
    parser.add_argument("--data-dir", metavar="DIR", type=Path, help="where sessions are stored")
    parser.add_argument(
        "--auth",
        action="store_true",
        help="ask for a provider and its API key, store them like `agentls auth`, and exit "
        "(the terminal authentication method ACP clients run)",
    )
    if not any(a.dest == "log_level" for a in parser._actions):
        parser.add_argument("--log-level", default="WARNING", help="DEBUG, INFO, WARNING (default), ERROR")


def run(args: argparse.Namespace) -> int:
    """Serve until the client closes stdin."""
    configure_logging(args.log_file, args.log_level)
    if args.auth:
        from agentls.auth import run as auth

        return auth(argparse.Namespace(provider=None, env=None))
    asyncio.run(serve(args.data_dir))
    return 0


async def serve(data_dir: Path | None) -> None:
    """Answer ``initialize`` from the lean path, then import the ACP library and serve."""
    from acp_server.handshake import answer_early
    from acp_server.transport import StdioLines, stdio

    reader, writer = await stdio()
    transport = await answer_early(StdioLines(reader, writer))
    from acp_server.connection import serve as serve_connection  # acp.schema: most of a second

    await serve_connection(data_dir, transport)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m acp_server [--log-file F] [--log-level L] [--data-dir D]``."""
    parser = argparse.ArgumentParser(prog="agentls acp")
    add_arguments(parser)
    return run(parser.parse_args(argv))
