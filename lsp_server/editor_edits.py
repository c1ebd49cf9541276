"""The refactoring answers of ``agent/editorQuery`` (rename, code actions, format), read into ``core.editor``.

The client answers with text edits in LSP positions (columns in the negotiated ``positionEncoding``);
they become columns in characters of the file's text as the server holds it, which is also the text
the agent applies them to. An edit that also creates, renames or deletes files is refused whole:
the agent applies text changes only, and a half-applied rename is worse than none.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from core.editor import EditorActionEdit, EditorCodeAction, EditorFileEdit, EditorTextEdit
from core.errors import ToolError
from core.message.prompt_input import Range
from lsp_server.protocol import describe
from lsp_server.workspace import path_of

MAX_EDITS = 20_000  # text edits in one answer; a rename of a name used more often is refused


class _Wire(BaseModel):
    model_config = ConfigDict(extra="ignore")


class WireTextEdit(_Wire):
    range: Range
    newText: str


class WireFileEdits(_Wire):
    uri: str
    edits: list[WireTextEdit]


class WireFileOperation(_Wire):
    kind: str
    uri: str


class WireEdit(_Wire):
    changes: list[WireFileEdits] = []
    fileOperations: list[WireFileOperation] = []


class WireCodeAction(_Wire):
    title: str
    kind: str = ""
    isPreferred: bool = False
    disabled: str = ""
    diagnostics: list[str] = []


class WireCommand(_Wire):
    title: str = ""
    command: str


class WireResolvedAction(_Wire):
    title: str
    kind: str = ""
    edit: WireEdit | None = None
    command: WireCommand | None = None
    token: str = ""


class WireRan(_Wire):
    changed: list[str] = []


def read_answer(model: type[BaseModel], value: Any, query: str) -> Any:
    """``value`` validated as ``model``; a ToolError naming what is wrong."""
    try:
        return model.model_validate(value)
    except ValidationError as exc:
        raise ToolError(
            f"the editor's answer to the {query} query could not be read: {describe(exc)}"
        ) from exc


def actions(value: Any) -> list[EditorCodeAction]:
    """The code actions a ``codeActions`` answer lists."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise ToolError("the editor's answer to the codeActions query could not be read: expected a list")
    out = []
    for item in value:
        action: WireCodeAction = read_answer(WireCodeAction, item, "codeActions")
        out.append(
            EditorCodeAction(
                title=action.title,
                kind=action.kind,
                preferred=action.isPreferred,
                disabled=action.disabled,
                diagnostics=tuple(action.diagnostics),
            )
        )
    return out


Chars = Callable[[Path, int, int], Awaitable[int]]  # (file, line, column in client units) -> characters


async def text_edits(uri: str, edits: list[WireTextEdit], chars: Chars, query: str) -> EditorFileEdit:
    """One file's wire edits as ``core.editor`` edits."""
    path = path_of(uri)
    if path is None:
        raise ToolError(f"the editor's {query} edit changes {uri}, which is not a file; nothing was changed.")
    out = []
    for edit in edits:
        start, end = edit.range.start, edit.range.end
        out.append(
            EditorTextEdit(
                start=(start.line, await chars(path, start.line, start.character)),
                end=(end.line, await chars(path, end.line, end.character)),
                text=edit.newText,
            )
        )
    return EditorFileEdit(path, tuple(out))


async def workspace_edit(edit: WireEdit, chars: Chars, query: str) -> list[EditorFileEdit]:
    """A wire workspace edit as text edits per file; one with file operations is refused whole."""
    if edit.fileOperations:
        ops = ", ".join(f"{op.kind} {op.uri}" for op in edit.fileOperations[:5])
        raise ToolError(
            f"the {query} edit the language server proposes also changes files themselves ({ops}); "
            "agentls applies text changes only, so nothing was changed. Make that change with edit, "
            "write and bash instead."
        )
    if sum(len(f.edits) for f in edit.changes) > MAX_EDITS:
        raise ToolError(f"the {query} edit has more than {MAX_EDITS} changes; nothing was changed.")
    return [await text_edits(f.uri, f.edits, chars, query) for f in edit.changes]


async def resolved(value: Any, chars: Chars) -> EditorActionEdit | None:
    """A ``codeAction`` answer: the chosen action with its edit, None when it is no longer offered."""
    if value is None:
        return None
    action: WireResolvedAction = read_answer(WireResolvedAction, value, "codeAction")
    edits = await workspace_edit(action.edit, chars, "code action") if action.edit else []
    command = action.command.title or action.command.command if action.command else ""
    if command and not action.token:
        raise ToolError(
            "the editor's answer to the codeAction query could not be read: a command without a token"
        )
    return EditorActionEdit(action.title, action.kind, tuple(edits), command, action.token if command else "")


def ran(value: Any) -> list[Path]:
    """The files a ``runCommand`` answer says the command changed."""
    answer: WireRan = read_answer(WireRan, value or {}, "runCommand")
    return [p for p in (path_of(uri) for uri in answer.changed) if p is not None]
