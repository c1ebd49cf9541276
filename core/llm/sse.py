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
        """The events completed by ``chunk``.

        The complete lines are decoded together, once per chunk (a chunk holds many events); a
        line's end is a byte no UTF-8 sequence contains, so a character split across two chunks
        waits whole in the buffer.
        """
        complete, newline, self._buffer = (self._buffer + chunk).rpartition(b"\n")
        if not newline:  # no line ended yet: all of it is the buffer now
            return []
        out: list[tuple[str, str]] = []
        data = self._data
        for line in complete.decode("utf-8", "replace").split("\n"):
            if line.endswith("\r"):
                line = line[:-1]
            if line.startswith("data:"):
                value = line[5:]
                data.append(value[1:] if value.startswith(" ") else value)
            elif not line:
                if data:
                    out.append((self._event, "\n".join(data)))
                    data.clear()
                self._event = ""
            elif line.startswith("event:"):
                self._event = line[6:].strip()
            # ``id:``, ``retry:`` and ``:comment`` lines carry nothing a model stream needs.
        return out

    def close(self) -> list[tuple[str, str]]:
        """The last event when the stream ended without its blank line."""
        pending = self.feed(b"\n\n") if self._buffer or self._data else []
        self._buffer = b""
        return pending
