"""Reminders inserted into the request (never stored): read-only mode, the plan agent, plan→build,
mid-loop messages."""

from __future__ import annotations

from core import ids
from core.message.models import AssistantMessage, MessageWithParts, TextPart, UserMessage
from core.prompts import load


def insert_reminders(
    history: list[MessageWithParts],
    agent: str,
    step: int,
    last_finished_id: str | None,
    plan_mode: bool = False,
) -> list[MessageWithParts]:
    """A copy of ``history`` with this step's reminders added to its user messages; ``plan_mode``:
    the session's mode is plan, "Read-only" (whatever the agent; left by changing the mode or by
    approving a plan)."""
    out = [m.model_copy(update={"parts": list(m.parts)}) for m in history]
    users = [m for m in out if isinstance(m.info, UserMessage)]
    if not users:
        return out
    last_user = users[-1]
    if plan_mode:
        _add(last_user, load("session/plan_mode_reminder.md"))
    elif agent == "plan":
        _add(last_user, load("session/plan_reminder.md"))
    elif agent == "build" and _previous_agent(out, last_user) == "plan":
        _add(last_user, load("session/build_switch.md"))
    if step > 1 and last_finished_id is not None:
        # Messages the user sent while the agent was working: make sure the model addresses them.
        template = load("session/queued_user.md")
        for msg in users:
            if msg.info.id <= last_finished_id:
                continue
            msg.parts = [
                p.model_copy(update={"text": template.replace("{text}", p.text)})
                if isinstance(p, TextPart) and not p.synthetic and p.text
                else p
                for p in msg.parts
            ]
    return out


def _previous_agent(history: list[MessageWithParts], last_user: MessageWithParts) -> str | None:
    for msg in reversed(history):
        if isinstance(msg.info, AssistantMessage) and msg.info.id < last_user.info.id:
            return msg.info.agent
    return None


def _add(msg: MessageWithParts, text: str) -> None:
    msg.parts.append(
        TextPart(
            id=ids.ascending("prt"),
            sessionID=msg.info.sessionID,
            messageID=msg.info.id,
            text=text,
            synthetic=True,
        )
    )
