"""When a plain client's dialog may be shown, and which answers to it count.

Stock Neovim asks ``window/showMessageRequest`` with ``inputlist()``, which reads the typeahead and
ignores every key but digits, Enter, Esc and ``q``: a user typing ``n = 1`` and Enter in a buffer
when the dialog pops up has answered "1. Allow once" without seeing it. The plugin client guards its
dialogs in the editor (``agentls.gate``); a stock client runs no code of ours, so the server guards:

- it does not ask while the user types (a ``textDocument/didChange`` came within ``QUIET`` seconds;
  Neovim sends one at most every 150 ms while text changes), and says that a dialog waits when the
  typing goes on past ``NOTICE_AFTER``;
- for a client whose dialog reads the typeahead (``dialogMinRead``: Neovim by default), an answer that
  comes back sooner than anyone can read the dialog was typed ahead: it is not taken, and the dialog
  is asked again once the user pauses.
"""

from __future__ import annotations

import asyncio
import time

QUIET = 0.7  # seconds without a text change before a dialog is asked
NOTICE_AFTER = 1.5  # seconds of holding a dialog back before the user is told it waits
REASK_MAX = 5.0  # the longest wait before asking again after answers typed ahead


class TypingGate:
    """The time of the client's last text change, and a wait for the user to pause."""

    def __init__(self, quiet: float = QUIET) -> None:
        self.quiet = quiet
        self._last = -float("inf")  # monotonic time of the last didChange
        self._changed = asyncio.Event()

    def typed(self) -> None:
        """A ``textDocument/didChange`` arrived: the user is typing."""
        self._last = time.monotonic()
        self._changed.set()

    def typing(self) -> bool:
        """Whether the last text change is less than ``quiet`` seconds old."""
        return time.monotonic() - self._last < self.quiet

    async def pause(self, at_least: float = 0.0) -> None:
        """Return once ``quiet`` seconds passed without a text change, and ``at_least`` from now."""
        start = time.monotonic()
        while True:
            now = time.monotonic()
            due = max(self._last + self.quiet, start + at_least)
            if now >= due:
                return
            self._changed.clear()
            try:
                # Woken early by a change only to compute the new due time; a timeout is the pause.
                async with asyncio.timeout(due - now):
                    await self._changed.wait()
            except TimeoutError:
                pass


def reask_after(refused: int, quiet: float = QUIET) -> float:
    """Seconds to hold a dialog back after ``refused`` answers in a row were typed ahead: ``quiet``,
    doubling each time, at most ``REASK_MAX``. The server cannot see typing in a buffer it does not
    manage, so a dialog asked again every ``quiet`` seconds would pop up under the user's keys (and
    swallow some) for as long as they type; each refusal waits longer."""
    if refused <= 0:
        return 0.0
    return min(quiet * 2.0 ** (refused - 1), REASK_MAX)


def typed_ahead(asked_at: float, answered_at: float, min_read: float) -> bool:
    """Whether an answer came too soon after its dialog to have been read (``min_read`` 0: never)."""
    return min_read > 0 and answered_at - asked_at < min_read
