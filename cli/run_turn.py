"""The turn of `agentls run`, wherever it runs: in the `run` process, or in the agent host for a
`run` attached to it (host/runs.py). Both render it with the one ``Transcript`` and talk to the
user through a ``Seat``: the terminal here, or the `run` process's terminal relayed by the host."""

from __future__ import annotations

import asyncio
import signal
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal, Protocol, TextIO

from cli.render import Transcript
from cli.terminal_input import read_line
from core.events import PermissionAsked, PermissionReplied
from core.message.models import AssistantMessage
from core.message.prompt_input import TextInput
from core.remote.connection import ConnectionLost
from core.stop_signals import exit_code

if TYPE_CHECKING:
    import argparse

    from core.api import Agent

# Installs ``stop(sig)`` as what SIGINT/SIGTERM do (the process's signals, or the relay's); the undo.
StopHook = Callable[[Callable[[signal.Signals], None]], Callable[[], None]]


class Seat(Protocol):
    """Where a run's user is: their output streams, their keyboard, and the other front ends."""

    out: TextIO
    err: TextIO

    async def read_line(self, prompt: str) -> str | None:
        """A line the user typed (``''`` at the end of input); None when the user is gone."""

    def started(self, app: Agent, session_id: str) -> None:
        """The run's session is known: the front ends that show it may list this run as a watcher."""

    def answering(self, request_id: str) -> None:
        """This run answers the dialog ``request_id``: the other front ends may say so."""

    def answered_by(self, request_id: str) -> str | None:
        """Who answered ``request_id`` when the event does not say."""


class TerminalSeat:
    """The run's own terminal (in-process, or attached over TCP through ``core.remote``)."""

    def __init__(self) -> None:
        self.out: TextIO = sys.stdout
        self.err: TextIO = sys.stderr

    async def read_line(self, prompt: str) -> str | None:
        return await read_line(prompt)

    def started(self, app: Agent, session_id: str) -> None:
        # Attached, the editors that show the session list this run among its watchers (sent before
        # the prompt on the same connection, so not waited for: the run's start stays as fast).
        # (In-process ``show`` changes nothing: there is no other front end.)
        shown = asyncio.ensure_future(app.show([session_id]))
        shown.add_done_callback(lambda done: done.cancelled() or done.exception())

    def answering(self, request_id: str) -> None:
        del request_id  # the host tells the others itself when its dialogs are answered over the wire

    def answered_by(self, request_id: str) -> str | None:
        del request_id
        return None


async def drive(app: Agent, args: argparse.Namespace, seat: Seat, on_stop: StopHook) -> tuple[int, bool]:
    """Run the turn; its exit code (1: it ended with an error or needed a permission nobody could
    give) and whether SIGINT/SIGTERM stopped it (the code is then the shell's for that signal)."""
    args.refused = []
    work = asyncio.current_task()
    assert work is not None, "run inside a task"
    stopped: list[signal.Signals] = []

    def stop(sig: signal.Signals) -> None:
        if not stopped:  # cancelling aborts the turn, whose tool's process group is killed
            stopped.append(sig)
            work.cancel()

    undo = on_stop(stop)
    try:
        code = await turn(app, args, seat)
    except asyncio.CancelledError:
        if not stopped:
            raise
        work.uncancel()
        print(f"agentls: stopped by {stopped[0].name}", file=seat.err, flush=True)
        return exit_code(stopped[0]), True
    finally:
        undo()
    return (1 if args.refused else code), False


async def turn(app: Agent, args: argparse.Namespace, seat: Seat) -> int:
    """One prompt in a new or continued session, streamed to the seat's output."""
    if args.session:
        session = await app.get_session(args.session)
    elif args.cont:
        sessions = await app.list_sessions(limit=1)
        session = sessions[0] if sessions else await app.create_session()
    else:
        session = await app.create_session()
    transcript = Transcript(session.id, out=seat.out, err=seat.err)
    sub = app.subscribe()
    answers: set[asyncio.Task[None]] = set()

    asking: dict[str, asyncio.Task[None]] = {}

    async def pump() -> None:
        async for event in sub:
            transcript.handle(event)
            if isinstance(event, PermissionAsked):
                task = asyncio.create_task(_answer(app, event, args, seat))
                answers.add(task)
                asking[event.request.id] = task
                task.add_done_callback(answers.discard)
            elif isinstance(event, PermissionReplied) and (waiting := asking.pop(event.requestID, None)):
                if waiting.done():
                    continue
                waiting.cancel()  # answered in another front end attached to the same host
                by = event.by or seat.answered_by(event.requestID) or "another front end"
                print(f"\n  {event.reply}: answered in {by}", file=seat.out, flush=True)

    printer = asyncio.create_task(pump())
    seat.started(app, session.id)
    try:
        answer = await app.prompt(
            session.id, [TextInput(type="text", text=args.prompt)], agent=args.agent, model=args.model
        )
        # Background sub-agents the turn started report back in turns of their own: wait for them
        # (printed as they come) rather than stop them by exiting.
        await app.background_settled(session.id)
    except ConnectionLost as exc:  # attached over TCP (core.remote): the host went away
        print(f"\nagentls: {exc}: the turn ended with the host", file=seat.err)
        print(f"agentls: the host at {args.host} is not restarted from here", file=seat.err)
        return 1
    finally:
        printer.cancel()
        while (event := sub.get_nowait()) is not None:  # what the printer had not taken yet
            transcript.handle(event)
        sub.close()
        transcript.finish()
    info = answer.info
    if isinstance(info, AssistantMessage) and info.error is not None and info.error.name != "aborted":
        print(f"agentls: {info.error.message}", file=seat.err)
        return 1
    return 0


REPLIES: dict[str, Literal["once", "always"]] = {
    "y": "once",
    "yes": "once",
    "a": "always",
    "always": "always",
}


async def _answer(app: Agent, event: PermissionAsked, args: Any, seat: Seat) -> None:
    request = event.request
    reply: Literal["once", "always", "reject"]
    if args.yes:
        reply = "once"
    elif args.deny:
        reply = "reject"
    elif getattr(args, "no_terminal", False):
        reply = "reject"
        args.refused.append(request)
        print(_no_terminal(request.permission, request.patterns), file=seat.err, flush=True)
    else:
        text = await seat.read_line("  allow? [y]es / [a]lways / [n]o: ")
        if text is None:  # the run went away (kill -9): the dialog stays open for the other front ends
            return
        reply = REPLIES.get(text.strip().lower(), "reject")
    seat.answering(request.id)
    await app.dialogs.reply_permission(request.id, reply)


def _no_terminal(permission: str, patterns: list[str]) -> str:
    what = ", ".join(patterns)
    return (
        f"agentls: the agent needed permission for {permission} ({what}) and there is no terminal to "
        "ask on, so it was refused. Pass --yes to allow every request, or allow it in agentls.json: "
        f'"permission": {{"{permission}": "allow"}} (or "permission": "allow" for everything).'
    )
