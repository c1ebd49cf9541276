"""The one rule for a message's header block (``Content-Length`` framing), for every path that reads
one: the early ``initialize`` read (``handshake``, before pygls loads) and the server's own reader
(``lifecycle``, also over TCP). Two readers with their own rules disagreed: the early one took the
last of two different ``Content-Length`` headers, the other refused them (issue #43).

Header names are case-insensitive; lines end in CRLF or LF; a repeated ``Content-Length`` must
repeat the same number; anything that is not ``Name: value`` ends the stream.
Standard library only, and cheap: the early ``initialize`` answer imports it.
"""

from __future__ import annotations

import re

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
