"""Argument parsing and dispatch for the `agentls` command (the LSP server adds `serve` and `demo`)."""

from __future__ import annotations

import argparse
import asyncio
import importlib
import inspect
import logging
import sys
from collections.abc import Callable, Sequence
from typing import Any

from core import __version__
from core.errors import AgentError

# Command modules under core.cli; each defines register(subparsers) and sets ``func`` on its parsers.
COMMAND_MODULES: tuple[str, ...] = (
    "core.cli.config_cmd",
    "core.cli.sessions_cmd",
    "core.cli.run_cmd",
    "core.cli.compact_cmd",
    "core.cli.permissions_cmd",
    "core.cli.snapshot_cmd",
)

Registrar = Callable[["argparse._SubParsersAction[argparse.ArgumentParser]"], None]


class UsageError(AgentError):
    """A mistake on the command line: printed without a traceback, exit status 2."""


def build_parser(extra: Sequence[Registrar] = ()) -> argparse.ArgumentParser:
    """The full parser: core commands plus any registrars the host adds (serve, demo)."""
    parser = argparse.ArgumentParser(prog="agentls", description="A coding agent in your editor.")
    parser.add_argument("--version", action="version", version=f"agentls {__version__}")
    parser.add_argument("--log-level", default="WARNING", help="logging level for stderr")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            continue  # a command group not built yet
        module.register(sub)
    for registrar in extra:
        registrar(sub)
    return parser


def run(argv: Sequence[str] | None = None, extra: Sequence[Registrar] = ()) -> int:
    """Parse ``argv``, run the chosen command, map errors to a message on stderr and an exit code."""
    parser = build_parser(extra)
    args = parser.parse_args(argv)
    logging.basicConfig(level=args.log_level.upper(), stream=sys.stderr)
    func: Callable[[argparse.Namespace], Any] | None = getattr(args, "func", None)
    if func is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        result = func(args)
        if inspect.isawaitable(result):
            result = asyncio.run(_await(result))
        return int(result or 0)
    except UsageError as exc:
        print(f"agentls: {exc}", file=sys.stderr)
        return 2
    except AgentError as exc:
        print(f"agentls: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


async def _await(awaitable: Any) -> Any:
    return await awaitable


def main() -> None:
    """Console entry point of the core-only CLI."""
    sys.exit(run())
