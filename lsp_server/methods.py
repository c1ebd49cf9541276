"""Every custom method and notification of the agent protocol, in one table.

The server registers a handler only for a method named here, with the params model named here
(``AgentServer.request``); ``scripts/gen_protocol`` writes from this table the JSON Schema, the
TypeScript and LuaCATS types, the handshake's method list (``lsp_server.wire_methods``) and the
tables of ``docs/protocol.md``. A new method is written once: its params in ``lsp_server.protocol``,
its result in ``lsp_server.protocol_results``, its line here, its handler.
"""

from __future__ import annotations

from typing import Any, Literal

from core.api_types import RevertResult
from core.events import BackgroundAgent, BackgroundShell, QueuedPrompt
from core.message.models import MessageWithParts, Session
from lsp_server import protocol as p
from lsp_server import protocol_results as r
from lsp_server.commands import SessionCommand
from lsp_server.control import SessionEffort, SessionMode
from lsp_server.mcp import McpSet

# ``experimental.agent.version`` of the ``initialize`` answer: raised when a change breaks clients.
PROTOCOL_VERSION = 1

Direction = Literal["client→server", "server→client"]
Kind = Literal["request", "notification"]

# The params of ``agent/event``: one of the core's events (``core.events.Event.REGISTRY``).
EVENT = "AgentEvent"


class Method:
    """One method: its params (a model, or ``EVENT``), its result (a type; None: ``null``)."""

    __slots__ = ("direction", "doc", "kind", "name", "params", "result")

    def __init__(
        self,
        name: str,
        params: Any,
        result: Any,
        doc: str,
        *,
        kind: Kind = "request",
        direction: Direction = "client→server",
    ) -> None:
        self.name = name
        self.params = params
        self.result = result
        self.doc = doc
        self.kind = kind
        self.direction = direction

    def __repr__(self) -> str:
        return f"Method({self.name!r})"


def _request(name: str, params: Any, result: Any, doc: str) -> Method:
    return Method(name, params, result, doc)


