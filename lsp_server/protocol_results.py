"""The results of the custom requests, as the wire carries them: the types the generator
(``scripts/gen_protocol``) writes the clients' types and the JSON Schema from.

The handlers build their answers from the core's values (``lsp_server.protocol.dump``); these models
say what those answers are. A field that is ``X | None`` with no default is sent as ``null`` when
empty; one with a default of None is left out. ``tests/lsp/test_protocol_results.py`` checks real
answers against them (``extra="forbid"``: a key the model does not name fails).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from core.api_types import RevertResult
from core.events import (
    AgentInfo,
    BackgroundAgent,
    BackgroundShell,
    ModelLimitsInfo,
    PermissionRequest,
    PlanReviewRequest,
    QuestionRequest,
    QueuedPrompt,
)
from core.message.findings import Finding
from core.message.models import MessageWithParts, Session, Todo
from core.message.review import Hunk, HunkConflict, ReviewResult


class Result(BaseModel):
    """Base of every result model: exactly the keys the server sends."""

    model_config = ConfigDict(extra="forbid", defer_build=True)


class SessionListResult(Result):
    sessions: list[Session]


class SearchHit(Result):
    """One session found by ``agent/session/search``; highlights are UTF-16 offsets into ``snippet``."""

    session: Session
    snippet: str
    highlights: list[tuple[int, int]]
    messageID: str | None
    partID: str | None


class SessionSearchResult(Result):
    hits: list[SearchHit]


class SessionExportResult(Result):
    format: Literal["md"]
    text: str


class SessionMessagesResult(Result):
    messages: list[MessageWithParts]


class QueueListResult(Result):
    items: list[QueuedPrompt]


class BackgroundListResult(Result):
    """A session's background sub-agents (running and recently ended) and background shells."""

    agents: list[BackgroundAgent]
    shells: list[BackgroundShell]


class DiffFile(Result):
    """One file of ``agent/session/diff``: its unified diff and line counts."""

    file: str
    patch: str
    additions: int
    deletions: int


class SessionDiffResult(Result):
    files: list[DiffFile]
    unrecorded: int  # steps whose changes were not recorded (a snapshot failed)
    warnings: list[str]


class TodoListResult(Result):
    todos: list[Todo]


class AgentConfig(Result):
    """``agent/config``: the agents and models for a client's pickers."""

    agents: list[AgentInfo]
    models: list[str]
    defaultAgent: str
    defaultModel: str | None
    modelLimits: dict[str, ModelLimitsInfo]


class ProviderInfo(Result):
    """A provider a first-run setup offers; ``hasKey`` says a key is there (never the key)."""

    id: str
    keyEnv: str | None
    hasKey: bool
    configured: bool
    models: list[str]


class ProvidersResult(Result):
    providers: list[ProviderInfo]


class CommandInfo(Result):
    """A slash command: a built-in, the user's own (a Markdown template) or an MCP server's prompt."""

    name: str
    description: str
    kind: Literal["builtin", "user", "mcp"]
    source: str
    hint: str
    agent: str | None
    model: str | None
    subtask: bool


class CommandList(Result):
    """``agent/commands``: the commands, the command files that could not be read, warnings."""

    commands: list[CommandInfo]
    errors: list[str]
    warnings: list[str]


class CommandItemInfo(Result):
    """One entry a command lists (a message /rewind can go back to, a hunk, a model)."""

    id: str
    label: str
    detail: str


class ReviewHunk(Hunk):
    """A hunk as the review requests send it: the core's hunk and the file's URI."""

    model_config = ConfigDict(extra="forbid")
    uri: str


class ReviewChange(Result):
    """What ``agent/review/keep|undo`` did: the hunks whose state changed, the undos that conflicted."""

    changed: list[ReviewHunk]
    conflicts: list[HunkConflict]


class ReviewListResult(Result):
    hunks: list[ReviewHunk]


