"""Builders of stored histories for the context tests (real models, no mocks)."""

from __future__ import annotations

from typing import Any, Literal

from core.ids import ascending
from core.message.models import (
    AnyPart,
    AssistantMessage,
    AssistantTime,
    CompactionPart,
    MessageWithParts,
    ModelRef,
    TextPart,
    Tokens,
    ToolPart,
    ToolStateCompleted,
    ToolTimeDone,
    UserMessage,
    UserTime,
)

SESSION = "ses_test"


def _id(prefix: Literal["msg", "prt"]) -> str:
    return ascending(prefix)


def user(text: str = "do it", *, synthetic: bool | None = None) -> MessageWithParts:
    mid = _id("msg")
    info = UserMessage(
        id=mid,
        sessionID=SESSION,
        time=UserTime(created=1),
        agent="build",
        model=ModelRef(providerID="p", modelID="m"),
    )
    part = TextPart(id=_id("prt"), sessionID=SESSION, messageID=mid, text=text, synthetic=synthetic)
    return MessageWithParts(info=info, parts=[part])


def compaction_user(*, auto: bool = True, tail_start: str | None = None) -> MessageWithParts:
    msg = user("")
    msg.parts = [
        CompactionPart(
            id=_id("prt"), sessionID=SESSION, messageID=msg.info.id, auto=auto, tailStart=tail_start
        )
    ]
    return msg


def assistant(
    parent: MessageWithParts,
    *,
    text: str = "",
    tools: list[tuple[str, str]] = (),  # type: ignore[assignment]
    summary: bool | None = None,
    finished: bool = True,
    tokens: Tokens | None = None,
) -> MessageWithParts:
    mid = _id("msg")
    info = AssistantMessage(
        id=mid,
        sessionID=SESSION,
        parentID=parent.info.id,
        time=AssistantTime(created=2, completed=3 if finished else None),
        providerID="p",
        modelID="m",
        agent="compaction" if summary else "build",
        mode="compaction" if summary else "build",
        finish="stop" if finished else None,
        summary=summary,
        tokens=tokens or Tokens(),
    )
    parts: list[AnyPart] = []
    if text:
        parts.append(TextPart(id=_id("prt"), sessionID=SESSION, messageID=mid, text=text))
    for tool, output in tools:
        parts.append(tool_part(mid, tool, output))
    return MessageWithParts(info=info, parts=parts)


def tool_part(message_id: str, tool: str, output: str, *, compacted: int | None = None) -> ToolPart:
    pid = _id("prt")
    state: Any = ToolStateCompleted(
        input={"path": "x"},
        output=output,
        title=tool,
        time=ToolTimeDone(start=1, end=2, compacted=compacted),
    )
    return ToolPart(
        id=pid, sessionID=SESSION, messageID=message_id, callID=f"call_{pid}", tool=tool, state=state
    )


def turn(text: str, *, tools: list[tuple[str, str]] = (), answer: str = "ok") -> list[MessageWithParts]:  # type: ignore[assignment]
    """A user message and one finished assistant reply."""
    u = user(text)
    return [u, assistant(u, text=answer, tools=tools)]


def ids(messages: list[MessageWithParts]) -> list[str]:
    return [m.info.id for m in messages]
