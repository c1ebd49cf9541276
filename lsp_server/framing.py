"""The one rule for a message's header block (``Content-Length`` framing), for every path that reads
one: the early ``initialize`` read (``handshake``, before pygls loads) and the server's own reader
(``lifecycle``, also over TCP). Two readers with their own rules disagreed: the early one took the
last of two different ``Content-Length`` headers, the other refused them (issue #43).

Header names are case-insensitive; lines end in CRLF or LF; a repeated ``Content-Length`` must
repeat the same number; anything that is not ``Name: value`` ends the stream.

Also here: the reader of whole frames from stdin and the ``Pump`` that hands them on, which the
early phase (``early_reads``, before pygls is imported) starts and the full server takes over.
Standard library only.
"""

from __future__ import annotations

import asyncio
import logging
import re
import threading
from collections.abc import Callable
from typing import BinaryIO

log = logging.getLogger(__name__)

MAX_FRAME = 256 * 1024 * 1024
_HEADER_NAME = re.compile(rb"[A-Za-z][A-Za-z0-9-]*")


class FramingError(Exception):
    """The byte stream is not ``Content-Length``-framed JSON-RPC: nothing after it can be trusted."""


class Headers:
    """One message's header block, fed a line at a time."""

    def __init__(self) -> None:
        self.length: int | None = None

    def feed(self, line: bytes) -> bool:
        """Take one header line (with its line end); True at the blank line that ends the block,
        once ``length`` is known. FramingError names what is wrong."""
        if line in (b"\r\n", b"\n"):
            if self.length is None:
                raise FramingError("a message without a Content-Length header")
            return True
        name, colon, value = line.partition(b":")
        if not colon or not _HEADER_NAME.fullmatch(name.strip()):
            raise FramingError(f"not a header line: {line[:80]!r}")
        if name.strip().lower() == b"content-length":
            text = value.strip()
            if not text.isdigit() or int(text) > MAX_FRAME:
                raise FramingError(f"bad Content-Length: {text[:40]!r}")
            if self.length is not None and self.length != int(text):
                raise FramingError(f"two different Content-Length headers: {self.length} and {int(text)}")
            self.length = int(text)
        return False


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
