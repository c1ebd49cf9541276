"""Whole frames from the client's stream, by the one header rule (``framing.Headers``), and the
``Pump`` that hands them on: the early phase (``early_reads``, before pygls is imported) starts it
and the full server takes it over (``lifecycle.serve_stdio``); TCP connections read frames with
``read_frame`` too. Standard library only.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from typing import BinaryIO

from lsp_server.framing import FramingError, Headers

log = logging.getLogger(__name__)


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


class Pump:
    """Reads the client's frames and hands each to ``deliver``, in order; at the end of the stream
    (or broken framing) calls ``ended(reason, code)`` once and stops.

    Both may be replaced while it runs (between two frames nothing else runs on the loop): the early
    phase takes the frames first, then the full server's dispatcher.
    """

    def __init__(
        self,
        reader: asyncio.StreamReader,
        deliver: Callable[[bytes], None],
        ended: Callable[[str, int], None],
    ) -> None:
        self.reader = reader
        self.deliver = deliver
        self.ended = ended

    async def run(self) -> None:
        """Until the end of the stream."""
        while True:
            try:
                body = await read_frame(self.reader)
            except FramingError as exc:
                self.ended(f"broken framing from the client: {exc}", 1)
                return
            if body is None:
                self.ended("the client closed stdin", 0)
                return
            try:
                self.deliver(body)
            except Exception:  # a bug; the reader must live on, or the server goes deaf for good
                log.exception("a message from the client could not be handled")
