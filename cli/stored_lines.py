"""A stored message as the lines `agentls sessions show` and `sessions watch` print: a header,
then one block per part."""

from __future__ import annotations

import json
from typing import Any

from cli.stored import stamp
from core.message.models import (
    AgentPart,
    AssistantMessage,
    FilePart,
    MessageWithParts,
    ReasoningPart,
    StepFinishPart,
    SubtaskPart,
    TextPart,
    ToolPart,
)


def render_message(message: MessageWithParts) -> list[str]:
    """A message as transcript lines: a header, then one block per part."""
    info = message.info
    lines = [f"── {info.role} {info.id}  {stamp(info.time.created)}"]
    for part in message.parts:
        lines.extend(_render_part(part))
    if isinstance(info, AssistantMessage) and info.error is not None:
        lines.append(f"[error {info.error.name}] {info.error.message}")
    return lines


def _render_part(part: Any) -> list[str]:
    if isinstance(part, TextPart):
        return [] if part.ignored else [part.text]
    if isinstance(part, ReasoningPart):
        return [f"[reasoning] {part.text}"]
    if isinstance(part, ToolPart):
        state = part.state
        detail = getattr(state, "title", None) or getattr(state, "error", None) or json.dumps(state.input)
        return [f"[tool {part.tool} {state.status}] {detail}"]
    if isinstance(part, FilePart):
        return [f"[file {part.filename or part.url}] {part.mime}"]
    if isinstance(part, StepFinishPart):
        t = part.tokens
        return [f"[step {part.reason}] tokens in {t.input} out {t.output}, cost {part.cost:.4f}"]
    if isinstance(part, AgentPart):
        return [f"[agent @{part.name}]"]
    if isinstance(part, SubtaskPart):
        return [f"[subtask {part.agent}] {part.description}"]
    if part.type in ("step-start", "snapshot", "patch"):
        return []  # bookkeeping with nothing to read
    return [f"[{part.type}]"]