class CommandRunResult(Result):
    """``agent/session/command``: what the command did (see docs/protocol.md)."""

    command: str
    message: MessageWithParts | None
    revert: RevertResult | None
    text: str | None
    value: str | None
    session: Session | None
    items: list[CommandItemInfo]
    review: ReviewResult | None  # the core's review result (hunks without their URI)
    findings: list[Finding] | None  # /review's code review findings


class ReviewCommentResult(Result):
    sessionID: str
    messageID: str


class ModeChoiceInfo(Result):
    id: str
    name: str
    description: str


class ModeInfo(Result):
    """``agent/session/mode``: the session's mode (ask, auto, plan) and the modes there are; no
    ``sessionID`` (null): the mode a new session starts in."""

    sessionID: str | None
    sessionId: str | None
    mode: str
    modes: list[ModeChoiceInfo]


class EffortInfo(Result):
    """``agent/session/effort``: how hard the model thinks, and the levels it supports ([]: none);
    no ``sessionID`` (null): a new session's."""

    sessionID: str | None
    sessionId: str | None
    effort: str
    levels: list[str]
    model: str | None


class ResolvedContextItem(Result):
    """A context item as the model will see it; ``error`` says why it could not be read."""

    kind: str
    label: str
    text: str
    tokens: int
    error: str | None


class ContextResolveResult(Result):
    items: list[ResolvedContextItem]


class PermissionListResult(Result):
    requests: list[PermissionRequest]


class QuestionListResult(Result):
    requests: list[QuestionRequest]


class McpResource(Result):
    """A resource of a running MCP server, attached as ``{kind: "mcp", server, uri}``."""

    server: str
    uri: str
    name: str
    description: str
    mimeType: str
    size: int | None


class McpTemplate(Result):
    """A resource template; attached as ``{kind: "mcp", server, template, arguments}``."""

    server: str
    uriTemplate: str
    name: str
    description: str
    mimeType: str
    arguments: list[str]


class McpResourcesResult(Result):
    """``agent/mcp/resources``: what a client's ``@`` menu offers of the MCP servers."""

    resources: list[McpResource]
    templates: list[McpTemplate]


class McpServerInfo(Result):
    """A configured MCP server as the servers view shows it."""

    name: str
    type: Literal["local", "remote"]
    enabled: bool
    status: Literal["running", "failed", "needs-login", "disabled"]
    tools: int
    resources: int
    prompts: int
    error: str | None
    # a remote server's OAuth login; null for a local one (or one given an Authorization header)
    auth: Literal["logged-in", "needs-login", "not-needed"] | None


class McpLogin(Result):
    """A browser login under way: the authorization address, and whether the client opened it."""

    url: str
    opened: bool


class McpServersResult(Result):
    """``agent/mcp/list`` and ``agent/mcp/set``: every configured MCP server, in the config's order;
    after ``login``, the login under way (absent: the server needed none and was restarted)."""

    servers: list[McpServerInfo]
    login: McpLogin | None = None


class PlanListResult(Result):
    requests: list[PlanReviewRequest]


class WorktreeInfo(Result):
    """A worktree agentls made for the project: where, on which branch, from which commit, its
    sessions, and what it changed (committed or not) since that commit."""

    name: str
    branch: str
    path: str
    base: str
    created: int  # ms since the epoch
    sessionIDs: list[str]
    changed: list[str]
    uncommitted: int
    merged: bool  # its branch is in the checkout's and nothing is left uncommitted
    missing: bool  # its folder is gone


class WorktreeListResult(Result):
    available: bool  # false outside a git repository (``reason`` says why)
    reason: str | None
    worktrees: list[WorktreeInfo]


class WorktreeDiffResult(Result):
    diff: str
    files: list[str]


class WorktreeMergeResult(Result):
    outcome: Literal["merged", "conflict", "refused"]
    message: str
    files: list[str]


class WorktreeDiscardResult(Result):
    """``{}``: the worktree, its branch and its sessions are gone."""
