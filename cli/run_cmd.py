"""`agentls run "prompt"`: one turn in the terminal, with permissions asked on the TTY."""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from agentls.boot import startup_imports
from cli.host_lost import restart_host
from cli.render import Transcript
from cli.terminal_input import read_line
from cli.trust_prompt import settle_trust
from cli.worktree_run import in_worktree
from core.events import PermissionAsked, PermissionReplied
from core.message.models import AssistantMessage
from core.message.prompt_input import TextInput
from core.open import host_mode as core_host_mode
from core.open import open_agent
from core.remote.connection import ConnectionLost

if TYPE_CHECKING:
    from core.api import Agent
    from core.open import HostMode
    from core.remote.tcp import TcpHost
from core.stop_signals import exit_code, on_stop_signals

TITLE_GRACE_S = 2.0  # the most a finished run waits for its session's title


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


async def run(args: argparse.Namespace) -> int:
    """Run the turn; exit 1 when it ended with an error or needed a permission nobody could give."""
    # Without a terminal, what the rules allow still runs; a request that would ask is refused
    # and named (see _answer), so a script never hangs on a question it cannot answer.
    args.no_terminal = not (args.yes or args.deny or sys.stdin.isatty())
    args.refused = []
    await settle_trust(Path(args.directory), trust_flag=args.trust, terminal=sys.stdin.isatty())
    if args.worktree is not None:
        args.directory = str(await in_worktree(Path(args.directory), args.worktree, trust_flag=args.trust))
    args.host = host_mode(args)
    app = await open_agent(
        Path(args.directory),
        import_guard=startup_imports,
        host=args.host,
        client=f"agentls run (pid {os.getpid()})",
        notice=lambda text: print(f"agentls: {text}", file=sys.stderr),
    )
    work = asyncio.current_task()
    assert work is not None, "run inside a task"
    stopped: list[signal.Signals] = []

    def stop(sig: signal.Signals) -> None:
        if not stopped:  # cancelling aborts the turn, whose tool's process group is killed
            stopped.append(sig)
            work.cancel()

    undo_signals = on_stop_signals(stop)
    try:
        code = await turn(app, args)
    except asyncio.CancelledError:
        if not stopped:
            raise
        work.uncancel()
        print(f"agentls: stopped by {stopped[0].name}", file=sys.stderr)
        return exit_code(stopped[0])
    finally:
        undo_signals()
        # A short turn can end before the small model has named the session: wait for it a little.
        await app.close(grace=0.0 if stopped else TITLE_GRACE_S)
    return 1 if args.refused else code


def host_mode(args: argparse.Namespace) -> HostMode | TcpHost:
    """--attach: auto; --no-host: never; else AGENTLS_HOST (auto, attach, never, tcp://HOST:PORT),
    else attach."""
    if args.attach:
        return "auto"
    if args.no_host:
        return "never"
    return core_host_mode(None, "AGENTLS_HOST", _warn, "attach")


def _warn(text: str) -> None:
    print(f"agentls: {text}", file=sys.stderr)


async def turn(app: Agent, args: argparse.Namespace) -> int:
    """One prompt in a new or continued session, streamed to stdout."""
    if args.session:
        session = await app.get_session(args.session)
    elif args.cont:
        sessions = await app.list_sessions(limit=1)
        session = sessions[0] if sessions else await app.create_session()
    else:
        session = await app.create_session()
    transcript = Transcript(session.id)
    sub = app.subscribe()
    answers: set[asyncio.Task[None]] = set()

    asking: dict[str, asyncio.Task[None]] = {}

    async def pump() -> None:
        async for event in sub:
            transcript.handle(event)
            if isinstance(event, PermissionAsked):
                task = asyncio.create_task(_answer(app, event, args))
                answers.add(task)
                asking[event.request.id] = task
                task.add_done_callback(answers.discard)
            elif isinstance(event, PermissionReplied) and (waiting := asking.pop(event.requestID, None)):
                if waiting.done():
                    continue
                waiting.cancel()  # answered in another front end attached to the same host
                print(f"\n  {event.reply}: answered in {event.by or 'another front end'}", flush=True)

    printer = asyncio.create_task(pump())
    # Attached, the editors that show the session list this run among its watchers (sent before the
    # prompt on the same connection, so not waited for: the run's start stays as fast).
    show = getattr(app, "show", None)  # core.remote.agent.RemoteAgent's; in-process there is no other
    if show is not None:
        shown = asyncio.ensure_future(show([session.id]))
        shown.add_done_callback(lambda done: done.cancelled() or done.exception())
    try:
        answer = await app.prompt(
            session.id, [TextInput(type="text", text=args.prompt)], agent=args.agent, model=args.model
        )
        # Background sub-agents the turn started report back in turns of their own: wait for them
        # (printed as they come) rather than stop them by exiting.
        await app.background_settled(session.id)
    except ConnectionLost as exc:
        print(f"\nagentls: {exc}: the turn ended with the host", file=sys.stderr)
        if isinstance(args.host, str):
            await restart_host(app.directory, session.id, f"agentls run (pid {os.getpid()})")
        else:  # on another machine: what the turn committed is in that host's store
            print(f"agentls: the host at {args.host} is not restarted from here", file=sys.stderr)
        return 1
    finally:
        printer.cancel()
        while (event := sub.get_nowait()) is not None:  # what the printer had not taken yet
            transcript.handle(event)
        sub.close()
        transcript.finish()
    info = answer.info
    if isinstance(info, AssistantMessage) and info.error is not None and info.error.name != "aborted":
        print(f"agentls: {info.error.message}", file=sys.stderr)
        return 1
    return 0


REPLIES: dict[str, Literal["once", "always"]] = {
    "y": "once",
    "yes": "once",
    "a": "always",
    "always": "always",
}


async def _answer(app: Agent, event: PermissionAsked, args: Any) -> None:
    request = event.request
    reply: Literal["once", "always", "reject"]
    if args.yes:
        reply = "once"
    elif args.deny:
        reply = "reject"
    elif getattr(args, "no_terminal", False):
        reply = "reject"
        args.refused.append(request)
        print(_no_terminal(request.permission, request.patterns), file=sys.stderr)
    else:
        text = await read_line("  allow? [y]es / [a]lways / [n]o: ")
        reply = REPLIES.get(text.strip().lower(), "reject")
    await app.dialogs.reply_permission(request.id, reply)


def _no_terminal(permission: str, patterns: list[str]) -> str:
    what = ", ".join(patterns)
    return (
        f"agentls: the agent needed permission for {permission} ({what}) and there is no terminal to "
        "ask on, so it was refused. Pass --yes to allow every request, or allow it in agentls.json: "
        f'"permission": {{"{permission}": "allow"}} (or "permission": "allow" for everything).'
    )
