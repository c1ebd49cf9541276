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
import threading
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, BinaryIO

from pygls.io_ import StdoutWriter

from core.stop_signals import on_stop_signals
from lsp_server.editor_process import PARENT_POLL_S, Pinned
from lsp_server.framing import FramingError, Headers
from lsp_server.handshake import AnsweredWriter, Early
from lsp_server.rpc import dispatch

if TYPE_CHECKING:
    from lsp_server.server import AgentServer

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


async def read_frame(reader: asyncio.StreamReader, first_line: bytes | None = None) -> bytes | None:
    """The body of the next message; None at a clean end of stream; FramingError for anything else.

    ``first_line``: the frame's first header line, when the caller already read it. The header
    rule is ``framing.Headers``, the early initialize read's too.
    """
    headers = Headers()
    started = False
    while True:
        if first_line is not None:
            line, first_line = first_line, None
        else:
            try:
                line = await reader.readline()
            except (ValueError, asyncio.LimitOverrunError) as exc:
                raise FramingError("a header line longer than the stream limit") from exc
        if not line:
            if started:
                raise FramingError("the stream ended inside a message header")
            return None
        started = True
        if headers.feed(line):
            break
    length = headers.length
    assert length is not None  # feed() ends the block only once it is known
    try:
        return await reader.readexactly(length)
    except asyncio.IncompleteReadError as exc:
        raise FramingError(f"the stream ended {length - len(exc.partial)} bytes into a message") from exc


async def open_stdin(stream: BinaryIO, pending: bytes = b"") -> asyncio.StreamReader:
    """An asyncio reader on ``stream``, starting with ``pending`` (bytes already read from it): a pipe
    is read by the loop, anything else by a daemon thread."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=1024 * 1024)
    if pending:
        reader.feed_data(pending)
    try:
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), stream)
        return reader
    except (ValueError, OSError):
        pass  # a regular file or an unusual fd: fall back to a thread that never blocks exit

    def pump() -> None:
        while chunk := stream.read1(65536) if hasattr(stream, "read1") else stream.read(65536):
            loop.call_soon_threadsafe(reader.feed_data, chunk)
        loop.call_soon_threadsafe(reader.feed_eof)

    threading.Thread(target=pump, name="agentls-stdin", daemon=True).start()
    return reader


async def pump_messages(reader: asyncio.StreamReader, server: AgentServer, lifetime: Lifetime) -> None:
    """Hand every frame to the protocol until EOF or broken framing."""
    while not lifetime.stopped.is_set():
        try:
            body = await read_frame(reader)
        except FramingError as exc:
            lifetime.stop(f"broken framing from the client: {exc}", code=1)
            return
        if body is None:
            lifetime.stop("the client closed stdin")
            return
        try:
            dispatch(server.protocol, body)
        except Exception:  # a bug; the reader must live on, or the server goes deaf for good
            log.exception("a message from the client could not be handled")


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
    server: AgentServer, stdin: BinaryIO, stdout: BinaryIO, early: Early | None = None
) -> int:
    """Serve one editor over stdin/stdout until one of the stop conditions; the exit code.

    ``early``: what was read (and answered) before the server existed (see ``handshake``).
    """
    lifetime = server.lifetime
    log.info("serving on stdio (pid %d)", os.getpid())
    reader = await open_stdin(stdin, early.pending if early else b"")
    if early is not None and early.body is not None:
        server.protocol.set_writer(AnsweredWriter(StdoutWriter(stdout), early))
        dispatch(server.protocol, early.body)  # the server's own state, from the answered initialize
    else:
        server.protocol.set_writer(StdoutWriter(stdout))
    undo_signals = install_signals(lifetime)
    pump = asyncio.create_task(pump_messages(reader, server, lifetime), name="agentls-stdin")
    pump.add_done_callback(_pump_ended(lifetime))
    try:
        await lifetime.stopped.wait()
    finally:
        undo_signals()
        pump.cancel()
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
