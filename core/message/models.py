"""Sessions, messages and the twelve part types.

Field names are the wire names (camelCase) because these models travel unchanged to editors
through ``agent/event`` and the session requests; Python code reads them the same way.
"""

from __future__ import annotations

import time
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter


def now_ms() -> int:
    """Milliseconds since the epoch, the unit of every ``time`` field."""
    return time.time_ns() // 1_000_000


# Validators are built when a model (or an adapter) is first used, not at import: a run's first
# request needs a handful of these ~40 models, and building all of them is on every start-up's path.
LAZY = ConfigDict(defer_build=True)


class _Model(BaseModel):
    # Extra keys are kept so that a newer agentls's rows survive a round trip through an older one.
    model_config = ConfigDict(extra="allow", populate_by_name=True, defer_build=True)


# --- session -------------------------------------------------------------------------------


class SessionTime(_Model):
    created: int
    updated: int


class SessionRevert(_Model):
    messageID: str
    partID: str | None = None
    snapshot: str | None = None
    diff: str | None = None
    # The files the revert rewrote or removed: unrevert restores exactly these from ``snapshot``.
    files: list[str] | None = None


class DiffSummary(_Model):
    additions: int = 0
    deletions: int = 0
    files: int = 0


class SessionWorktree(_Model):
    """The agentls worktree a session works in (core/worktrees): its name, branch and folder."""

    name: str
    branch: str
    path: str


class Session(_Model):
    id: str
    projectID: str
    parentID: str | None = None
    title: str
    directory: str
    time: SessionTime
    revert: SessionRevert | None = None
    summary: DiffSummary | None = None
    mode: str | None = None  # "ask" | "auto" | "plan" once chosen (core/session/mode.py)
    effort: str | None = None  # the effort level chosen for its model (core/llm/effort.py)
    # Set when the session works in a worktree of its own (``directory`` is inside it); None: the checkout.
    worktree: SessionWorktree | None = None


# --- messages ------------------------------------------------------------------------------


class ModelRef(_Model):
    providerID: str
    modelID: str


class UserTime(_Model):
    created: int


class UserMessage(_Model):
    role: Literal["user"] = "user"
    id: str
    sessionID: str
    time: UserTime
    agent: str
    model: ModelRef
    system: str | None = None
    tools: dict[str, bool] | None = None
    summary: DiffSummary | None = None


ErrorKind = Literal["api", "auth", "context-overflow", "aborted", "unknown"]


class MessageError(_Model):
    """The typed error of an assistant message."""

    name: ErrorKind
    message: str
    status: int | None = None
    retryable: bool = False


class CacheTokens(_Model):
    read: int = 0
    write: int = 0


class Tokens(_Model):
    input: int = 0
    output: int = 0
    reasoning: int = 0
    cache: CacheTokens = Field(default_factory=CacheTokens)

    def add(self, other: Tokens) -> Tokens:
        """The sum of two token counts."""
        return Tokens(
            input=self.input + other.input,
            output=self.output + other.output,
            reasoning=self.reasoning + other.reasoning,
            cache=CacheTokens(
                read=self.cache.read + other.cache.read,
                write=self.cache.write + other.cache.write,
            ),
        )


class AssistantTime(_Model):
    created: int
    completed: int | None = None


class AssistantMessage(_Model):
    role: Literal["assistant"] = "assistant"
    id: str
    sessionID: str
    parentID: str
    time: AssistantTime
    error: MessageError | None = None
    providerID: str
    modelID: str
    agent: str
    mode: str
    cost: float = 0.0
    tokens: Tokens = Field(default_factory=Tokens)
    finish: str | None = None
    summary: bool | None = None


Message = Annotated[UserMessage | AssistantMessage, Field(discriminator="role")]
MessageAdapter: TypeAdapter[UserMessage | AssistantMessage] = TypeAdapter(Message, config=LAZY)


# --- parts ---------------------------------------------------------------------------------


class _PartBase(_Model):
    id: str
    sessionID: str
    messageID: str


class PartTime(_Model):
    start: int
    end: int | None = None


class TextPart(_PartBase):
    type: Literal["text"] = "text"
    text: str = ""
    synthetic: bool | None = None
    ignored: bool | None = None
    time: PartTime | None = None
    metadata: dict[str, Any] | None = None


class ReasoningPart(_PartBase):
    type: Literal["reasoning"] = "reasoning"
    text: str = ""
    time: PartTime
    # Provider data needed to send the reasoning back (e.g. Anthropic thinking signatures).
    metadata: dict[str, Any] | None = None


class FileSource(_Model):
    type: Literal["file", "symbol", "resource"] = "file"
    path: str
    text: str | None = None
    start: int | None = None
    end: int | None = None


