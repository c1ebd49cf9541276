"""The ``session/update`` payloads made from core records: message chunks, the plan, the title, and
the lines that announce a compaction."""

from __future__ import annotations

from datetime import UTC, datetime

from acp.schema import (
    AgentMessageChunk,
    AgentPlanUpdate,
    AgentThoughtChunk,
    PlanEntry,
    SessionInfoUpdate,
    TextContentBlock,
    UserMessageChunk,
)

from core.events import SessionCompacted
from core.message.models import Part, Session, TextPart, Todo

COMPACTING = "\n\nCompacting the conversation…\n\n"
COMPACTED = "\n\nCompacted the conversation (older messages are now a summary).\n\n"


def compacted_text(event: SessionCompacted) -> str:
    """The line that ends a compaction: why it ran and the context's size before and after."""
    why = "the context was nearly full; " if event.auto else ""
    if event.tokensBefore and event.tokensAfter:
        size = f": {event.tokensBefore:,} → {event.tokensAfter:,} tokens"
    else:
        size = ""
    return f"Compacted the conversation{size} ({why}older messages are now a summary).\n\n"


def chunk(kind: str, text: str) -> AgentMessageChunk | AgentThoughtChunk:
    """Streamed assistant text (``text``) or reasoning (``reasoning``)."""
    block = TextContentBlock(type="text", text=text)
    if kind == "reasoning":
        return AgentThoughtChunk(session_update="agent_thought_chunk", content=block)
    return AgentMessageChunk(session_update="agent_message_chunk", content=block)


def warning(text: str) -> AgentMessageChunk | AgentThoughtChunk:
    """A warning as ACP shows one (it has no notice of its own): a line of the agent's message."""
    return chunk("text", f"\n\n> Warning: {text}\n\n")


def subagent_report(part: Part) -> UserMessageChunk | None:
    """A background sub-agent's report to its parent (a synthetic text part of a user message marked
    ``metadata.context.kind: "subagent"``) as the user's message the client shows; None otherwise.
    The client did not write this message itself, so without it the answer would follow nothing."""
    if not isinstance(part, TextPart) or not part.synthetic:
        return None
    context = (part.metadata or {}).get("context")
    if not isinstance(context, dict) or context.get("kind") != "subagent":
        return None
    text = f"Report of the background sub-agent {context.get('label', '')}:\n\n{part.text}"
    return UserMessageChunk(
        session_update="user_message_chunk", content=TextContentBlock(type="text", text=text)
    )


def plan(todos: list[Todo]) -> AgentPlanUpdate:
    """The todo list as the ACP plan (cancelled items are dropped: a plan has no such status)."""
    entries = [
        PlanEntry(content=t.content, priority=t.priority, status=t.status)
        for t in todos
        if t.status != "cancelled"
    ]
    return AgentPlanUpdate(session_update="plan", entries=entries)


def title_update(info: Session) -> SessionInfoUpdate:
    """The session's title and last activity."""
    return SessionInfoUpdate(
        session_update="session_info_update", title=info.title, updated_at=iso(info.time.updated)
    )


def iso(ms: int) -> str:
    """An ISO 8601 timestamp from milliseconds since the epoch."""
    return datetime.fromtimestamp(ms / 1000, tz=UTC).isoformat().replace("+00:00", "Z")
