"""Content-Encoding of HTTP answers, decoded as httpx decodes it: ``gzip`` and ``deflate``
(zlib-wrapped as the RFC says, or raw as some servers send it), several stacked in the order listed
(``gzip, gzip``, or one per header line), and encodings it does not know passed through as is."""

from __future__ import annotations

import zlib
from typing import Protocol


class Decoder(Protocol):
    """Turns encoded body bytes into plain ones, a network read at a time; raises ``zlib.error``."""

    def decompress(self, data: bytes) -> bytes: ...

    def flush(self) -> bytes: ...


class _Gzip:
    def __init__(self) -> None:
        self._zlib = zlib.decompressobj(16 + zlib.MAX_WBITS)

    def decompress(self, data: bytes) -> bytes:
        return self._zlib.decompress(data)

    def flush(self) -> bytes:
        return self._zlib.flush()


class _Deflate:
    """zlib-wrapped (or gzip) data, else raw deflate: decided by the first bytes, as httpx does."""

    def __init__(self) -> None:
        self._zlib = zlib.decompressobj(32 + zlib.MAX_WBITS)  # a zlib or a gzip header
        self._started = False

    def decompress(self, data: bytes) -> bytes:
        if self._started:
            return self._zlib.decompress(data)
        self._started = bool(data)
        try:
            return self._zlib.decompress(data)
        except zlib.error:
            self._zlib = zlib.decompressobj(-zlib.MAX_WBITS)  # no header at all: raw deflate
            return self._zlib.decompress(data)

    def flush(self) -> bytes:
        return self._zlib.flush()


class _Chain:
    """Several encodings: the last one applied is undone first."""

    def __init__(self, decoders: list[Decoder]) -> None:
        self._decoders = decoders

    def decompress(self, data: bytes) -> bytes:
        for decoder in self._decoders:
            data = decoder.decompress(data)
        return data

    def flush(self) -> bytes:
        data = b""
        for decoder in self._decoders:
            data = decoder.decompress(data) + decoder.flush() if data else decoder.flush()
        return data


def decoder_for(content_encoding: str) -> Decoder | None:
    """The decoder for a ``Content-Encoding`` value (repeated headers joined with ", "), or None
    when the body is to be read as it is."""
    decoders: list[Decoder] = []
    for name in (part.strip().lower() for part in content_encoding.split(",")):
        if name in ("gzip", "x-gzip"):
            decoders.append(_Gzip())
        elif name == "deflate":
            decoders.append(_Deflate())
        # identity, or one we never asked for (we send accept-encoding: gzip, deflate): as is
    if not decoders:
        return None
    decoders.reverse()
    return decoders[0] if len(decoders) == 1 else _Chain(decoders)
