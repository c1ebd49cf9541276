"""Incremental server-sent-events decoding over raw byte chunks."""

from __future__ import annotations


class SSEDecoder:
    """Feed byte chunks as they arrive; get back ``(event, data)`` for every complete event."""

    __slots__ = ("_buffer", "_data", "_event")

    def __init__(self) -> None:
        self._buffer = b""
        self._event = ""
        self._data: list[str] = []

    def feed(self, chunk: bytes) -> list[tuple[str, str]]:
        """The events completed by ``chunk`` (lines are split before decoding, so UTF-8 stays whole)."""
        lines = (self._buffer + chunk).split(b"\n")
        self._buffer = lines.pop()
        out: list[tuple[str, str]] = []
        for raw in lines:
            line = raw.decode("utf-8", "replace")
            if line.endswith("\r"):
                line = line[:-1]
            if not line:
                if self._data:
                    out.append((self._event, "\n".join(self._data)))
                    self._data = []
                self._event = ""
            elif line.startswith("data:"):
                value = line[5:]
                self._data.append(value[1:] if value.startswith(" ") else value)
            elif line.startswith("event:"):
                self._event = line[6:].strip()
            # ``id:``, ``retry:`` and ``:comment`` lines carry nothing a model stream needs.
        return out

    def close(self) -> list[tuple[str, str]]:
        """The last event when the stream ended without its blank line."""
        pending = self.feed(b"\n\n") if self._buffer or self._data else []
        self._buffer = b""
        return pending
