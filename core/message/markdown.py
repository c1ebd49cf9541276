"""A session as Markdown, for reading and sharing: text as written, tool calls and reasoning folded.

The same text comes from ``agentls sessions export --format md`` and the ``agent/session/export``
request. Folded blocks are HTML ``<details>`` (GitHub, VS Code's preview and most renderers fold
them). Code fences are made longer than any run of backticks inside, so no output can end them
early; text that goes inside HTML tags is escaped. Times are UTC, so the text does not depend on
the machine that wrote it.

It is the conversation as the user and the agent wrote it, for people: what agentls added for the
model — the ``<editor-context>`` note, inlined attachments, the "continue" after a compaction (all
synthetic text parts) — is left out, and so are the session's and parent's ids (an attachment
shows as one line naming the file). A user message left with nothing to show has no heading.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

from core.message.models import (
    AgentPart,
    AssistantMessage,
    CompactionPart,
    FilePart,
    MessageWithParts,
    ReasoningPart,
    RetryPart,
    Session,
    SubtaskPart,
    TextPart,
    ToolPart,
)

_BACKTICKS = re.compile(r"`+")


def session_markdown(session: Session, messages: Sequence[MessageWithParts]) -> str:
    """The whole session (messages oldest first) as one Markdown document."""
    lines = [
        f"# {_one_line(session.title) or 'Session'}",
        "",
        f"- Directory: `{session.directory}`",
        f"- Created: {_stamp(session.time.created)}; updated: {_stamp(session.time.updated)}",
    ]
    if session.parentID:
        lines.append("- A sub-agent's session")
    for message in messages:
        block = _message(message)
        if block:
            lines += ["", *block]
    return "\n".join(lines).rstrip() + "\n"


def _message(message: MessageWithParts) -> list[str]:
    info = message.info
    body: list[str] = []
    for part in message.parts:
        block = _part(part)
        if block:
            body += ["", *block]
    if isinstance(info, AssistantMessage):
        head = f"## Assistant ({info.agent}, {info.providerID}/{info.modelID}) · {_stamp(info.time.created)}"
        if info.error is not None:
            body += ["", f"> **Error ({info.error.name}):** {_one_line(info.error.message)}"]
    elif not body:
        return []  # only what agentls added (a "continue", an attachment's text)
    else:
        head = f"## User · {_stamp(info.time.created)}"
    return [head, *body]


def _part(part: Any) -> list[str]:
    if isinstance(part, TextPart):
        if part.ignored or part.synthetic:
            return []
        return [part.text.rstrip()]
    if isinstance(part, ReasoningPart):
        return _details("Reasoning", [part.text.rstrip()]) if part.text.strip() else []
    if isinstance(part, ToolPart):
        return _tool(part)
    if isinstance(part, FilePart):
        return [f"*Attached: `{part.filename or part.url}` ({part.mime})*"]
    if isinstance(part, AgentPart):
        return [f"*Agent: @{part.name}*"]
    if isinstance(part, SubtaskPart):
        return [f"*Sub-agent task ({part.agent}): {_one_line(part.description)}*"]
    if isinstance(part, RetryPart):
        return [f"*Retry {part.attempt}: {_one_line(part.error.message)}*"]
    if isinstance(part, CompactionPart):
        return ["*The conversation above was summarised (compaction).*"]
    return []  # step-start/finish, snapshot, patch: bookkeeping with nothing to read


def _tool(part: ToolPart) -> list[str]:
    state = part.state
    title = getattr(state, "title", None)
    summary = f"Tool: {part.tool}" + (f" — {_one_line(title)}" if title else "") + f" ({state.status})"
    body = ["**Input**", "", _fenced(json.dumps(state.input, indent=2, ensure_ascii=False), "json")]
    output = getattr(state, "output", None)
    if isinstance(output, str):
        body += ["", "**Output**", "", _fenced(output)]
    error = getattr(state, "error", None)
    if isinstance(error, str):
        body += ["", "**Error**", "", _fenced(error)]
    return _details(summary, body)


def _details(summary: str, body: Iterable[str]) -> list[str]:
    # Blank lines around the body: without them most renderers show it as raw text, not Markdown.
    return ["<details>", f"<summary>{html.escape(summary)}</summary>", "", *body, "", "</details>"]


def _fenced(text: str, language: str = "") -> str:
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text.rstrip(chr(10))}\n{fence}"


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _stamp(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%d %H:%M UTC")
