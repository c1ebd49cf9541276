"""``session/load``: a stored session replayed as the updates the client would have seen live."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from acp.schema import TextContentBlock, UserMessageChunk

from acp_server import tool_calls
from acp_server.updates import COMPACTED, chunk, plan, subagent_report, title_update
from acp_server.workspace import Written
from core.message.models import AssistantMessage, MessageWithParts, Session, Todo, ToolPart

Send = Callable[[Any], Awaitable[None]]


async def replay(
    session: Session,
    messages: list[MessageWithParts],
    todos: list[Todo],
    root: Path,
    send: Send,
    writes: dict[str, list[Written]] | None = None,
) -> None:
    """Send the user's and the agent's messages, tool calls with their final state, plan and title;
    ``writes``: the whole-file change of each edit (``replay_diffs``), shown as it was live."""
    writes = writes or {}
    for message in messages:
        info = message.info
        summary = isinstance(info, AssistantMessage) and info.summary
        if summary:
            await send(chunk("text", COMPACTED))
        for part in message.parts:
            if info.role == "user":
                if part.type == "text" and not part.synthetic and part.text:
                    block = TextContentBlock(type="text", text=part.text)
                    await send(UserMessageChunk(session_update="user_message_chunk", content=block))
                elif (report := subagent_report(part)) is not None:
                    await send(report)
            elif part.type in ("text", "reasoning") and part.text:
                # A compaction's summary is context for the model: a thought, as it streamed live.
                await send(chunk("reasoning" if summary else part.type, part.text))
            elif isinstance(part, ToolPart):
                await send(tool_calls.start(part, root))
                if part.state.status != "pending":
                    await send(tool_calls.progress(part, writes.get(part.callID, []), root))
    if todos:
        await send(plan(todos))
    await send(title_update(session))


def last_choice(messages: list[MessageWithParts]) -> tuple[str | None, str | None]:
    """The agent and model of the newest user message (a loaded session continues with them)."""
    for message in reversed(messages):
        info = message.info
        if info.role == "user":
            return info.agent, f"{info.model.providerID}/{info.model.modelID}"
    return None, None


def costs(messages: list[MessageWithParts]) -> dict[str, float]:
    """What each earlier answer cost, for the session total in usage updates."""
    return {m.info.id: m.info.cost for m in messages if isinstance(m.info, AssistantMessage)}
