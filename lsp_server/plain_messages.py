"""The texts a plain client shows: the permission question, the tool-step lines, the answer.

A stock client's permission dialog is one ``window/showMessageRequest`` text (Neovim's ``inputlist``,
eglot's minibuffer), with no diff view beside it: so the text itself says what would change — the
file, ``+N -M`` and the first changed lines of an edit, the command line of a shell command —
bounded so that it fits on a terminal screen above the choices.
"""

from __future__ import annotations

from typing import Any

from core.events import PermissionRequest
from core.message.models import MessageWithParts, TextPart, ToolPart

MAX_CHANGED_LINES = 6  # changed lines quoted in a dialog; the rest are counted
MAX_LINE = 100  # characters of one quoted line
MAX_COMMAND = 300  # characters of a quoted command line


def permission_message(request: PermissionRequest) -> str:
    """The question of a permission dialog: what the agent wants to do, and what it would change."""
    metadata = request.metadata
    diff = metadata.get("diff")
    if isinstance(diff, str):
        return _edit_message(request, diff)
    command = metadata.get("command")
    if request.permission == "bash" and isinstance(command, str):
        return _command_message(request, command)
    what = ", ".join(request.patterns)
    title = f" — {request.title}" if request.title and what not in request.title else ""
    line = f"agentls wants permission for {request.permission}: {clean(what)}{clean(title)}"
    if isinstance(command, str):  # a file or folder a shell command would touch
        line += f"\nfor the command: {clean(command)[:MAX_COMMAND]}"
    return line


def _edit_message(request: PermissionRequest, diff: str) -> str:
    changed = [
        line
        for line in diff.splitlines()
        if line.startswith(("+", "-")) and not line.startswith(("+++", "---"))
    ]
    added = sum(1 for line in changed if line.startswith("+"))
    removed = len(changed) - added
    if request.title:  # "Edit hello.py" / "Write notes.md": the tool's own words for the change
        action = request.title[:1].lower() + request.title[1:]
    else:
        action = f"{request.permission} {', '.join(request.patterns)}"
    lines = [f"agentls wants to {clean(action)} (+{added} -{removed}):"]
    lines += [clean(line)[:MAX_LINE] for line in changed[:MAX_CHANGED_LINES]]
    more = len(changed) - MAX_CHANGED_LINES
    if more > 0:
        lines.append(f"… {more} more changed line{'s' if more != 1 else ''}")
    if not changed:
        lines.append("(no change to the text)")
    return "\n".join(lines)


def _command_message(request: PermissionRequest, command: str) -> str:
    part = " ".join(request.patterns)
    lines = [f"agentls wants to run: {clean(part)[:MAX_COMMAND]}"]
    if command.strip() != part.strip():
        # One simple command of a longer line asks on its own: show the whole line it belongs to.
        lines.append(f"(part of: {clean(command)[:MAX_COMMAND]})")
    if request.metadata.get("sandbox") == "none":
        lines.append("(runs without a sandbox)")
    return "\n".join(lines)


def clean(text: str) -> str:
    """``text`` on one line with no control characters (a terminal must not run escape sequences)."""
    return "".join(ch if ch.isprintable() else ("    " if ch == "\t" else " ") for ch in text)


def describe_part(part: Any) -> str | None:
    """A log line for a tool call's state or a finished text part; None for everything else."""
    if isinstance(part, ToolPart):
        state = part.state
        title = getattr(state, "title", None) or part.tool
        if state.status == "running":
            return f"▶ {part.tool}: {title}"
        if state.status == "completed":
            return f"✓ {part.tool}: {title}"
        if state.status == "error":
            return f"✗ {part.tool}: {state.error}"
        return None
    if isinstance(part, TextPart) and part.time is not None and part.time.end is not None and part.text:
        return part.text
    return None


def answer_text(result: MessageWithParts) -> str:
    """The assistant's visible text of a final message."""
    texts = [p.text for p in result.parts if isinstance(p, TextPart) and not p.synthetic and not p.ignored]
    return "\n".join(t for t in texts if t).strip()
