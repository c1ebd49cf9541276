"""What a running tool may know and do: ids, the abort signal, the workspace, permission and updates."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from core.editor import EditorIntelligence
from core.message.models import Todo
from core.permission.request import PermissionAsk
from core.permission.rules import Ruleset
from core.record import record, struct
from core.workspace import EditContext, Workspace

if TYPE_CHECKING:
    from core.question.service import Questions
    from core.sandbox.sandbox import Sandbox
    from core.tools.shells import BackgroundShells

DEFAULT_MAX_LINES = 2000
DEFAULT_MAX_BYTES = 51200

AskFn = Callable[[PermissionAsk], Awaitable[None]]
UpdateFn = Callable[[str | None, dict[str, Any]], None]


class TodoStore(Protocol):
    """Where a session's todo list lives (the sessions service; it publishes ``todo.updated``)."""

    async def get_todos(self, session_id: str) -> list[Todo]: ...
    async def set_todos(self, session_id: str, todos: list[Todo]) -> None: ...


@record
class SubtaskResult:
    """The subagent's final answer and the child session it ran in."""

    session_id: str
    text: str


class SubtaskRunner(Protocol):
    """Runs a subagent in a child session (the app's subtasks, handed to each call's context)."""

    def describe_subagents(self) -> list[tuple[str, str]]: ...

    async def run_subtask(
        self, ctx: ToolContext, agent: str, prompt: str, description: str, task_id: str | None
    ) -> SubtaskResult: ...

    async def start_background(
        self, ctx: ToolContext, agent: str, prompt: str, description: str, task_id: str | None
    ) -> str:
        """Start the subagent beside the caller's turn; the child session's id (its result comes later)."""


def no_claims(paths: Sequence[Path]) -> None:
    # A context outside a session's team of writers (tests, a bare runner): no file is anyone's.
    return None


def _no_update(title: str | None, metadata: dict[str, Any]) -> None:
    # Live updates are a courtesy to the UI; a context without a listener loses nothing by dropping them.
    return None


@struct(kw_only=True)
class ToolContext:
    """The per-call context the loop hands to a tool.

    ``ask`` has no default on purpose: a tool must never run without someone deciding its permissions,
    so a context without a permission service has to say so explicitly (tests pass an allow-all ``ask``).
    ``ask`` raises ``PermissionDeniedError`` / ``PermissionRejectedError``; tools let them propagate.
    The services some tools use (todos, questions, subtasks, the editor) are None where a session has none:
    the tool then tells the model so.
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
    ruleset: Ruleset = field(default_factory=list)  # the rules this call is judged by
    todos: TodoStore | None = None
    questions: Questions | None = None
    subtasks: SubtaskRunner | None = None
    editor: EditorIntelligence | None = None  # the editor's language servers, where a host has them
    sandbox: Sandbox | None = None  # what confines the commands a tool runs (None: nothing, as in full mode)
    shells: BackgroundShells | None = None  # commands started with bash background: true
    # Claims the files a change of several is about to write, or raises ToolError with who holds
    # one (core.session.claims): checked before the first write, so a refused change writes none.
    claim: Callable[[Sequence[Path]], None] = no_claims

    @property
    def output_dir(self) -> Path:
        """Where full outputs of truncated tool calls are kept."""
        return self.data_dir / "tool-output"

    def edit_context(self, label: str, approved: bool = False) -> EditContext:
        """The ``EditContext`` for a write made by this call (the editor's undo label; ``approved``:
        the user accepted this change in its permission dialog)."""
        return EditContext(
            label=label,
            session_id=self.session_id,
            message_id=self.message_id,
            call_id=self.call_id,
            approved=approved,
        )