METHODS: tuple[Method, ...] = (
    _request("agent/session/create", p.SessionCreate, Session, "Create a session."),
    _request(
        "agent/session/list", p.SessionList, r.SessionListResult, "The project's sessions, newest first."
    ),
    _request(
        "agent/session/search", p.SessionSearch, r.SessionSearchResult, "Sessions whose text matches a query."
    ),
    _request("agent/session/export", p.SessionExport, r.SessionExportResult, "A session as Markdown."),
    _request("agent/session/get", p.SessionRef, Session, "One session."),
    _request("agent/session/update", p.SessionUpdate, Session, "Rename a session."),
    _request("agent/session/delete", p.SessionRef, None, "Delete a session and its messages."),
    _request("agent/session/fork", p.SessionFork, Session, "A copy of a session up to a message."),
    _request(
        "agent/session/messages",
        p.SessionMessages,
        r.SessionMessagesResult,
        "A session's messages and parts.",
    ),
    _request(
        "agent/session/prompt",
        p.SessionPrompt,
        MessageWithParts,
        "Send a prompt; answers with the turn's last message.",
    ),
    _request(
        "agent/context/resolve",
        p.ContextResolve,
        r.ContextResolveResult,
        "Context items as the model will see them.",
    ),
    _request(
        "agent/session/queue/list",
        p.SessionRef,
        r.QueueListResult,
        "The prompts waiting for the running turn.",
    ),
    _request("agent/session/queue/update", p.QueueUpdate, QueuedPrompt, "Edit a queued prompt."),
    _request("agent/session/queue/remove", p.QueueRef, None, "Take a prompt out of the queue."),
    _request("agent/session/abort", p.SessionRef, None, "Stop the session's running turn."),
    _request(
        "agent/background/list",
        p.BackgroundList,
        r.BackgroundListResult,
        "Background sub-agents and shells (of a session, or all).",
    ),
    _request(
        "agent/background/stop",
        p.SessionRef,
        BackgroundAgent,
        "Stop a background sub-agent and its processes.",
    ),
    _request(
        "agent/background/message", p.BackgroundMessage, None, "Queue a message into a background sub-agent."
    ),
    _request("agent/background/shell/stop", p.ShellRef, BackgroundShell, "Kill a background shell."),
    _request(
        "agent/worktree/list",
        p.NoParams,
        r.WorktreeListResult,
        "The worktrees of the project's repository, with their sessions and changes.",
    ),
    _request(
        "agent/worktree/diff", p.WorktreeRef, r.WorktreeDiffResult, "A worktree's changes against its base."
    ),
    _request(
        "agent/worktree/merge",
        p.WorktreeMerge,
        r.WorktreeMergeResult,
        "Merge a worktree's branch into the checkout's branch.",
    ),
    _request(
        "agent/worktree/discard",
        p.WorktreeRef,
        r.WorktreeDiscardResult,
        "Remove a worktree, its branch and its sessions.",
    ),
    _request("agent/session/compact", p.SessionRef, MessageWithParts, "Summarise the session now."),
    _request("agent/commands", p.NoParams, r.CommandList, "The slash commands."),
    _request(
        "agent/mcp/resources",
        p.NoParams,
        r.McpResourcesResult,
        "The MCP servers' resources and resource templates, for the @ menu.",
    ),
    _request(
        "agent/mcp/list", p.NoParams, r.McpServersResult, "The MCP servers: status, counts, last error."
    ),
    _request(
        "agent/mcp/set", McpSet, r.McpServersResult, "Enable, disable, restart or log in to an MCP server."
    ),
    _request(
        "agent/session/command", SessionCommand, r.CommandRunResult, "Run a slash command in a session."
    ),
    _request(
        "agent/session/revert", p.SessionRevertParams, RevertResult, "Undo a session back to a message."
    ),
    _request("agent/session/unrevert", p.SessionRef, RevertResult, "Undo the last revert."),
    _request(
        "agent/session/diff",
        p.SessionDiffParams,
        r.SessionDiffResult,
        "The session's (or a message's) file changes.",
    ),
    _request(
        "agent/review/list", p.SessionRef, r.ReviewListResult, "The agent's changes as hunks to review."
    ),
    _request("agent/review/keep", p.ReviewChoice, r.ReviewChange, "Keep hunks."),
    _request("agent/review/undo", p.ReviewChoice, r.ReviewChange, "Undo hunks."),
    _request("agent/session/mode", SessionMode, r.ModeInfo, "Read or set a session's mode."),
    _request("agent/session/effort", SessionEffort, r.EffortInfo, "Read or set a session's effort."),
    _request(
        "agent/review/comment", p.ReviewComments, r.ReviewCommentResult, "Review comments sent as one prompt."
    ),
    _request("agent/session/todo", p.SessionRef, r.TodoListResult, "The session's todo list."),
    _request("agent/permission/reply", p.PermissionReply, None, "Answer a permission dialog."),
    _request("agent/permission/list", p.NoParams, r.PermissionListResult, "The permission dialogs waiting."),
    _request("agent/question/reply", p.QuestionReply, None, "Answer a question dialog."),
    _request("agent/question/reject", p.QuestionReject, None, "Dismiss a question dialog."),
    _request("agent/question/list", p.NoParams, r.QuestionListResult, "The question dialogs waiting."),
    _request(
        "agent/plan/reply", p.PlanReply, None, "Approve, revise (line comments, message) or reject a plan."
    ),
    _request("agent/plan/list", p.NoParams, r.PlanListResult, "The plans waiting for review."),
    _request("agent/config", p.NoParams, r.AgentConfig, "The agents and models for a client's pickers."),
    _request("agent/providers", p.NoParams, r.ProvidersResult, "The model providers for a first-run setup."),
    Method(
        "agent/diagnostics",
        p.Diagnostics,
        None,
        "The editor's own language servers' diagnostics for one file.",
        kind="notification",
    ),
    Method(
        "agent/session/show",
        p.SessionShow,
        None,
        "The sessions the client's chats show now: other front ends of the agent host see it.",
        kind="notification",
    ),
    Method(
        "agent/event",
        EVENT,
        None,
        "A core event: `{type, properties}` (plugin clients only).",
        kind="notification",
        direction="server→client",
    ),
    Method(
        "agent/nextEdit/ready",
        p.NextEditReady,
        None,
        "A next edit is ready at a line (only with `nextEdits` on; plugin clients only).",
        kind="notification",
        direction="server→client",
    ),
    Method(
        "agent/editorQuery",
        p.EditorQuery,
        Any,
        "Ask the editor's language servers (only the queries the client announced).",
        direction="server→client",
    ),
)

BY_NAME: dict[str, Method] = {method.name: method for method in METHODS}


def announced() -> list[str]:
    """The methods ``initialize`` lists in ``experimental.agent.methods``: what a client may call."""
    return sorted(m.name for m in METHODS if m.direction == "client→server")
