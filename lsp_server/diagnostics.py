"""The editor's diagnostics, as reported by the client with ``agent/diagnostics``, kept per file.

The edit and write tools ask for them right after a change: the client's own language servers need
a moment to re-check the file, so ``wait`` settles on the first report that arrives after the edit
(bounded by a timeout) instead of returning a stale one.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from dataclasses import dataclass, field
from pathlib import Path

from lsp_server.protocol import Diagnostic

log = logging.getLogger(__name__)

ERROR = 1  # LSP DiagnosticSeverity.Error


@dataclass
class _FileState:
    report_seq: int = 0
    edit_seq: int = 0
    items: list[Diagnostic] = field(default_factory=list)
    arrived: asyncio.Event = field(default_factory=asyncio.Event)


class DiagnosticsStore:
    """The latest report per file, and who is waiting for a fresh one."""

    def __init__(self) -> None:
        self._files: dict[Path, _FileState] = {}
        self._seq = itertools.count(1)
        # A client that never sends agent/diagnostics must not cost every edit a wait.
        self.client_reports = False

    def _state(self, path: Path) -> _FileState:
        return self._files.setdefault(path, _FileState())

    def report(self, path: Path, items: list[Diagnostic]) -> None:
        """Keep a client's report for ``path`` and wake anyone waiting for it."""
        self.client_reports = True
        state = self._state(path)
        state.items = list(items)
        state.report_seq = next(self._seq)
        state.arrived.set()
        state.arrived = asyncio.Event()

    def mark_edit(self, path: Path) -> None:
        """Note that the agent just changed ``path``: older reports no longer describe it."""
        self._state(path).edit_seq = next(self._seq)

    def current(self, path: Path) -> list[Diagnostic]:
        """The latest report for ``path`` (empty when none arrived)."""
        state = self._files.get(path)
        return list(state.items) if state else []

    async def wait(self, path: Path, timeout: float = 2.0) -> list[str]:
        """Error-level diagnostics of the first report newer than the last edit, as ``line:col message``.

        Returns [] when the client does not report diagnostics or no fresh report arrives in time
        (a report from before the edit would describe text that no longer exists).
        """
        if not self.client_reports:
            return []
        state = self._state(path)
        try:
            async with asyncio.timeout(timeout):
                while state.report_seq <= state.edit_seq:
                    await state.arrived.wait()
        except TimeoutError:
            log.debug("no diagnostics for %s within %.1fs of the edit", path, timeout)
            return []
        return [format_diagnostic(d) for d in state.items if d.severity in (None, ERROR)]


def format_diagnostic(diagnostic: Diagnostic) -> str:
    """``line:col message`` with 1-based line and column, as a model reads it next to line numbers."""
    start = diagnostic.range.start
    source = f" [{diagnostic.source}]" if diagnostic.source else ""
    return f"{start.line + 1}:{start.character + 1} {diagnostic.message}{source}"
