"""What a running tool may know and do: ids, the abort signal, the workspace, permission and updates."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.permission.request import PermissionAsk
from core.workspace import EditContext, Workspace

DEFAULT_MAX_LINES = 2000
DEFAULT_MAX_BYTES = 51200

AskFn = Callable[[PermissionAsk], Awaitable[None]]
UpdateFn = Callable[[str | None, dict[str, Any]], None]


def _no_update(title: str | None, metadata: dict[str, Any]) -> None:
    # Live updates are a courtesy to the UI; a context without a listener loses nothing by dropping them.
    return None


@dataclass(kw_only=True)
class ToolContext:
    """The per-call context the loop hands to a tool.

    ``ask`` has no default on purpose: a tool must never run without someone deciding its permissions,
    so a context without a permission service has to say so explicitly (tests pass an allow-all ``ask``).
    ``ask`` raises ``PermissionDeniedError`` / ``PermissionRejectedError``; tools let them propagate.
    """

    session_id: str
    message_id: str
    call_id: str
    agent: str
    abort: asyncio.Event
    workspace: Workspace
    directory: Path
    worktree: Path
    data_dir: Path
    ask: AskFn
    update: UpdateFn = _no_update
    max_lines: int = DEFAULT_MAX_LINES
    max_bytes: int = DEFAULT_MAX_BYTES
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def output_dir(self) -> Path:
        """Where full outputs of truncated tool calls are kept."""
        return self.data_dir / "tool-output"

    def edit_context(self, label: str) -> EditContext:
        """The ``EditContext`` for a write made by this call (the editor's undo label)."""
        return EditContext(
            label=label, session_id=self.session_id, message_id=self.message_id, call_id=self.call_id
        )
