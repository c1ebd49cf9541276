"""Argument parsing and dispatch for the `agentls` command (front ends add their own commands)."""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import logging
import os
import sys
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from typing import Any, NoReturn

from core import __version__
from core.errors import AgentError

# Each command's module (it defines register(subparsers) and sets ``func``). Only the module of the
# command being run is imported, so `agentls run` never pays for another command's imports.
# A relay's kind → the front end's module whose ``serve_relay`` runs its session in the host
# (host/relays.py; imported only when the first relay of that kind attaches). Named here, above
# nothing: the host never imports a front end, the front ends never import the host.
HOSTED_SESSIONS: dict[str, str] = {"lsp": "lsp_server.hosted"}  # ACP's: not yet (docs/host.md)

CORE_COMMANDS: dict[str, str] = {
    "run": "cli.run_cmd",
    "sessions": "cli.sessions_cmd",
    "compact": "cli.compact_cmd",
    "config": "cli.config_cmd",
    "doctor": "cli.doctor_cmd",
    "permissions": "cli.permissions_cmd",
    "trust": "cli.trust_cmd",
    "snapshots": "cli.snapshot_cmd",
    "diff": "cli.snapshot_cmd",
    "review": "cli.review_cmd",
    "host": "cli.host_cmd",
    "worktrees": "cli.worktrees_cmd",
    "mcp": "cli.mcp_cmd",
    "auth": "agentls.auth",
}

# Options of the main parser that take a value (so that the value is not taken for the command).
_VALUED_OPTIONS = ("--log-level",)


class UsageError(AgentError):
    """A mistake on the command line: printed without a traceback, exit status 2."""


def build_parser(
    commands: Mapping[str, str] = CORE_COMMANDS, only: str | None = None
) -> argparse.ArgumentParser:
    """The parser with every command of ``commands``, or with just ``only`` and its module's commands."""
    parser = argparse.ArgumentParser(prog="agentls", description="A coding agent in your editor.")
    parser.add_argument("--version", action="version", version=f"agentls {__version__}")
    parser.add_argument("--log-level", default="WARNING", help="logging level for stderr")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    modules = (
        [commands[only]] if only is not None and only in commands else list(dict.fromkeys(commands.values()))
    )
    for name in modules:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name is None or not (name == exc.name or name.startswith(exc.name + ".")):
                raise  # something the command imports is missing: a real error
            continue  # a front end this installation does not have
        module.register(sub)
    return parser


def chosen_command(argv: Sequence[str], commands: Mapping[str, str]) -> str | None:
    """The command named in ``argv`` (its first positional argument), if it is one of ``commands``."""
    skip = False
    for arg in argv:
        if skip:
            skip = False
        elif arg in _VALUED_OPTIONS:
            skip = True
        elif arg == "--":
            return None
        elif not arg.startswith("-"):
            return arg if arg in commands else None
    return None


@contextlib.contextmanager
def startup_imports() -> Iterator[None]:
    """Import a command's modules with the garbage collector paused, then keep what they built out
    of every later collection.

    Imports create hundreds of thousands of objects that live as long as the process (modules,
    classes, pydantic schemas); collecting while they pile up took ~20% of a start's CPU. Only for a
    fresh process: ``gc.freeze`` also exempts everything allocated before.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        with _no_pydantic_plugins():
            yield
    finally:
        gc.freeze()
        if was_enabled:
            gc.enable()


@contextlib.contextmanager
def _no_pydantic_plugins() -> Iterator[None]:
    """Pydantic looks for plugins (every installed package's entry points, ~35 ms) when it builds
    the first model; agentls uses none. Its documented ``PYDANTIC_DISABLE_PLUGINS`` switches that
    off for the start-up imports only, and is put back after, so that the agent's subprocesses
    (tools, MCP servers) never inherit it. A value the user set is left alone."""
    if _PLUGINS_ENV in os.environ:
        yield
        return
    os.environ[_PLUGINS_ENV] = "__all__"
    try:
        yield
    finally:
        os.environ.pop(_PLUGINS_ENV, None)


_PLUGINS_ENV = "PYDANTIC_DISABLE_PLUGINS"


def run(
    argv: Sequence[str] | None = None,
    commands: Mapping[str, str] = CORE_COMMANDS,
    *,
    fresh_process: bool = False,
) -> int:
    """Parse ``argv``, run the chosen command, map errors to a message on stderr and an exit code.

    ``fresh_process``: the caller is a console script, so start-up imports may pause the collector.
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    only = chosen_command(argv, commands)
    with startup_imports() if fresh_process else contextlib.nullcontext():
        parser = build_parser(commands, only=only)
    args = parser.parse_args(argv)
    logging.basicConfig(level=args.log_level.upper(), stream=sys.stderr)
    func: Callable[[argparse.Namespace], Any] | None = getattr(args, "func", None)
    if func is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        result = func(args)
        if isinstance(result, Awaitable):
            # Imported here: `agentls serve` answers `initialize` before asyncio is needed (~40 ms).
            import asyncio

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
    except BrokenPipeError:
        # The reader went away (`agentls sessions list | head`): nothing left to say, and nowhere
        # to say it; the standard output is pointed at /dev/null so the final flush cannot fail.
        with contextlib.suppress(OSError, ValueError):  # a stdout without a file (in-process callers)
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
        return 1


async def _await(awaitable: Any) -> Any:
    return await awaitable


def exit_now(code: int) -> NoReturn:
    """End the process as soon as the command is done, skipping the interpreter's teardown.

    Every command closes what holds data (store, model connections, MCP servers) before it
    returns; tearing down hundreds of modules and their objects after that only delays the
    user's prompt (~0.3 s or more on a busy machine). Logs and standard streams are flushed first.
    """
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (agentls run | head): nothing left to say
            pass
    os._exit(code)


def main() -> None:
    """Console entry point of the core-only CLI."""
    exit_now(run(fresh_process=True))
