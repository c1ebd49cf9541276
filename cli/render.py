"""Render core events as a terminal transcript: streamed text, dimmed reasoning, one line per tool."""

from __future__ import annotations

import json
import sys
from typing import Any, TextIO

from core.events import (
    AgentWarning,
    Event,
    MessageUpdated,
    PartDelta,
    PartUpdated,
    PermissionAsked,
    QuestionAsked,
    SessionCompacted,
    SessionError,
    SessionStatus,
)
from core.message.models import ReasoningPart, TextPart, ToolPart

DIM, RESET, BOLD, RED, CYAN = "\033[2m", "\033[0m", "\033[1m", "\033[31m", "\033[36m"


class Transcript:
    """Writes events for one session as they arrive; parts are tracked so each prints once."""

    def __init__(
        self,
        session_id: str | None = None,
        out: TextIO | None = None,
        color: bool | None = None,
        err: TextIO | None = None,
    ) -> None:
        self._session = session_id
        self._out = out or sys.stdout
        self._err = err or sys.stderr  # warnings, beside the transcript
        self._color = self._out.isatty() if color is None else color
        self._kinds: dict[str, str] = {}
        self._tool_state: dict[str, str] = {}
        self._open: str | None = None  # the part whose text is mid-line
        self._user_messages: set[str] = set()  # the user's own parts are not echoed
        # A compaction summary is context for the model, not an answer: never printed as one.
        self._summaries: set[str] = set()

    def _style(self, text: str, style: str) -> str:
        return f"{style}{text}{RESET}" if self._color else text

    def _write(self, text: str) -> None:
        self._out.write(text)
        self._out.flush()

    def _newline(self) -> None:
        if self._open is not None:
            self._write("\n")
            self._open = None

    def handle(self, event: Event) -> None:
        """Print what this event adds to the transcript."""
        if self._session and event.session_id() not in (self._session, None):
            return
        if isinstance(event, MessageUpdated):
            if event.info.role == "user":
                self._user_messages.add(event.info.id)
            elif event.info.summary:
                self._summaries.add(event.info.id)
        elif isinstance(event, PartUpdated):
            owner = event.part.messageID
            if owner not in self._user_messages and owner not in self._summaries:
                self._part(event.part)
        elif isinstance(event, SessionCompacted):
            self._newline()
            self._write(
                self._style("· context compacted: older messages were summarised for the model\n", DIM)
            )
        elif isinstance(event, PartDelta):
            self._delta(event)
        elif isinstance(event, PermissionAsked):
            self._newline()
            req = event.request
            self._write(
                self._style(f"? permission {req.permission}: {req.title or ', '.join(req.patterns)}\n", BOLD)
            )
        elif isinstance(event, QuestionAsked):
            self._newline()
            for q in event.request.questions:
                self._write(self._style(f"? {q.question}\n", BOLD))
        elif isinstance(event, SessionStatus) and event.status.type == "retry":
            self._newline()
            self._write(self._style(f"! {event.status.message} (attempt {event.status.attempt})\n", RED))
        elif isinstance(event, SessionError):
            self._newline()
            self._write(self._style(f"✗ {event.error.name}: {event.error.message}\n", RED))
        elif isinstance(event, AgentWarning):
            # Beside the transcript, as the CLI's other warnings: stdout stays the agent's answer.
            self._newline()
            print(f"agentls: warning: {event.message}", file=self._err, flush=True)

    def _part(self, part: Any) -> None:
        if isinstance(part, TextPart | ReasoningPart):
            if part.id not in self._kinds:
                self._kinds[part.id] = part.type
                if part.text and not getattr(part, "synthetic", False):
                    self._start(part.id)
                    self._write(self._style(part.text, DIM) if part.type == "reasoning" else part.text)
            elif part.time is not None and part.time.end is not None and self._open == part.id:
                self._newline()
        elif isinstance(part, ToolPart):
            status = part.state.status
            if self._tool_state.get(part.id) == status or status == "pending":
                return
            self._tool_state[part.id] = status
            self._newline()
            if status == "running":
                self._write(self._style(f"→ {part.tool} {_brief(part.state.input)}\n", CYAN))
            elif status == "completed":
                title = getattr(part.state, "title", "") or ""
                self._write(self._style(f"  ✓ {part.tool}: {title}\n", DIM))
            elif status == "error":
                self._write(self._style(f"  ✗ {part.tool}: {getattr(part.state, 'error', '')}\n", RED))

    def _start(self, part_id: str) -> None:
        if self._open != part_id:
            self._newline()
            self._open = part_id

    def _delta(self, event: PartDelta) -> None:
        kind = self._kinds.get(event.partID)
        if kind is None:
            return
        self._start(event.partID)
        self._write(self._style(event.delta, DIM) if kind == "reasoning" else event.delta)

    def finish(self) -> None:
        """End a line left open."""
        self._newline()


def _brief(value: dict[str, Any]) -> str:
    for key in ("command", "filePath", "pattern", "url", "description"):
        if key in value:
            return str(value[key])[:120]
    return json.dumps(value)[:120]
