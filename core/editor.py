"""The seam to the editor's language servers: what the connected editor can answer, and its answers.

A host whose editor runs language servers (the LSP server with a plugin client) passes an
``EditorIntelligence`` to ``open_agent``; the editor tools (``core/tools/editor.py``) ask it. The
core never learns how the question travels. ``supported()`` is asked before every step, so a client
that reconnects with other capabilities changes what the model is offered from the next step on.

Positions are 0-based lines and columns counted in characters (Python ``str`` indices); the host
converts them to whatever its protocol counts. A failure (the editor answered with an error, took
too long, went away) raises ``ToolError`` with a sentence the model can act on.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal, Protocol, runtime_checkable

from core.record import record

EditorQuery = Literal[
    "definition", "references", "hover", "documentSymbols", "workspaceSymbols", "diagnostics"
]
EDITOR_QUERIES: tuple[EditorQuery, ...] = (
    "definition",
    "references",
    "hover",
    "documentSymbols",
    "workspaceSymbols",
    "diagnostics",
)


@record
class EditorLocation:
    """A place in a file: 0-based line and column."""

    path: Path
    line: int
    column: int = 0


@record
class EditorSymbol:
    """A named symbol the editor knows, with where it is defined."""

    name: str
    kind: str
    location: EditorLocation
    container: str = ""


@record
class EditorDiagnostic:
    """A problem a language server reports for a file."""

    location: EditorLocation
    severity: str  # error | warning | information | hint
    message: str
    source: str = ""


@runtime_checkable
class EditorIntelligence(Protocol):
    """The editor's code intelligence, as the connected client answers it."""

    def supported(self) -> frozenset[EditorQuery]:
        """The queries the client currently connected says it can answer (empty: none, or no client)."""
        ...

    async def definition(self, at: EditorLocation) -> list[EditorLocation]:
        """Where the symbol at ``at`` is defined."""
        ...

    async def references(self, at: EditorLocation) -> list[EditorLocation]:
        """Where the symbol at ``at`` is used (its declaration included)."""
        ...

    async def hover(self, at: EditorLocation) -> str:
        """The hover text (type, signature, documentation) of the symbol at ``at``; empty: none."""
        ...

    async def document_symbols(self, path: Path) -> list[EditorSymbol]:
        """The symbols a file defines."""
        ...

    async def workspace_symbols(self, query: str) -> list[EditorSymbol]:
        """Symbols of the workspace whose names match ``query``."""
        ...

    async def diagnostics(self, path: Path) -> list[EditorDiagnostic]:
        """The problems the editor currently shows for a file."""
        ...
