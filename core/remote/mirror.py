"""What a ``RemoteAgent`` answers without asking the host: the ``Agent`` protocol's synchronous
methods (pending dialogs, the queue, the pickers' config, a model's check), kept up to date from
the events the host streams and the facts it sends with ``open`` and after a config change."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from core.api_types import ConfigInfo, ModelLimits
from core.errors import ConfigError, NotFoundError
from core.events import (
    Event,
    PermissionAsked,
    PermissionReplied,
    PermissionRequest,
    PlanReviewAsked,
    PlanReviewCancelled,
    PlanReviewReplied,
    PlanReviewRequest,
    QuestionAsked,
    QuestionRejected,
    QuestionReplied,
    QuestionRequest,
    QueueAdded,
    QueuedPrompt,
    QueueRemoved,
    QueueStarted,
    QueueUpdated,
    SessionIdle,
    SessionStatus,
    SessionWatchers,
)
from core.remote import codec
from core.remote.connection import raised


class Mirror:
    """The host agent's state that the front door reads synchronously."""

    def __init__(self, opened: dict[str, Any]) -> None:
        self.permissions: dict[str, PermissionRequest] = {
            r.id: r for r in codec.load_result("dialogs.pending_permissions", opened["permissions"])
        }
        self.questions: dict[str, QuestionRequest] = {
            r.id: r for r in codec.load_result("dialogs.pending_questions", opened["questions"])
        }
        self.plans: dict[str, PlanReviewRequest] = {
            r.id: r for r in codec.load_result("dialogs.pending_plans", opened.get("plans", []))
        }
        self.queues: dict[str, list[QueuedPrompt]] = {
            sid: codec.load_result("queued", items) for sid, items in opened["queued"].items()
        }
        self.answered_by: dict[str, str] = {}  # request id → the client that answered it
        self.busy: set[str] = set(opened.get("busy", []))  # sessions whose turn runs in the host
        self.watchers: dict[str, list[str]] = {}  # session id → the other front ends showing it
        self.set_facts(opened["facts"])

    def set_facts(self, facts: dict[str, Any]) -> None:
        """Take the host's facts (config for pickers, each configured model's check)."""
        self.config_info: ConfigInfo = codec.load_result("config_info", facts["config_info"])
        self.checks: dict[str, Any] = facts["checks"]

    def apply(self, event: Event) -> None:
        """Follow one event of the host's agent."""
        if isinstance(event, PermissionAsked):
            self.permissions[event.request.id] = event.request
        elif isinstance(event, PermissionReplied):
            self.permissions.pop(event.requestID, None)
        elif isinstance(event, QuestionAsked):
            self.questions[event.request.id] = event.request
        elif isinstance(event, (QuestionReplied, QuestionRejected)):
            self.questions.pop(event.requestID, None)
        elif isinstance(event, PlanReviewAsked):
            self.plans[event.request.id] = event.request
        elif isinstance(event, (PlanReviewReplied, PlanReviewCancelled)):
            self.plans.pop(event.requestID, None)
        elif isinstance(event, QueueAdded):
            self.queues.setdefault(event.sessionID, []).insert(event.position, event.item)
        elif isinstance(event, QueueUpdated):
            items = self.queues.get(event.sessionID, [])
            self.queues[event.sessionID] = [event.item if i.id == event.item.id else i for i in items]
        elif isinstance(event, SessionStatus):
            if event.status.type == "idle":
                self.busy.discard(event.sessionID)
            else:
                self.busy.add(event.sessionID)
        elif isinstance(event, SessionIdle):
            self.busy.discard(event.sessionID)
        elif isinstance(event, SessionWatchers):
            self.watchers[event.sessionID] = list(event.clients)
        elif isinstance(event, (QueueRemoved, QueueStarted)):
            items = self.queues.get(event.sessionID, [])
            self.queues[event.sessionID] = [i for i in items if i.id != event.id]

    def queued_prompt(self, session_id: str, queue_id: str) -> QueuedPrompt:
        """A prompt still in the queue (NotFoundError once it started or left)."""
        for item in self.queues.get(session_id, []):
            if item.id == queue_id:
                return item
        raise NotFoundError(f"no queued prompt {queue_id} in session {session_id} (it started or left)")

    def check_model(self, ref: str | None) -> str:
        """``Agent.check_model`` from the host's checks of the configured models."""
        key = ref or ""
        if key not in self.checks:
            raise ConfigError(
                f"{ref} is not among the models the host's agent lists ({', '.join(self.config_info.models)})"
            )
        error = self.checks[key]
        if error is not None:
            raise raised(error)
        return ref or self.config_info.default_model or ""

    def model_limits(self, ref: str) -> ModelLimits:
        """``Agent.model_limits``: the listed model's limits, 0 when the host's agent does not list it."""
        return self.config_info.model_limits.get(ref, ModelLimits())


def pending(items: dict[str, Any], session_id: str | None, session_of: Callable[[Any], str]) -> list[Any]:
    """The pending requests of one session (or all), oldest first."""
    return [item for item in items.values() if session_id is None or session_of(item) == session_id]
