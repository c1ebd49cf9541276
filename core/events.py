"""The typed events the core publishes (see ``core.bus``); every one travels to editors as-is.

Events are keyword-only records (``core.record``: frozen, as a published event is seen by every
subscriber): the core builds them itself, so nothing needs validating, and they are created for
every streamed delta. What they carry from the session
(``Session``, messages, parts) and the dialogs' payloads below stay pydantic models, validated
where they come in. ``Event.from_wire`` validates a wire form back (the demo's replay).
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar, Literal, dataclass_transform

from pydantic import BaseModel, ConfigDict, Field, model_validator
from typing_extensions import TypedDict

from core.message.models import Message as _Message
from core.message.models import MessageError, Session, Todo
from core.message.models import Part as _Part
from core.message.prompt_input import PromptInput
from core.message.review import Hunk
from core.record import record


class _Payload(BaseModel):
    """What an event carries beside the session's models: validated where it comes in (a client's
    reply, the demo's replay), so its validator is built at first use, not at every start."""

    model_config = ConfigDict(defer_build=True)


@dataclass_transform(kw_only_default=True, frozen_default=True)
class Event:
    """Base of all events: ``TYPE`` is the wire name, the fields are the ``properties``.

    Each subclass becomes a keyword-only record (``core.record``: a frozen dataclass whose methods
    are shared, not compiled for each of the dozens of events at every start) when it is defined;
    ``generated=True`` in the class line keeps the methods dataclasses generates, for an event
    made per streamed chunk.
    """

    TYPE: ClassVar[str] = ""
    REGISTRY: ClassVar[dict[str, type[Event]]] = {}
    # What pydantic applies when ``from_wire`` validates one: unknown properties are refused.
    __pydantic_config__ = ConfigDict(extra="forbid")

    def __init_subclass__(cls, generated: bool = False, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if generated:
            dataclasses.dataclass(cls, kw_only=True, frozen=True)
        else:
            record(kw_only=True)(cls)
        if cls.TYPE:
            Event.REGISTRY[cls.TYPE] = cls

    def to_wire(self) -> dict[str, Any]:
        """``{type, properties}`` as sent to clients (fields that are None are left out)."""
        properties = {}
        for field in dataclasses.fields(self):  # type: ignore[arg-type]  # every subclass is a dataclass
            value = getattr(self, field.name)
            if value is not None:
                properties[field.name] = _jsonable(value)
        return {"type": self.TYPE, "properties": properties}

    @classmethod
    def from_wire(cls, type_: str, properties: dict[str, Any]) -> Event:
        """The event a ``{type, properties}`` names, validated (a ValueError says what is wrong)."""
        from pydantic import TypeAdapter  # only the demo's replay reads events back

        try:
            event_cls = cls.REGISTRY[type_]
        except KeyError:
            raise ValueError(f"unknown event type {type_!r}") from None
        return TypeAdapter(event_cls).validate_python(properties)

    def session_id(self) -> str | None:
        """The session this event is about, when there is one."""
        value = getattr(self, "sessionID", None)
        if isinstance(value, str):
            return value
        info = getattr(self, "info", None)
        sid = getattr(info, "sessionID", None) if info is not None else None
        if isinstance(sid, str):
            return sid
        if isinstance(info, Session):
            return info.id
        part = getattr(self, "part", None)
        psid = getattr(part, "sessionID", None) if part is not None else None
        return psid if isinstance(psid, str) else None


def _jsonable(value: Any) -> Any:
    """``value`` as JSON data: models as their ``model_dump`` (without None fields), lists and dicts
    item by item (a dict keeps its None values, as pydantic's dump does)."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", exclude_none=True)
    if isinstance(value, (list, tuple)):
        return [_jsonable(item) for item in value]
    if isinstance(value, dict):
        return {key: _jsonable(item) for key, item in value.items()}
    return value


# --- the prompt queue ----------------------------------------------------------------------


class QueuedPrompt(_Payload):
    """A prompt waiting for the session's running turn to end; it then runs as its own turn."""

    id: str
    sessionID: str
    parts: list[PromptInput]
    agent: str | None = None
    model: str | None = None
    time: int  # ms since the epoch when it was queued


class QueueAdded(Event):
    """A prompt joined the end of the session's queue (``stop and send``: its front)."""

    TYPE: ClassVar[str] = "queue.added"
    sessionID: str
    item: QueuedPrompt
    position: int  # 0-based place in the queue


class QueueUpdated(Event):
    """A queued prompt's parts were edited."""

    TYPE: ClassVar[str] = "queue.updated"
    sessionID: str
    item: QueuedPrompt


class QueueRemoved(Event):
    """A queued prompt left the queue without running: removed by the user, its caller went away,
    or its session was deleted or the agent closed."""

    TYPE: ClassVar[str] = "queue.removed"
    sessionID: str
    id: str
    reason: Literal["removed", "cancelled", "closed"]


class QueueStarted(Event):
    """A queued prompt left the queue to run as its own turn (its user message follows)."""

    TYPE: ClassVar[str] = "queue.started"
    sessionID: str
    id: str


# --- session -------------------------------------------------------------------------------


class SessionCreated(Event):
    TYPE: ClassVar[str] = "session.created"
    info: Session


class SessionUpdated(Event):
    TYPE: ClassVar[str] = "session.updated"
    info: Session


class SessionDeleted(Event):
    TYPE: ClassVar[str] = "session.deleted"
    info: Session


class SessionStatusInfo(_Payload):
    type: Literal["idle", "busy", "retry"]
    attempt: int | None = None
    message: str | None = None
    next: int | None = None  # ms since the epoch of the next attempt


class SessionStatus(Event):
    TYPE: ClassVar[str] = "session.status"
    sessionID: str
    status: SessionStatusInfo


class SessionIdle(Event):
    TYPE: ClassVar[str] = "session.idle"
    sessionID: str


class SessionError(Event):
    TYPE: ClassVar[str] = "session.error"
    sessionID: str | None = None
    error: MessageError


class FileDiff(_Payload):
    file: str
    before: str | None = None
    after: str | None = None
    additions: int = 0
    deletions: int = 0
    patch: str | None = None


class SessionDiff(Event):
    TYPE: ClassVar[str] = "session.diff"
    sessionID: str
    diff: list[FileDiff]


class SessionWatchers(Event):
    """Who else shows the session now: the names (``clientInfo``) of the other front ends attached
    to the agent host that show it, one per front end. Sent only by the host, to each front end that
    shows the session, whenever that list changes (and when it starts showing it; ``[]``: no one)."""

    TYPE: ClassVar[str] = "session.watchers"
    sessionID: str
    clients: list[str]


class SessionCompacted(Event):
    TYPE: ClassVar[str] = "session.compacted"
    sessionID: str
    auto: bool = False  # started by the loop (the context was full), not asked for by the user
    tokensBefore: int = 0  # the request's estimated size before and after (system and tools included)
    tokensAfter: int = 0


# --- messages and parts --------------------------------------------------------------------


class MessageUpdated(Event):
    TYPE: ClassVar[str] = "message.updated"
    info: _Message


class MessageRemoved(Event):
    TYPE: ClassVar[str] = "message.removed"
    sessionID: str
    messageID: str


class PartUpdated(Event):
    TYPE: ClassVar[str] = "message.part.updated"
    part: _Part


class PartRemoved(Event):
    TYPE: ClassVar[str] = "message.part.removed"
    sessionID: str
    messageID: str
    partID: str


class PartDelta(Event, generated=True):
    TYPE: ClassVar[str] = "message.part.delta"
    sessionID: str
    messageID: str
    partID: str
    field: str
    delta: str


# --- dialogs -------------------------------------------------------------------------------


class TaskOrigin(_Payload):
    """The ``task`` call a subagent's child session runs for: a dialog of that child names it."""

    sessionID: str  # the parent session
    messageID: str
    callID: str
    description: str
    subagent: str


class PermissionRequest(_Payload):
    id: str
    sessionID: str
    messageID: str | None = None
    callID: str | None = None
    permission: str
    patterns: list[str]
    title: str
    metadata: dict[str, Any] = Field(default_factory=dict)
    always: list[str] = Field(default_factory=list)
    task: TaskOrigin | None = None  # asked inside a subagent's session: the parent's task call


class PermissionAsked(Event):
    TYPE: ClassVar[str] = "permission.asked"
    request: PermissionRequest

    def session_id(self) -> str | None:
        return self.request.sessionID


class PermissionReplied(Event):
    TYPE: ClassVar[str] = "permission.replied"
    sessionID: str
    requestID: str
    reply: Literal["once", "always", "reject"]
    by: str | None = None  # the client that answered, when another front end of the host did


class QuestionOption(_Payload):
    label: str
    description: str = ""


class QuestionItem(_Payload):
    question: str
    header: str = Field(default="", max_length=30)
    options: list[QuestionOption] = Field(default_factory=list)
    multiple: bool = False
    # False: only the options answer it (a yes/no, a fixed list); clients offer no field to type into.
    custom: bool = True

    @model_validator(mode="after")
    def _answerable(self) -> QuestionItem:
        if not self.custom and not self.options:
            raise ValueError("a question without a typed answer needs options")
        return self


class QuestionRequest(_Payload):
    id: str
    sessionID: str
    messageID: str | None = None
    callID: str | None = None
    questions: list[QuestionItem]


class QuestionAsked(Event):
    TYPE: ClassVar[str] = "question.asked"
    request: QuestionRequest

    def session_id(self) -> str | None:
        return self.request.sessionID


class QuestionReplied(Event):
    TYPE: ClassVar[str] = "question.replied"
    sessionID: str
    requestID: str
    answers: list[list[str]]
    by: str | None = None  # the client that answered, when another front end of the host did


class QuestionRejected(Event):
    TYPE: ClassVar[str] = "question.rejected"
    sessionID: str
    requestID: str
    by: str | None = None  # the client that dismissed it, when another front end of the host did


class PlanComment(_Payload):
    """A comment on one line of a plan under review (0-based, as in the review's comments)."""

    line: int = Field(ge=0)
    text: str = Field(min_length=1)


class PlanReviewRequest(_Payload):
    """The plan agent's ``plan_exit``: a plan file waiting for the user's approve / revise / reject."""

    id: str
    sessionID: str
    messageID: str | None = None
    callID: str | None = None
    path: str  # relative to the project, under the plan folder
    text: str  # the plan (Markdown) as the agent presented it


class PlanReviewAsked(Event):
    TYPE: ClassVar[str] = "plan.review.asked"
    request: PlanReviewRequest

    def session_id(self) -> str | None:
        return self.request.sessionID


class PlanReviewReplied(Event):
    """The user answered a plan review; ``reply`` is what they chose."""

    TYPE: ClassVar[str] = "plan.review.replied"
    sessionID: str
    requestID: str
    reply: Literal["approve", "revise", "reject"]
    by: str | None = None  # the client that answered, when another front end of the host did


class PlanReviewCancelled(Event):
    """A plan review went away unanswered (the session was aborted)."""

    TYPE: ClassVar[str] = "plan.review.cancelled"
    sessionID: str
    requestID: str


class TodoUpdated(Event):
    TYPE: ClassVar[str] = "todo.updated"
    sessionID: str
    todos: list[Todo]


class ReviewUpdated(Event):
    """Hunks of the agent's changes were added, kept or undone; ``pending`` is the count left in
    ``sessionID``'s review. Sent for the hunks' session and each session above it (a sub-agent's
    hunks are in its parent's review too)."""

    TYPE: ClassVar[str] = "review.updated"
    sessionID: str
    changed: list[Hunk]
    pending: int


class FileEdited(Event):
    TYPE: ClassVar[str] = "file.edited"
    file: str
    sessionID: str | None = None
    messageID: str | None = None
    callID: str | None = None
    diff: str | None = None


class SessionModeChanged(Event):
    """A session's autonomy mode changed: ``ask`` (a dialog before each edit), ``auto`` (edits land
    and wait for review) or ``plan`` (read-only)."""

    TYPE: ClassVar[str] = "session.mode"
    sessionID: str
    mode: str


class SessionEffortChanged(Event):
    """A session's effort (how hard its model thinks) changed; ``levels``: what its model offers."""

    TYPE: ClassVar[str] = "session.effort"
    sessionID: str
    effort: str
    levels: list[str]


# --- background work (issue 40) ------------------------------------------------------------

BackgroundStatus = Literal["running", "completed", "failed", "stopped"]


class BackgroundAgent(_Payload):
    """A sub-agent a ``task`` call started in the background: its own session, run beside its
    parent's turns. ``step``: model steps so far; ``tool``: the tool it runs now; ``tokens``: input
    and output tokens of its steps; times in ms since the epoch."""

    sessionID: str  # the sub-agent's session
    parentID: str
    agent: str
    description: str
    status: BackgroundStatus
    started: int
    ended: int | None = None
    step: int = 0
    tool: str | None = None
    tokens: int = 0
    error: str | None = None


class BackgroundAgentUpdated(Event):
    """A background sub-agent started, took a step, began or finished a tool, or ended."""

    TYPE: ClassVar[str] = "background.agent.updated"
    sessionID: str  # the parent session
    agent: BackgroundAgent


class BackgroundAgentEnded(Event):
    """A background sub-agent ended (completed, failed or stopped); its result goes to the parent as
    a message. ``summary``: the result's first line, for a notification."""

    TYPE: ClassVar[str] = "background.agent.ended"
    sessionID: str  # the parent session
    agent: BackgroundAgent
    summary: str


class BackgroundShell(_Payload):
    """A command ``bash`` started with ``background: true``; ``tail``: its last lines."""

    id: str
    sessionID: str
    command: str
    started: int  # ms since the epoch
    status: Literal["running", "exited", "stopped"]
    exitCode: int | None = None
    tail: str = ""


class BackgroundShellUpdated(Event):
    """A background shell started or ended (its output is read with ``agent/shells/list``)."""

    TYPE: ClassVar[str] = "background.shell.updated"
    sessionID: str
    shell: BackgroundShell


# --- config ----------------------------------------------------------------------------------


WarningKind = Literal["snapshot", "small-model", "abort", "review", "sandbox", "hooks", "mcp", "host"]


class AgentWarning(Event):
    """Something failed without failing the turn, and the user should know: a step whose file
    changes were not recorded (revert and diff cannot see them), no small model for titles, an
    aborted turn that did not stop in time. Every client shows it."""

    TYPE: ClassVar[str] = "agent.warning"
    kind: WarningKind
    message: str
    sessionID: str | None = None


class AgentInfo(TypedDict):
    """An agent a user can pick; ``model``: the model its prompts use (null: the default model)."""

    name: str
    description: str | None
    mode: str
    model: str | None


class ModelLimitsInfo(TypedDict):
    """A model's context and output limits in tokens (0: unknown)."""

    context: int
    output: int


class ConfigUpdated(Event):
    """The config was reloaded (an editor's new settings): what a client's pickers show changed.

    The fields are those of the ``agent/config`` answer, plus the top-level keys that changed.
    """

    TYPE: ClassVar[str] = "config.updated"
    changed: list[str]
    agents: list[AgentInfo]
    models: list[str]
    defaultAgent: str
    defaultModel: str | None = None
    modelLimits: dict[str, ModelLimitsInfo]
