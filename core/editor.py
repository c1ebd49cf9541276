"""The seam to the editor's language servers: what the connected editor can answer, and its answers.

A host whose editor runs language servers (the LSP server with a plugin client) passes an
``EditorIntelligence`` to ``open_agent``; the editor tools (``core/tools/editor.py``) ask it. The
core never learns how the question travels. ``supported()`` is asked before every step, so a client
that reconnects with other capabilities changes what the model is offered from the next step on.

Positions are 0-based lines and columns counted in characters (Python ``str`` indices); the host
converts them to whatever its protocol counts. A failure (the editor answered with an error, took
too long, went away) raises ``ToolError`` with a sentence the model can act on.

The refactoring queries (rename, code actions, format) only compute: the editor answers with the
text edits its language servers propose, and the agent applies them like any edit of its own
(``core/tools/refactor.py``) — permission with the diff, review hunks, snapshots. The one exception
is a code action's command, which the editor runs itself (``run_command``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal, Protocol, runtime_checkable

from core.record import record

EditorQuery = Literal[
    "definition",
    "references",
    "hover",
    "documentSymbols",
    "workspaceSymbols",
    "diagnostics",
    "rename",
    "codeActions",
    "format",
]
EDITOR_QUERIES: tuple[EditorQuery, ...] = (
    "definition",
    "references",
    "hover",
    "documentSymbols",
    "workspaceSymbols",
    "diagnostics",
    "rename",
    "codeActions",
    "format",
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


@record
class EditorTextEdit:
    """Replace the text from ``start`` to ``end`` (0-based lines, columns in characters) by ``text``."""

    start: tuple[int, int]
    end: tuple[int, int]
    text: str


@record
class EditorFileEdit:
    """The edits a language server proposes for one file."""

    path: Path
    edits: tuple[EditorTextEdit, ...]


@record
class EditorCodeAction:
    """A quick fix, refactor or source action a language server offers for a range."""

    title: str
    kind: str = ""
    preferred: bool = False
    disabled: str = ""  # why it cannot be applied now; empty: it can
    diagnostics: tuple[str, ...] = ()  # the messages of the problems it fixes


@record
class EditorActionEdit:
    """A chosen code action, resolved: its edit and whether it also runs a command."""

    title: str
    kind: str
    edits: tuple[EditorFileEdit, ...]
    command: str = ""  # the command's title; empty: none
    token: str = ""  # what ``run_command`` names it by


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

    async def rename(self, at: EditorLocation, new_name: str) -> list[EditorFileEdit]:
        """The edits that rename the symbol at ``at`` to ``new_name`` in every file."""
        ...

    async def code_actions(
        self, path: Path, lines: tuple[int, int], only: tuple[str, ...] = ()
    ) -> list[EditorCodeAction]:
        """The code actions offered for 0-based ``lines`` (first, last) of a file, of kinds ``only``."""
        ...

    async def code_action(
        self, path: Path, lines: tuple[int, int], title: str, only: tuple[str, ...] = ()
    ) -> EditorActionEdit | None:
        """The action titled ``title`` (or, empty, the first of kinds ``only``), resolved; None: gone."""
        ...

    async def run_command(self, token: str) -> list[Path]:
        """Run the command of a resolved action; the files it changed (the editor saved them)."""
        ...

    async def format(self, path: Path, lines: tuple[int, int] | None) -> list[EditorTextEdit]:
        """The edits that format a file (``lines``: only those, 0-based first and last) as the user set."""
        ...
