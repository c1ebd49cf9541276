"""A core tool part as ACP ``tool_call`` / ``tool_call_update``: kind, title, locations, content.

Kinds let the client pick icons and group calls; locations let it follow the agent through the
files (to the line an edit changed, ``edit_lines``); edits carry ``diff`` content with the full old
and new text when the write went through this front end (else the edit's own old/new strings), and
bash carries its output as it streams. A call is titled by what it does to which file ("Edit
src/app.py") and announced once its input is known: a call still being written by the model has no
path to show.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any, Literal

from acp.schema import (
    ContentToolCallContent,
    FileEditToolCallContent,
    TerminalToolCallContent,
    TextContentBlock,
    ToolCallLocation,
    ToolCallProgress,
    ToolCallStart,
)

from acp_server.edit_lines import diff_line, first_changed_line
from acp_server.workspace import Written
from core.message.models import ToolPart

ToolKind = Literal[
    "read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other"
]
Status = Literal["pending", "in_progress", "completed", "failed"]
Content = ContentToolCallContent | FileEditToolCallContent | TerminalToolCallContent

KINDS: dict[str, ToolKind] = {
    "read": "read",
    "edit": "edit",
    "write": "edit",
    "glob": "search",
    "grep": "search",
    "list": "search",
    "bash": "execute",
    "webfetch": "fetch",
    "todowrite": "think",
    "todoread": "think",
    "task": "think",
    "skill": "read",
}
STATUS: dict[str, Status] = {
    "pending": "pending",
    "running": "in_progress",
    "completed": "completed",
    "error": "failed",
}
# File tools titled "<verb> <path>", the path relative to the project when it is inside it.
FILE_VERBS = {"read": "Read", "edit": "Edit", "write": "Write", "list": "List"}
BASH_KINDS: dict[str, ToolKind] = {"rm": "delete", "rmdir": "delete", "unlink": "delete", "mv": "move"}
# What a client is sent of a tool's text output: enough to read, not a whole log file per update.
MAX_SHOWN = 20_000


def kind_of(tool: str, args: dict[str, Any]) -> ToolKind:
    """The ACP kind of a call; a bash ``rm``/``mv`` is a delete/move, so clients can flag it."""
    if tool == "bash":
        try:
            words = shlex.split(str(args.get("command", "")))
        except ValueError:
            words = []
        first = Path(words[0]).name if words else ""
        return BASH_KINDS.get(first, "execute")
    return KINDS.get(tool, "other")


def title_of(part: ToolPart, root: Path) -> str:
    """What a file tool does to which file; else the state's title when the tool gave one, else a
    short description from its input."""
    state = part.state
    args = state.input
    verb = FILE_VERBS.get(part.tool)
    raw = args.get("filePath") or args.get("path")
    if verb is not None and isinstance(raw, str) and raw:
        return f"{verb} {_shown(raw, root)}"
    title = getattr(state, "title", None)
    if title:
        return str(title)
    for key in ("description", "filePath", "pattern", "path", "url", "command"):
        if isinstance(args.get(key), str) and args[key]:
            return f"{part.tool} {args[key]}"
    return part.tool


def locations_of(part: ToolPart, root: Path, written: list[Written] | None = None) -> list[ToolCallLocation]:
    """The files a call reads or changes (absolute paths), with the line it starts at: a read's
    offset, an edit's or write's first changed line once it is known."""
    args = part.state.input
    raw = args.get("filePath") or args.get("path")
    if not isinstance(raw, str) or not raw:
        return []
    path = Path(raw) if Path(raw).is_absolute() else root / raw
    offset = args.get("offset")
    line = offset if isinstance(offset, int) and offset > 0 else None
    if written:
        line = first_changed_line(written[0].old_text, written[0].new_text)
    elif part.tool in ("edit", "write") and part.state.status == "completed":
        diff = part.state.metadata.get("diff")
        line = diff_line(diff) if isinstance(diff, str) else None
    return [ToolCallLocation(path=str(path), line=line)]


def _shown(raw: str, root: Path) -> str:
    path = Path(raw)
    if not path.is_absolute():
        return raw
    try:
        return str(path.relative_to(root))
    except ValueError:
        return raw


def text_content(text: str) -> ContentToolCallContent:
    """Plain text as tool call content (cut to ``MAX_SHOWN`` characters, keeping the end)."""
    if len(text) > MAX_SHOWN:
        text = "…" + text[-MAX_SHOWN:]
    return ContentToolCallContent(type="content", content=TextContentBlock(type="text", text=text))


def diffs_of(part: ToolPart, written: list[Written], root: Path) -> list[Content]:
    """``diff`` content for an edit or write: exact when this front end saw the write."""
    if written:
        return [
            FileEditToolCallContent(type="diff", path=str(w.path), old_text=w.old_text, new_text=w.new_text)
            for w in written
        ]
    args = part.state.input
    locations = locations_of(part, root)
    if not locations:
        return []
    path = locations[0].path
    if part.tool == "write" and isinstance(args.get("content"), str):
        return [FileEditToolCallContent(type="diff", path=path, old_text=None, new_text=args["content"])]
    if part.tool == "edit" and isinstance(args.get("newString"), str):
        old = args.get("oldString")
        return [
            FileEditToolCallContent(
                type="diff",
                path=path,
                old_text=old if isinstance(old, str) else None,
                new_text=args["newString"],
            )
        ]
    return []


def content_of(
    part: ToolPart, written: list[Written], root: Path, terminal: str | None
) -> list[Content] | None:
    """The content a call shows now (None: leave what the client has)."""
    state = part.state
    if terminal is not None:
        return [TerminalToolCallContent(type="terminal", terminal_id=terminal)]
    if state.status == "running":
        output = (state.metadata or {}).get("output")
        return [text_content(_fenced(output))] if part.tool == "bash" and isinstance(output, str) else None
    if state.status == "error":
        return [text_content(state.error)]
    if state.status != "completed":
        return None
    if part.tool in ("edit", "write"):
        return diffs_of(part, written, root) or [text_content(state.output)]
    if part.tool == "bash":
        return [text_content(_fenced(str(state.metadata.get("output", state.output))))]
    return [text_content(state.output)]


def start(part: ToolPart, root: Path) -> ToolCallStart:
    """The ``tool_call`` that announces a call."""
    return ToolCallStart(
        session_update="tool_call",
        tool_call_id=part.callID,
        title=title_of(part, root),
        kind=kind_of(part.tool, part.state.input),
        status=STATUS[part.state.status],
        locations=locations_of(part, root) or None,
        raw_input=part.state.input or None,
    )


def progress(
    part: ToolPart, written: list[Written], root: Path, terminal: str | None = None
) -> ToolCallProgress:
    """The ``tool_call_update`` for the part's current state."""
    state = part.state
    raw_output: Any = None
    if state.status == "completed":
        raw_output = {"output": state.output, "metadata": state.metadata}
    elif state.status == "error":
        raw_output = {"error": state.error}
    return ToolCallProgress(
        session_update="tool_call_update",
        tool_call_id=part.callID,
        title=title_of(part, root),
        kind=kind_of(part.tool, state.input),
        status=STATUS[state.status],
        locations=locations_of(part, root, written) or None,
        content=content_of(part, written, root, terminal),
        raw_input=state.input or None,
        raw_output=raw_output,
    )


def _fenced(output: str) -> str:
    return f"```\n{output.rstrip()}\n```" if output.strip() else ""
