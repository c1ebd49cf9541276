"""Why a turn ended, in ACP's words: end_turn, max_tokens, max_turn_requests, refusal, cancelled."""

from __future__ import annotations

from typing import Literal

from acp import RequestError

from acp_server.errors import INTERNAL_ERROR
from core.message.models import AssistantMessage, MessageWithParts

StopReason = Literal["end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled"]

# The model's own finish reasons (core.llm.events.FinishStep) that end a turn early.
FINISH: dict[str, StopReason] = {
    "length": "max_tokens",
    "content-filter": "refusal",
}


def stop_reason(final: MessageWithParts, steps: int, limit: int | None) -> StopReason:
    """The stop reason of a finished turn; a failed turn raises the JSON-RPC error the client shows.

    ``steps`` is how many model requests the turn made, ``limit`` the agent's ``steps`` setting: a
    turn that used them all was cut off by it (its last step runs without tools, so the model's own
    finish reason does not show it).
    """
    info = final.info
    if not isinstance(info, AssistantMessage):
        return "end_turn"  # nothing ran (e.g. a turn that only stored the message)
    if info.error is not None:
        if info.error.name == "aborted":
            return "cancelled"
        data = {"name": info.error.name, "status": info.error.status, "retryable": info.error.retryable}
        raise RequestError(INTERNAL_ERROR, info.error.message, data)
    if limit is not None and steps >= limit:
        return "max_turn_requests"
    return FINISH.get(info.finish or "stop", "end_turn")
