"""Turns a dead process left unfinished, marked as interrupted while the store stays open.

Crash recovery (core/storage/recovery.py) runs only when no agentls process has the store open.
An agent host killed mid-turn is the case it misses: the editors attached to it keep the store
open for their reads, so the new host finds the dead one's turn still "running". The front ends
know which sessions the dead host was running; the new host's agent marks their unfinished turns
here, through ``Sessions`` (so every client receives the updates), the same way recovery does.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from core.message.models import AnyPart, AssistantMessage, ToolPart, now_ms
from core.session.sessions import Sessions
from core.storage.recovery import interrupt_tool, interrupt_turn

log = logging.getLogger(__name__)

TURN_INTERRUPTED = "interrupted: the agent host stopped during this turn"
TOOL_INTERRUPTED = "Tool execution was interrupted (the agent host stopped before it finished)"
TAIL = 20  # the newest messages looked at: a dead turn is the session's last one (with its subtasks')


async def mark_interrupted(sessions: Sessions, session_ids: Sequence[str]) -> list[str]:
    """Mark the unfinished assistant messages among the newest of each session (and their
    running tools and open text) as interrupted; the ids of the messages marked."""
    marked: list[str] = []
    now = now_ms()
    for session_id in session_ids:
        for message in await sessions.page(session_id, limit=TAIL):
            info = message.info
            if not isinstance(info, AssistantMessage) or info.time.completed is not None:
                continue
            for part in message.parts:
                ended = _ended(part, now)
                if ended is not None:
                    await sessions.update_part(ended)
            await sessions.update_message(interrupt_turn(info, now, TURN_INTERRUPTED))
            marked.append(info.id)
    if marked:
        log.warning("marked %s turn(s) interrupted after the agent host stopped: %s", len(marked), marked)
    return marked


def _ended(part: AnyPart, now: int) -> AnyPart | None:
    """The part as the interruption ended it, or None when it had ended already."""
    if isinstance(part, ToolPart):
        return (
            interrupt_tool(part, now, TOOL_INTERRUPTED)
            if part.state.status in ("pending", "running")
            else None
        )
    time = getattr(part, "time", None)
    if time is not None and getattr(time, "end", 0) is None:
        return part.model_copy(update={"time": time.model_copy(update={"end": now})})
    return None
