"""The params of every custom request and notification, validated with pydantic at the edge.

A malformed request never reaches a handler: ``parse`` raises JSON-RPC InvalidParams whose message
names the offending field (``parts.0.text: Field required``), and the server keeps serving.
"""

from __future__ import annotations

import base64
import binascii
from typing import Annotated, Any, Literal, TypeVar

from pydantic import (
    AliasChoices,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from core.editor import EditorQuery as EditorQueryName
from core.message.context_items import MAX_ITEMS, ContextItem
from core.message.prompt_input import (
    IMAGE_MIMES,
    MAX_INLINE_BYTES,
    MAX_MEDIA_BYTES,
    Position,
    PromptMode,
    Range,
)

M = TypeVar("M", bound=BaseModel)


class Params(BaseModel):
    """Base of every params model: unknown keys are ignored so newer clients keep working."""

    model_config = ConfigDict(extra="ignore")


class NoParams(Params):
    """A method that takes nothing (``{}`` or no params at all)."""


class SessionCreate(Params):
    title: str | None = None
    agent: str | None = None
    model: str | None = None
    # A string: the session works in a new worktree of the project's repository by that name
    # ("": a name from the time); None: in the checkout.
    worktree: str | None = Field(default=None, max_length=63)


class WorktreeRef(Params):
    """One of the project's worktrees, by name (``agent/worktree/*``)."""

    name: str = Field(min_length=1, max_length=63)


class WorktreeMerge(WorktreeRef):
    """Merge a worktree's branch into the checkout's: a merge commit, one squashed commit, or a
    fast-forward only."""

    how: Literal["merge", "squash", "ff-only"] = "merge"


class SessionList(Params):
    limit: int = Field(default=50, ge=1, le=1000)
    before: str | None = None
    messages: int | None = Field(default=None, ge=1, le=1000)  # also the first one's last N messages


class SessionRef(Params):
    sessionID: str = Field(min_length=1)


class SessionSearch(Params):
    query: str = Field(min_length=1, max_length=1000)
    since: int | None = Field(default=None, ge=0)  # epoch ms, inclusive
    until: int | None = Field(default=None, ge=0)  # epoch ms, exclusive
    agent: str | None = Field(default=None, min_length=1)
    limit: int = Field(default=20, ge=1, le=200)


class SessionExport(SessionRef):
    format: Literal["md"] = "md"


class SessionUpdate(SessionRef):
    title: str = Field(min_length=1, max_length=500)


class SessionFork(SessionRef):
    messageID: str | None = None


class SessionMessages(SessionRef):
    limit: int | None = Field(default=None, ge=1)
    before: str | None = None


class TextPromptPart(Params):
    type: Literal["text"]
    text: str


class FilePromptPart(Params):
    """A file the server reads (``uri``), or an image whose content the client sends (``data``)."""

    type: Literal["file"]
    uri: str | None = Field(default=None, min_length=1)
    range: Range | None = None
    mime: str | None = None
    data: str | None = None
    name: str | None = Field(default=None, min_length=1, max_length=255)

    @field_validator("data")
    @classmethod
    def _image_data(cls, data: str | None, info: ValidationInfo) -> str | None:
        """Inline content is a base64 image within the size limit, or the client is told what to fix."""
        if data is None:
            return None
        mime = info.data.get("mime")
        if mime not in IMAGE_MIMES:
            raise PydanticCustomError(
                "image_mime",
                "inline data must be an image: mime {mime} is not one of {allowed} "
                "(attach other files by uri)",
                {"mime": repr(mime) if mime else "(missing)", "allowed": ", ".join(IMAGE_MIMES)},
            )
        try:
            size = len(base64.b64decode(data, validate=True))
        except binascii.Error as exc:
            raise PydanticCustomError(
                "image_base64", "not valid base64 ({reason})", {"reason": str(exc)}
            ) from None
        if size == 0:
            raise PydanticCustomError("image_empty", "the image is empty")
        if size > MAX_MEDIA_BYTES:
            raise PydanticCustomError(
                "image_size",
                "the image is {size} bytes; the limit is {limit}",
                {"size": f"{size:,}", "limit": f"{MAX_MEDIA_BYTES:,}"},
            )
        return data

    @model_validator(mode="after")
    def _uri_or_data(self) -> FilePromptPart:
        if self.uri is None and self.data is None:
            raise PydanticCustomError(
                "file_source", "a file part needs uri (a file the server reads) or data (an image)"
            )
        if self.uri is not None and self.data is not None:
            raise PydanticCustomError(
                "file_source", "a file part has uri (a file the server reads) or data (an image), not both"
            )
        return self


class AgentPromptPart(Params):
    type: Literal["agent"]
    name: str = Field(min_length=1)


class ContextPromptPart(Params):
    """A context item: resolved (``kind``, ``label``, ``text`` from agent/context/resolve, sent verbatim)
    or ``item`` alone, which the server resolves when the prompt arrives (the editor note)."""

    type: Literal["context"]
    kind: str | None = Field(default=None, min_length=1)
    label: str = ""
    text: str | None = Field(default=None, min_length=1, max_length=MAX_INLINE_BYTES)
    item: ContextItem | None = None

    @model_validator(mode="after")
    def _text_or_item(self) -> ContextPromptPart:
        if (self.text is None) == (self.item is None):
            raise PydanticCustomError(
                "context_source", "a context part has text (resolved, with kind) or item, exactly one"
            )
        if self.text is not None and self.kind is None:
            raise PydanticCustomError("context_kind", "a resolved context part needs its kind")
        return self


PromptPart = Annotated[
    TextPromptPart | FilePromptPart | AgentPromptPart | ContextPromptPart, Field(discriminator="type")
]


class SessionPrompt(SessionRef):
    parts: list[PromptPart] = Field(min_length=1)
    agent: str | None = None
    model: str | None = None
    # While a turn runs: join it ("steer"), wait for it and run as its own turn ("queue"), or abort
    # it and run next ("interrupt"). Idle: all three start a turn.
    mode: PromptMode = "steer"


class ContextResolve(Params):
    sessionID: str | None = Field(default=None, min_length=1)
    items: list[ContextItem] = Field(min_length=1, max_length=MAX_ITEMS)


class BackgroundList(Params):
    """``agent/background/list``: one parent session's background work, or all of it."""

    sessionID: str | None = Field(default=None, min_length=1)


class BackgroundMessage(SessionRef):
    """A message for a running background sub-agent (``sessionID``: its session)."""

    text: str = Field(min_length=1, max_length=MAX_INLINE_BYTES)


class ShellRef(Params):
    shellID: str = Field(min_length=1)


class QueueRef(SessionRef):
    queueID: str = Field(min_length=1)


class QueueUpdate(QueueRef):
    parts: list[PromptPart] = Field(min_length=1)


class SessionRevertParams(SessionRef):
    messageID: str = Field(min_length=1)
    partID: str | None = None


class SessionDiffParams(SessionRef):
    messageID: str | None = None


class ReviewChoice(SessionRef):
    """``agent/review/keep|undo``: hunks by id, every hunk of one file (a URI), or all (neither)."""

    hunkIDs: list[str] | None = Field(default=None, min_length=1)
    uri: str | None = None


class ReviewCommentItem(Params):
    """One review comment on 1-based inclusive lines of ``path`` (project-relative, absolute, file://)."""

    path: str = Field(min_length=1)
    startLine: int = Field(ge=1)
    endLine: int = Field(ge=1)
    body: str = Field(min_length=1, max_length=20_000)
    hunkID: str | None = Field(default=None, min_length=1, validation_alias=AliasChoices("hunkID", "hunkId"))


class ReviewComments(Params):
    """``agent/review/comment``: a batch of review comments sent as one prompt (``send``: run a turn)."""

    sessionID: str = Field(min_length=1, validation_alias=AliasChoices("sessionID", "sessionId"))
    comments: list[ReviewCommentItem]
    send: bool = True


# What a user answers a permission dialog: this call, this and the same calls from now on, no.
PermissionAnswer = Literal["once", "always", "reject"]


class PermissionReply(Params):
    requestID: str = Field(min_length=1)
    reply: PermissionAnswer
    message: str | None = None
    edited: str | None = None  # the user's version of an edit's proposed file text


class QuestionReply(Params):
    requestID: str = Field(min_length=1)
    answers: list[list[str]]


class QuestionReject(Params):
    requestID: str = Field(min_length=1)


class PlanLineComment(Params):
    """A comment on one line of a plan (0-based line of the plan's text)."""

    line: int = Field(ge=0)
    text: str = Field(min_length=1)


class PlanReply(Params):
    """The user's answer to a plan review: approve, revise (comments and/or a message) or reject."""

    requestID: str = Field(min_length=1)
    reply: Literal["approve", "revise", "reject"]
    message: str | None = None
    comments: list[PlanLineComment] = Field(default_factory=list)


class Diagnostic(Params):
    """The fields of an LSP Diagnostic that the agent uses."""

    range: Range
    message: str
    severity: int | None = Field(default=None, ge=1, le=4)
    source: str | None = None
    code: int | str | None = None


class Diagnostics(Params):
    """``agent/diagnostics``: the editor's own language servers' report for one file."""

    uri: str = Field(min_length=1)
    diagnostics: list[Diagnostic]


class SessionShow(Params):
    """``agent/session/show``: the sessions the client's chats show now (``[]``: none)."""

    sessionIDs: list[Annotated[str, Field(min_length=1)]] = Field(max_length=1000)


class CodeTarget(Params):
    """The argument of the code-action commands: a file, a range, and maybe the diagnostic."""

    uri: str = Field(min_length=1)
    range: Range
    diagnostic: Diagnostic | None = None


class EditorQuery(Params):
    """``agent/editorQuery`` (server → client): what the agent asks the editor's language servers."""

    query: EditorQueryName
    uri: str | None = None  # every query but workspaceSymbols
    position: Position | None = None  # definition, references, hover
    text: str | None = None  # workspaceSymbols: the name, or part of it


def describe(error: ValidationError) -> str:
    """``field.path: problem; …`` — what the client has to fix."""
    problems = []
    for item in error.errors():
        where = ".".join(str(p) for p in item["loc"]) or "params"
        problems.append(f"{where}: {item['msg']}")
    return "; ".join(problems)


def parse(model: type[M], params: Any) -> M:
    """Validate raw JSON-RPC params; raise InvalidParams naming the field when they are malformed."""
    # Imported here: pygls' exceptions import lsprotocol (~0.5 s), and the early phase
    # (early_reads) reads these models before pygls is loaded.
    from pygls.exceptions import JsonRpcInvalidParams

    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise JsonRpcInvalidParams(message=f"params: expected an object, got {type(params).__name__}")
    try:
        return model.model_validate(params)
    except ValidationError as exc:
        raise JsonRpcInvalidParams(message=f"invalid params: {describe(exc)}") from exc


def dump(value: Any) -> Any:
    """A core value as JSON-ready data (camelCase wire names, no nulls)."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", exclude_none=True)
    if isinstance(value, list | tuple):
        return [dump(item) for item in value]
    if isinstance(value, dict):
        return {key: dump(item) for key, item in value.items()}
    if hasattr(value, "__dataclass_fields__"):
        return {name: dump(getattr(value, name)) for name in value.__dataclass_fields__}
    return value


class NextEditReady(Params):
    """``agent/nextEdit/ready``: a next edit waits at ``line`` (0-based) of ``uri``; a client whose
    cursor is on that line asks for inline completions again (lsp_server/next_edits.py)."""

    uri: str = Field(min_length=1)
    line: int = Field(ge=0)
