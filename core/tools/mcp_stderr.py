"""What a local MCP server writes to stderr: passed on to agentls's own stderr (the log) as before,
and its last lines kept, so a server that fails to start or dies says why in the servers view
instead of the SDK's bare "Connection closed"."""

from __future__ import annotations

import os
import sys
import threading
from collections import deque
from typing import TextIO

TAIL_LINES = 5


class StderrTail:
    """A pipe for a server's stderr; a thread forwards each line and keeps the last ones."""

    def __init__(self, name: str) -> None:
        read_fd, write_fd = os.pipe()
        self.writer: TextIO = os.fdopen(write_fd, "w", buffering=1, encoding="utf-8", errors="replace")
        self._reader = os.fdopen(read_fd, encoding="utf-8", errors="replace")
        self._lines: deque[str] = deque(maxlen=TAIL_LINES)
        self._thread = threading.Thread(target=self._pump, name=f"mcp-stderr:{name}", daemon=True)
        self._thread.start()

    def _pump(self) -> None:
        with self._reader:
            for line in self._reader:  # ends when every write end is closed (ours and the server's)
                sys.stderr.write(line)
                if line.strip():
                    self._lines.append(line.rstrip()[:300])

    def tail(self) -> str:
        """The server's last lines on stderr, joined ("" when it wrote none)."""
        return " | ".join(self._lines)

    def close(self) -> None:
        """Close our write end once the server has its own (the thread ends when the server's
        closes: when it exits)."""
        self.writer.close()

    def wait(self, timeout: float) -> None:
        """Wait (in a thread) until the server's stderr is read to its end, at most ``timeout`` s."""
        self._thread.join(timeout)
