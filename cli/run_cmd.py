"""`agentls run "prompt"`: one turn in the terminal, with permissions asked on the TTY.

With an agent host running (or ``--attach``), this process is a terminal relay and the host runs
the turn in its warm agent (cli/run_relay.py, host/runs.py); otherwise (``--no-host``, no host, a
host that cannot be used) the agent opens here. Either way the turn is cli/run_turn.py's. This
module is cheap to import: the relayed run never loads the core's models.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from core.open import HostMode
    from core.remote.tcp import TcpHost

TITLE_GRACE_S = 2.0  # the most a finished run waits for its session's title
# Tests only: a relayed run writes its sys.modules there (AGENTLS_HOST*: outside the host environment digest).
MODULES_FILE = "AGENTLS_HOST_RELAY_MODULES"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `agentls run`."""
    parser = sub.add_parser("run", help="run one agent turn in the terminal")
    parser.add_argument("prompt", help="what to ask the agent")
    parser.add_argument("--model", help="provider/model to use")
    parser.add_argument("--agent", help="the primary agent to use")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--session", help="continue this session")
    group.add_argument("--continue", dest="cont", action="store_true", help="continue the latest session")
    decide = parser.add_mutually_exclusive_group()
    decide.add_argument("--yes", action="store_true", help="allow every permission request (no TTY needed)")
    decide.add_argument("--deny", action="store_true", help="reject every permission request")
    host = parser.add_mutually_exclusive_group()
    host.add_argument(
        "--attach",
        action="store_true",
        help="run in the shared agent host, starting it when none runs (default: attach only when one runs)",
    )
    host.add_argument("--no-host", action="store_true", help="run the agent in this process, never in a host")
    parser.add_argument("-C", dest="directory", default=".", help="the project folder")
    parser.add_argument(
        "--worktree",
        nargs="?",
        const="",
        metavar="NAME",
        help="work in a new git worktree on branch agentls/NAME (default: the time), leaving your "
        "checkout alone; `agentls worktrees` merges or discards it",
    )
    parser.add_argument(
        "--trust",
        action="store_true",
        help="use the project's own config, commands and MCP servers for this run without asking "
        "(agentls trust add remembers it)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> Any:
    """Run the turn; exit 1 when it ended with an error or needed a permission nobody could give.

    Relayed, the exit code; in-process, the coroutine that runs the turn (agentls/boot.py awaits it)."""
    # Without a terminal, what the rules allow still runs; a request that would ask is refused
    # and named (cli/run_turn.py), so a script never hangs on a question it cannot answer.
    args.no_terminal = not (args.yes or args.deny or sys.stdin.isatty())
    args.host = host_mode(args)
    asks = _trust_question(args)
    if args.worktree is not None or (asks and not args.trust):
        import asyncio

        asyncio.run(_prepare(args))
    if isinstance(args.host, str) and args.host != "never":
        relayed = _relayed(args, own_trust=asks and args.trust)
        if relayed is not None:
            return relayed
    return run_here(args)


def _trust_question(args: argparse.Namespace) -> bool:
    """Whether the project asks to be trusted (the question is settled before the agent opens)."""
    from core.project_trust import question_for

    return question_for(Path(args.directory)) is not None


async def _prepare(args: argparse.Namespace) -> None:
    """Settle the trust question and make the worktree (both may ask on the terminal)."""
    from cli.trust_prompt import settle_trust

    await settle_trust(Path(args.directory), trust_flag=args.trust, terminal=sys.stdin.isatty())
    if args.worktree is not None:
        from cli.worktree_run import in_worktree

        args.directory = str(await in_worktree(Path(args.directory), args.worktree, trust_flag=args.trust))


def _relayed(args: argparse.Namespace, own_trust: bool = False) -> int | None:
    """The run relayed to the host (its exit code), or None to run it in this process;
    ``own_trust``: ``--trust`` of a project the trust store does not trust (run here when a host runs)."""
    from cli.run_relay import NotAttached, connect, relay
    from core.config.paths import data_dir
    from core.trust import is_trusted

    directory = Path(args.directory)
    if not is_trusted(directory):  # the host's agent would read the project files held back here
        _warn("not attached to the host: this run has not trusted the project")
        return None
    client = f"agentls run (pid {os.getpid()})"
    try:
        wire = connect(data_dir(), client)
    except NotAttached as exc:
        if args.host != "auto" or own_trust or (str(exc) and not exc.replaced):
            if str(exc):
                _warn(f"not attached to the host ({exc}); the agent runs in this process")
            return None
        if not _start_host(exc.replaced):
            return None
        try:
            wire = connect(data_dir(), client)
        except NotAttached as again:
            _warn(f"not attached to the host ({again or 'it did not start'}); the agent runs in this process")
            return None
    if own_trust:  # the host's agent of the project is shared and trusts what the trust store says
        wire.sock.close()
        _warn("not attached to the host: --trust trusts the project for this run only; the agent runs here")
        return None
    options = {
        name: getattr(args, name)
        for name in ("prompt", "model", "agent", "session", "cont", "yes", "deny", "no_terminal")
    }
    ended = relay(wire, directory, options)
    wire.sock.close()
    if ended.lost is not None:
        print(f"\nagentls: {ended.lost}: the turn ended with the host", file=sys.stderr)
        if ended.session is not None:
            import asyncio

            from cli.host_lost import restart_host

            asyncio.run(restart_host(directory, ended.session, client))
    if path := os.environ.get(MODULES_FILE):
        Path(path).write_text("\n".join(sorted(sys.modules)) + "\n")
    return ended.code


def _start_host(replaced: bool) -> bool:
    """Start a host (``--attach`` and none runs); False (and why, on stderr) when it did not start."""
    import asyncio

    from core.config.paths import data_dir
    from core.remote.attach import AttachError, start_host

    try:
        asyncio.run(start_host(data_dir(), wait_for_lock=replaced))
    except AttachError as exc:
        _warn(f"not attached: the host did not start ({exc}); the agent runs in this process")
        return False
    return True


def run_here(args: argparse.Namespace) -> Any:
    """The coroutine that runs the turn with the agent in this process (or over TCP)."""
    return _here(args)


async def _here(args: argparse.Namespace) -> int:
    from agentls.boot import startup_imports
    from cli.run_turn import TerminalSeat, drive
    from core.open import open_agent
    from core.stop_signals import on_stop_signals

    remote = not isinstance(args.host, str)  # over TCP: core.remote's agent; else the agent is here
    app = await open_agent(
        Path(args.directory),
        import_guard=startup_imports,
        host=args.host if remote else "never",
        client=f"agentls run (pid {os.getpid()})",
        notice=_warn,
    )
    stopped = True
    try:
        code, stopped = await drive(app, args, TerminalSeat(), on_stop_signals)
    finally:
        # A short turn can end before the small model has named the session: wait for it a little.
        await app.close(grace=0.0 if stopped else TITLE_GRACE_S)
    return code


def host_mode(args: argparse.Namespace) -> HostMode | TcpHost:
    """--attach: auto; --no-host: never; else AGENTLS_HOST (auto, attach, never, tcp://HOST:PORT),
    else attach."""
    if args.attach:
        return "auto"
    if args.no_host:
        return "never"
    value = os.environ.get("AGENTLS_HOST", "attach")
    if value in ("auto", "attach", "never"):
        return value  # type: ignore[return-value]  # (checked: one of HostMode's values)
    from core.open import host_mode as core_host_mode

    return core_host_mode(None, "AGENTLS_HOST", _warn, "attach")


def _warn(text: str) -> None:
    print(f"agentls: {text}", file=sys.stderr)
