"""Small builders of sessions, messages and parts for the storage and session tests."""

from __future__ import annotations

from core import ids
from core.message.models import (
    AssistantMessage,
    AssistantTime,
    ModelRef,
    PartTime,
    Session,
    SessionTime,
    TextPart,
    ToolPart,
    ToolStateCompleted,
    ToolStateRunning,
    ToolTimeDone,
    ToolTimeStart,
    UserMessage,
    UserTime,
    now_ms,
)


def session(
    project_id: str, *, parent_id: str | None = None, title: str = "a session", updated: int | None = None
) -> Session:
    """A new session of the project (ascending id)."""
    now = now_ms()
    return Session(
        id=ids.ascending("ses"),
        projectID=project_id,
        parentID=parent_id,
        title=title,
        directory="/tmp/project",
        time=SessionTime(created=now, updated=updated if updated is not None else now),
    )


def user(session_id: str) -> UserMessage:
    """A user message."""
    return UserMessage(
        id=ids.ascending("msg"),
        sessionID=session_id,
        time=UserTime(created=now_ms()),
        agent="build",
        model=ModelRef(providerID="local", modelID="m"),
    )


def assistant(session_id: str, parent_id: str, *, completed: bool = True) -> AssistantMessage:
    """An assistant message answering ``parent_id``."""
    now = now_ms()
    return AssistantMessage(
        id=ids.ascending("msg"),
        sessionID=session_id,
        parentID=parent_id,
        time=AssistantTime(created=now, completed=now if completed else None),
        providerID="local",
        modelID="m",
        agent="build",
        mode="build",
    )


def text(session_id: str, message_id: str, content: str = "") -> TextPart:
    """A text part."""
    return TextPart(
        id=ids.ascending("prt"),
        sessionID=session_id,
        messageID=message_id,
        text=content,
        time=PartTime(start=now_ms()),
    )


def running_tool(session_id: str, message_id: str) -> ToolPart:
    """A tool part whose call is running."""
    return ToolPart(
        id=ids.ascending("prt"),
        sessionID=session_id,
        messageID=message_id,
        callID="call_1",
        tool="bash",
        state=ToolStateRunning(input={"command": "sleep 100"}, time=ToolTimeStart(start=now_ms())),
    )


def completed_tool(session_id: str, message_id: str, output: str = "ok") -> ToolPart:
    """A tool part whose call completed."""
    now = now_ms()
    return ToolPart(
        id=ids.ascending("prt"),
        sessionID=session_id,
        messageID=message_id,
        callID="call_2",
        tool="read",
        state=ToolStateCompleted(
            input={"path": "a.py"}, output=output, title="a.py", time=ToolTimeDone(start=now, end=now)
        ),
    )
