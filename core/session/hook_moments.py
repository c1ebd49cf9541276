"""The hooks around a turn (``core.hooks``): before a prompt is stored, when the turn would end,
and while a dialog waits for the user. PreToolUse and PostToolUse run in ``tool_calls``."""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine, Sequence
from typing import Any

from core import ids
from core.bus import Bus
from core.errors import InvalidInputError
from core.events import Event, PermissionAsked, QuestionAsked
from core.hooks.decision import Outcome
from core.hooks.service import MODES, Hooks
from core.message.models import (
    AnyPart,
    AssistantMessage,
    MessageWithParts,
    TextPart,
    ToolPart,
    ToolStateError,
    UserMessage,
    UserTime,
    now_ms,
)
from core.session.sessions import Sessions

log = logging.getLogger(__name__)

# How many times in a row Stop hooks may keep one turn going (they are also told
# ``stop_hook_active``, as Claude Code tells them, to stop themselves sooner).
STOP_LIMIT = 5


def reminder(event: str, text: str) -> str:
    """Context a hook added, marked as coming from the user's hook, not from the user."""
    return f"<system-reminder>\nA {event} hook configured by the user added:\n{text}\n</system-reminder>"


async def before_prompt(hooks: Hooks, info: UserMessage, text: str, first: bool, mode: str) -> list[AnyPart]:
    """SessionStart (a session's first prompt) and UserPromptSubmit: the parts to store with the
    prompt (the runs and the context they added). A blocking hook raises InvalidInputError with
    its reason, and nothing is stored."""
    outcome = Outcome()
    session_id = info.sessionID
    if first and hooks.configured("SessionStart"):
        start = await hooks.run(
            "SessionStart", {"source": "startup"}, session_id=session_id, message_id=info.id
        )
        _with_context(start, "SessionStart")
        outcome.merge(start)
    if hooks.configured("UserPromptSubmit"):
        submit = await hooks.run(
            "UserPromptSubmit",
            {"prompt": text, "permission_mode": MODES.get(mode, "default")},
            session_id=session_id,
            message_id=info.id,
        )
        if submit.block or submit.stop:
            why = submit.stop_reason if submit.stop and not submit.block else submit.reason
            raise InvalidInputError(
                f"a UserPromptSubmit hook blocked this prompt: {why or 'no reason given'}"
            )
        _with_context(submit, "UserPromptSubmit")
        outcome.merge(submit)
    parts: list[AnyPart] = list(outcome.parts)
    parts += [
        TextPart(id=ids.ascending("prt"), sessionID=session_id, messageID=info.id, text=c, synthetic=True)
        for c in outcome.context
    ]
    return parts


def _with_context(outcome: Outcome, event: str) -> None:
    outcome.context = [reminder(event, c) for c in outcome.context]


async def at_stop(
    hooks: Hooks,
    sessions: Sessions,
    history: Sequence[MessageWithParts],
    subagent: bool,
    kept_going: int,
) -> bool:
    """Stop (SubagentStop in a subagent's session) when the turn would end: True when a hook kept it
    going; its reason is then stored as a synthetic user message the next step answers."""
    event = "SubagentStop" if subagent else "Stop"
    if not hooks.configured(event) or not history:
        return False
    last = history[-1]
    session_id = last.info.sessionID
    if not _finished_normally(last):
        return False
    outcome = await hooks.run(
        event, {"stop_hook_active": kept_going > 0}, session_id=session_id, record=(sessions, last.info.id)
    )
    if not outcome.block or outcome.stop:
        return False
    if kept_going >= STOP_LIMIT:
        log.warning(
            "session %s: %s hooks kept the turn going %d times; ending it", session_id, event, kept_going
        )
        return False
    user = next((m.info for m in reversed(history) if isinstance(m.info, UserMessage)), None)
    if user is None:
        return False
    info = UserMessage(
        id=ids.ascending("msg"),
        sessionID=session_id,
        time=UserTime(created=now_ms()),
        agent=user.agent,
        model=user.model,
    )
    text = reminder(event, f"The turn is not finished: {outcome.reason}")
    await sessions.update_message(info)
    await sessions.update_part(
        TextPart(id=ids.ascending("prt"), sessionID=session_id, messageID=info.id, text=text, synthetic=True)
    )
    return True


def notify_on_dialogs(
    bus: Bus, hooks: Callable[[], Hooks], spawn: Callable[[Coroutine[Any, Any, Outcome]], None]
) -> Callable[[], None]:
    """Run the Notification hooks when a dialog waits for the user (a permission or a question),
    each run handed to ``spawn`` (the loop's background work, which closing waits for); returns the
    function that stops listening."""

    def asked(event: Event) -> None:
        current = hooks()
        if not current.configured("Notification"):
            return
        if isinstance(event, PermissionAsked):
            session_id, message = (
                event.request.sessionID,
                f"agentls needs your permission: {event.request.title}",
            )
        elif isinstance(event, QuestionAsked):
            session_id, message = event.request.sessionID, "agentls has a question for you"
        else:
            return
        spawn(current.run("Notification", {"message": message}, session_id=session_id))

    return bus.listen(asked, PermissionAsked, QuestionAsked)


def _finished_normally(message: MessageWithParts) -> bool:
    """The model ended its answer itself: no error, no call the user rejected."""
    if not isinstance(message.info, AssistantMessage) or message.info.error is not None:
        return False
    return not any(
        isinstance(p, ToolPart)
        and isinstance(p.state, ToolStateError)
        and (p.state.metadata or {}).get("rejected")
        for p in message.parts
    )