class FilePart(_PartBase):
    type: Literal["file"] = "file"
    mime: str
    filename: str | None = None
    url: str  # file://, http(s):// or data: URL with inline content
    source: FileSource | None = None


class ToolStatePending(_Model):
    status: Literal["pending"] = "pending"
    input: dict[str, Any] = Field(default_factory=dict)
    raw: str = ""


class ToolTimeStart(_Model):
    start: int


class ToolStateRunning(_Model):
    status: Literal["running"] = "running"
    input: dict[str, Any]
    title: str | None = None
    metadata: dict[str, Any] | None = None
    time: ToolTimeStart


class ToolTimeDone(_Model):
    start: int
    end: int
    compacted: int | None = None


class ToolStateCompleted(_Model):
    status: Literal["completed"] = "completed"
    input: dict[str, Any]
    output: str
    title: str
    metadata: dict[str, Any] = Field(default_factory=dict)
    attachments: list[FilePart] | None = None
    time: ToolTimeDone


class ToolTimeError(_Model):
    start: int
    end: int


class ToolStateError(_Model):
    status: Literal["error"] = "error"
    input: dict[str, Any]
    error: str
    metadata: dict[str, Any] | None = None
    time: ToolTimeError


ToolState = Annotated[
    ToolStatePending | ToolStateRunning | ToolStateCompleted | ToolStateError,
    Field(discriminator="status"),
]


class ToolPart(_PartBase):
    type: Literal["tool"] = "tool"
    callID: str
    tool: str
    state: ToolState
    metadata: dict[str, Any] | None = None


class StepStartPart(_PartBase):
    type: Literal["step-start"] = "step-start"
    snapshot: str | None = None


class StepFinishPart(_PartBase):
    type: Literal["step-finish"] = "step-finish"
    reason: str
    snapshot: str | None = None
    # True when a snapshot or the patch of a step that ran tools failed: its file changes were not
    # recorded, and revert and diff say so instead of pretending the step changed nothing.
    unrecorded: bool | None = None
    tokens: Tokens = Field(default_factory=Tokens)
    cost: float = 0.0


class SnapshotPart(_PartBase):
    type: Literal["snapshot"] = "snapshot"
    snapshot: str


class PatchPart(_PartBase):
    type: Literal["patch"] = "patch"
    hash: str
    files: list[str]


class SourceSpan(_Model):
    value: str
    start: int
    end: int


class AgentPart(_PartBase):
    type: Literal["agent"] = "agent"
    name: str
    source: SourceSpan | None = None


class RetryPart(_PartBase):
    type: Literal["retry"] = "retry"
    attempt: int
    error: MessageError
    time: UserTime  # {created}


class CompactionPart(_PartBase):
    type: Literal["compaction"] = "compaction"
    auto: bool
    # The first message kept verbatim after the summary (the tail); None: everything summarised.
    tailStart: str | None = None


class SubtaskPart(_PartBase):
    type: Literal["subtask"] = "subtask"
    prompt: str
    description: str
    agent: str
    model: ModelRef | None = None


class HookPart(_PartBase):
    """One run of a user's hook command (core.hooks): which, how it ended, what it decided."""

    type: Literal["hook"] = "hook"
    event: str
    command: str
    source: str
    exitCode: int | None = None
    timedOut: bool = False
    durationMs: int = 0
    output: str = ""  # its stderr, else its stdout, shortened
    effect: str | None = None  # denied | asked | blocked | stopped | context
    time: int = 0


AnyPart = (
    TextPart
    | ReasoningPart
    | FilePart
    | ToolPart
    | StepStartPart
    | StepFinishPart
    | SnapshotPart
    | PatchPart
    | AgentPart
    | RetryPart
    | CompactionPart
    | SubtaskPart
    | HookPart
)
Part = Annotated[AnyPart, Field(discriminator="type")]
PartAdapter: TypeAdapter[AnyPart] = TypeAdapter(Part, config=LAZY)

PART_TYPES: tuple[str, ...] = (
    "text",
    "reasoning",
    "file",
    "tool",
    "step-start",
    "step-finish",
    "snapshot",
    "patch",
    "agent",
    "retry",
    "compaction",
    "subtask",
    "hook",
)


class MessageWithParts(_Model):
    """A message and its parts in creation order: the unit the loop and the clients work with."""

    info: Message
    parts: list[Part] = Field(default_factory=list)


class Todo(_Model):
    content: str
    status: Literal["pending", "in_progress", "completed", "cancelled"]
    priority: Literal["high", "medium", "low"] = "medium"
    id: str | None = None
