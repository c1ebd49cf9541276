"""How ``agentls serve`` lives and dies on stdio: frames, the editor's process, signals, a clean close.

pygls' own stdio loop keeps the process alive after its editor is gone (a thread blocked on stdin and
the store's thread hold the interpreter), answers nothing after a broken frame, and logs a traceback
for every malformed message. Here the server reads frames itself and stops on stdin EOF, on the death
of the ``processId`` given in ``initialize``, on SIGTERM or SIGINT, on ``exit`` and on broken framing
(with the reason logged, so the editor restarts it); then it closes the agent — turns aborted, tool
process groups killed, deltas flushed, the store closed — and the process ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, BinaryIO

from pygls.io_ import StdoutWriter

from core.stop_signals import on_stop_signals
from lsp_server.editor_process import PARENT_POLL_S, Pinned
from lsp_server.frame_reader import Pump, open_stdin, read_frame
from lsp_server.handshake import AnsweredWriter, Early
from lsp_server.rpc import dispatch

if TYPE_CHECKING:
    from lsp_server.early_reads import EarlyReads
    from lsp_server.server import AgentServer

__all__ = ["read_frame", "serve_stdio"]  # read_frame: tcp reads frames by the same rule

log = logging.getLogger(__name__)

# Closing the agent normally takes milliseconds; a wedged close must not keep the process alive.
CLOSE_BUDGET_S = 5.0


@dataclass
class Lifetime:
    """Why and with which exit code the server stops; set once, by whoever notices first."""

    stopped: asyncio.Event = field(default_factory=asyncio.Event)
    reason: str = ""
    code: int = 0

    def stop(self, reason: str, code: int = 0) -> None:
        """Ask the server to close and exit (the first reason wins)."""
        if self.stopped.is_set():
            return
        self.reason, self.code = reason, code
        log.log(logging.ERROR if code else logging.INFO, "stopping: %s", reason)
        self.stopped.set()


def _pump_ended(lifetime: Lifetime) -> Callable[[asyncio.Task[None]], None]:
    """A reader that dies (rather than returning) stops the server instead of leaving it deaf."""

    def done(task: asyncio.Task[None]) -> None:
        if not task.cancelled() and (exc := task.exception()) is not None:
            log.error("the reader of the client's messages failed", exc_info=exc)
            lifetime.stop("the reader of the client's messages failed", code=1)

    return done


async def watch_process(editor: Pinned, lifetime: Lifetime, interval: float = PARENT_POLL_S) -> None:
    """Stop the server when the editor process (initialize ``processId``) is gone: at once when its
    pidfd becomes readable, else by polling every ``interval`` seconds (see editor_process)."""
    if editor.fd is not None:
        exited = asyncio.Event()
        loop = asyncio.get_running_loop()
        loop.add_reader(editor.fd, exited.set)
        try:
            await _first(exited.wait(), lifetime.stopped.wait())
        finally:
            loop.remove_reader(editor.fd)
    else:
        while not editor.gone() and not lifetime.stopped.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(lifetime.stopped.wait(), interval)
    if not lifetime.stopped.is_set():
        lifetime.stop(f"the editor process {editor.pid} is gone")


async def _first(*waits: Coroutine[Any, Any, Any]) -> None:
    tasks = [asyncio.ensure_future(w) for w in waits]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()


def install_signals(lifetime: Lifetime) -> Callable[[], None]:
    """SIGTERM and SIGINT both close the server cleanly (as they stop `agentls run`); returns the undo."""
    return on_stop_signals(lambda sig: lifetime.stop(f"signal {sig.name}"))


async def close_server(server: AgentServer, budget: float = CLOSE_BUDGET_S) -> None:
    """Close the agent within ``budget`` seconds, then cancel whatever background work is left."""
    try:
        async with asyncio.timeout(budget):
            await server.close_app()
    except TimeoutError:
        log.error("closing the agent took longer than %.0f s; leaving anyway", budget)
    except Exception:
        log.exception("closing the agent failed")
    await server.cancel_tasks()


async def serve_stdio(
    server: AgentServer,
    stdin: BinaryIO,
    stdout: BinaryIO,
    early: Early | None = None,
    handed: EarlyReads | None = None,
) -> int:
    """Serve one editor over stdin/stdout until one of the stop conditions; the exit code.

    ``early``: what was read (and answered) before the server existed (see ``handshake``);
    ``handed``: the early phase that answered the chat's first reads meanwhile (``early_reads``),
    whose reader goes on and whose frames it did not answer come first, in order.
    """
    lifetime = server.lifetime
    log.info("serving on stdio (pid %d)", os.getpid())
    if handed is None:
        reader = await open_stdin(stdin, early.pending if early else b"")
        pump = Pump(reader, lambda body: None, lifetime.stop)
        reading = asyncio.create_task(pump.run(), name="agentls-stdin")
    else:
        assert handed.pump is not None and handed.task is not None  # (started)
        pump, reading = handed.pump, handed.task
        handed.prepare(server)  # the project it opened, before `initialized` reaches the server
    if early is not None and early.body is not None:
        server.protocol.set_writer(AnsweredWriter(StdoutWriter(stdout), early))
        dispatch(server.protocol, early.body)  # the server's own state, from the answered initialize
    else:
        server.protocol.set_writer(StdoutWriter(stdout))

    def deliver(body: bytes) -> None:
        dispatch(server.protocol, body)

    # From here every frame goes to the server: first the early phase's, in order, then the rest.
    frames, ended = handed.release() if handed else ([], None)
    pump.deliver, pump.ended = deliver, lifetime.stop
    for body in frames:
        try:
            deliver(body)
        except Exception:  # as Pump does: one bad message never silences the rest
            log.exception("a message from the client could not be handled")
    if ended is not None:
        lifetime.stop(*ended)
    undo_signals = install_signals(lifetime)
    reading.add_done_callback(_pump_ended(lifetime))
    try:
        await lifetime.stopped.wait()
    finally:
        undo_signals()
        reading.cancel()
        server.connection.connected = False  # nothing more goes to a client that left
        await close_server(server)
    log.info("agentls serve exits (%s)", lifetime.reason)
    return lifetime.code


def run_stdio(server: AgentServer, early: Early | None = None) -> int:
    """``agentls serve`` on stdio: returns only in tests; the real command ends with ``exit_now``."""
    return asyncio.run(serve_stdio(server, sys.stdin.buffer, sys.stdout.buffer, early))


def as_int(value: Any) -> int | None:
    """A JSON integer (not a bool), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None
