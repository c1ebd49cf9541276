"""The front door: what a front end (the LSP server, `agentls acp`, the CLI) may ask of the agent.

A front end opens an ``Agent`` with ``core.open.open_agent`` and uses nothing else of the core but
this module, the message model (``core.message``), events (``core.events``, ``core.bus``'s
``Subscription``) and errors (``core.errors``). A new capability of the core becomes one method here,
which every front end calls; ``core.app.AgentApp`` implements it. Low in the layers: it names types,
it runs nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol

from core.api_types import (
    AgentSummary,
    CommandItem,
    CommandList,
    CommandResult,
    CommandSummary,
    ConfigInfo,
    EffortState,
    McpAction,
    McpResourceInfo,
    McpResourceList,
    McpServerStatus,
    McpTemplateInfo,
    ModeChoice,
    ModelLimits,
    ModeState,
    PromptParts,
    ProviderChoice,
    ProviderSummary,
    Reconfigured,
    RevertResult,
    unrecorded_warning,
)
from core.bus import Subscription
from core.config.loader import Layer
from core.events import (
    BackgroundAgent,
    BackgroundShell,
    Event,
    FileDiff,
    PermissionRequest,
    PlanReviewRequest,
    QuestionRequest,
    QueuedPrompt,
)
from core.message.context_items import ContextItem, ResolvedItem
from core.message.models import MessageWithParts, Session, Todo
from core.message.prompt_input import PromptMode
from core.message.review import Hunk, ReviewComment, ReviewResult
from core.message.search import SearchHit
from core.next_edits.request import NextEditRequest
from core.permission.rules import Rule, Ruleset
from core.permission.service import Reply
from core.plan.review import PlanAnswer

__all__ = [
    "Agent",
    "AgentSummary",
    "CommandItem",
    "CommandList",
    "CommandResult",
    "CommandSummary",
    "ConfigInfo",
    "Dialogs",
    "EffortState",
    "Layer",
    "McpAction",
    "McpResourceInfo",
    "McpResourceList",
    "McpServerStatus",
    "McpTemplateInfo",
    "ModeChoice",
    "ModeState",
    "ModelLimits",
    "NextEditRequest",
    "PromptMode",
    "PromptParts",
    "ProviderChoice",
    "ProviderSummary",
    "QueuedPrompt",
    "Reconfigured",
    "Reply",
    "RevertResult",
    "ReviewComment",
    "Rule",
    "Ruleset",
    "SearchHit",
    "unrecorded_warning",
]


class Dialogs(Protocol):
    """The questions the agent is waiting on: permission requests and the question tool's."""

    def pending_permissions(self, session_id: str | None = None) -> list[PermissionRequest]:
        """Permission requests not answered yet (of one session, or all)."""
        ...

    async def reply_permission(
        self, request_id: str, reply: Reply, message: str | None = None, edited: str | None = None
    ) -> None:
        """Answer a permission request ("always" is remembered for the project); ``edited``: the
        user's version of the file an edit proposes, written in its place (InvalidInputError when
        the request proposes no file text, or with "reject")."""
        ...

    def pending_questions(self, session_id: str | None = None) -> list[QuestionRequest]:
        """Questions not answered yet (of one session, or all)."""
        ...

    def answer(self, request_id: str, answers: list[list[str]]) -> None:
        """Answer a question: one list of chosen labels (or typed text) per question asked."""
        ...

    def dismiss(self, request_id: str) -> None:
        """Dismiss a question without an answer (the tool call fails, the turn goes on)."""
        ...

    def pending_plans(self, session_id: str | None = None) -> list[PlanReviewRequest]:
        """Plans the plan agent presented (``plan_exit``) that wait for the user (of one session, or all)."""
        ...

    def reply_plan(self, request_id: str, answer: PlanAnswer) -> None:
        """Approve (the build agent carries the plan out), revise (comments and message go back to the
        plan agent) or reject (the turn stops with the message) a plan."""
        ...

    def deny_in_session(self, session_id: str, rules: Ruleset) -> None:
        """Rules that hold for this session only (its "reject always" answers), replacing earlier ones."""
        ...


class SessionReads(Protocol):
    """The reads a chat opens with: the agent answers them, and so does its store before the agent
    has loaded (``core.open.session_reader``)."""

    async def list_sessions(self, limit: int = 50, before: str | None = None) -> list[Session]: ...

    async def get_session(self, session_id: str) -> Session: ...

    async def messages(
        self, session_id: str, limit: int | None = None, before: str | None = None
    ) -> list[MessageWithParts]: ...

    async def todos(self, session_id: str) -> list[Todo]: ...


class Agent(Protocol):
    """One project's agent, as a front end drives it."""

    @property
    def directory(self) -> Path:
        """The project folder the agent was opened in."""
        ...

    @property
    def worktree(self) -> Path:
        """The project's root (the git worktree, else the folder): step snapshots hold paths below it."""
        ...

    @property
    def dialogs(self) -> Dialogs:
        """Pending permission requests and questions."""
        ...

    # --- sessions ------------------------------------------------------------------------

    async def create_session(
        self, title: str | None = None, agent: str | None = None, model: str | None = None
    ) -> Session:
        """A new root session (an unknown agent or a malformed model is refused)."""
        ...

    async def list_sessions(self, limit: int = 50, before: str | None = None) -> list[Session]:
        """This project's sessions, newest first."""
        ...

    async def get_session(self, session_id: str) -> Session:
        """One session (NotFoundError when it does not exist)."""
        ...

    async def rename_session(self, session_id: str, title: str) -> Session:
        """Give a session the user's title."""
        ...

    async def delete_session(self, session_id: str) -> None:
        """Delete a session with its messages and child sessions (its turn is aborted first)."""
        ...

    async def fork_session(self, session_id: str, message_id: str | None = None) -> Session:
        """A copy of the session up to (not including) ``message_id``."""
        ...

    async def messages(
        self, session_id: str, limit: int | None = None, before: str | None = None
    ) -> list[MessageWithParts]:
        """A page of the transcript, oldest first: the newest ``limit`` messages before ``before``;
        every message (before ``before``) when ``limit`` is None."""
        ...

    async def search_sessions(
        self,
        query: str,
        since: int | None = None,
        until: int | None = None,
        agent: str | None = None,
        limit: int = 20,
    ) -> list[SearchHit]:
        """This project's sessions whose title or text matches ``query`` (FTS5 syntax), newest first,
        updated in [since, until) (ms), run with ``agent``; a query that cannot be parsed is an
        InvalidInputError."""
        ...

    async def export_markdown(self, session_id: str) -> str:
        """The whole session as Markdown, tool calls folded (as ``agentls sessions export --format md``)."""
        ...

    async def todos(self, session_id: str) -> list[Todo]:
        """The session's todo list."""
        ...

    async def diff(self, session_id: str, message_id: str | None = None) -> list[FileDiff]:
        """What the agent changed in the session (or since a message)."""
        ...

    async def revert(self, session_id: str, message_id: str, part_id: str | None = None) -> RevertResult:
        """Undo the agent's file changes from ``message_id`` on."""
        ...

    async def unrevert(self, session_id: str) -> RevertResult:
        """Undo the last revert."""
        ...

    async def review(self, session_id: str) -> list[Hunk]:
        """The agent's changes in the session still to review (pending hunks), oldest first."""
        ...

    async def keep(
        self, session_id: str, hunk_ids: Sequence[str] | None = None, file: str | None = None
    ) -> ReviewResult:
        """Keep pending hunks: by id, every one of ``file``, or all (neither given)."""
        ...

    async def undo(
        self, session_id: str, hunk_ids: Sequence[str] | None = None, file: str | None = None
    ) -> ReviewResult:
        """Undo pending hunks (as ``keep`` chooses them), keeping the user's edits; an undo that
        overlaps them is a conflict in the result and changes nothing. The model is told at its
        next step."""
        ...

    async def record_edit(self, session_id: str, path: str, before: str, after: str) -> list[Hunk]:
        """Record an edit made in the editor outside a turn on the session's behalf (the agent's
        pattern applied at another site: ``core.next_edits``) as pending hunks of the session,
        kept and undone as the agent's own. ``path`` is relative to ``worktree`` or absolute
        inside it; ``before`` and ``after`` are the file's whole text around the edit. No change:
        no hunk. An unknown session: NotFoundError; a path outside the project, a session with no
        turn yet: InvalidInputError; nothing is recorded."""
        ...

    async def file_at_snapshot(self, snapshot: str, path: str) -> bytes | None:
        """A file's bytes in a step snapshot (``path`` relative to ``worktree``); None when the file
        did not exist then. An AgentError when the snapshot cannot be read (snapshots off, collected)."""
        ...

    async def compact(self, session_id: str) -> MessageWithParts:
        """Summarise the session now."""
        ...

    # --- turns ---------------------------------------------------------------------------

    async def prompt(
        self,
        session_id: str,
        parts: PromptParts,
        agent: str | None = None,
        model: str | None = None,
        no_reply: bool = False,
        mode: PromptMode = "steer",
    ) -> MessageWithParts:
        """Send a prompt and wait for the final assistant message of the turn that answers it.

        While a turn runs, ``mode`` says what the prompt does: "steer" joins that turn at its next
        step; "queue" waits (``queued``) and runs as its own turn when the running one and the
        prompts queued before it have ended, however they end; "interrupt" (stop and send) goes to
        the front of the queue and aborts the running turn. A prompt removed from the queue, or
        whose session is deleted first, gets AbortedError. A caller that is cancelled (an editor's
        ``$/cancelRequest``) aborts its turn, or leaves the queue: the front end needs nothing of
        its own for it.
        """
        ...

    def queued(self, session_id: str) -> list[QueuedPrompt]:
        """The session's queued prompts, next first (events: ``queue.*``)."""
        ...

    def update_queued(self, session_id: str, queue_id: str, parts: PromptParts) -> QueuedPrompt:
        """Replace a queued prompt's parts (NotFoundError once it has started or left the queue)."""
        ...

    def remove_queued(self, session_id: str, queue_id: str) -> None:
        """Take a prompt out of the queue: its caller gets AbortedError (NotFoundError once started)."""
        ...

    # --- background work (issue 40) ---------------------------------------------------------

    async def background_agents(self, session_id: str | None = None) -> list[BackgroundAgent]:
        """The background sub-agents (of one parent session, or all), running and recently ended
        (events: ``background.agent.updated``, ``background.agent.ended``)."""
        ...

    async def stop_background_agent(self, session_id: str) -> BackgroundAgent:
        """Stop a background sub-agent: its turn is aborted, its commands and background shells are
        killed, and the parent is told it was stopped. NotFoundError: no such sub-agent."""
        ...

    async def message_background_agent(self, session_id: str, text: str) -> None:
        """Queue ``text`` into a running background sub-agent: its next step sees it.
        InvalidInputError once it has ended; NotFoundError: no such sub-agent."""
        ...

    async def background_settled(self, session_id: str) -> None:
        """Wait until the session has no background sub-agent running and the turns their results
        started have ended."""
        ...

    async def background_shells(self, session_id: str | None = None) -> list[BackgroundShell]:
        """The background shells (of one session, or all) with their last lines
        (event: ``background.shell.updated`` when one starts or ends)."""
        ...

    async def stop_background_shell(self, shell_id: str) -> BackgroundShell:
        """Kill a background shell's process group and answer with its state after."""
        ...

    async def abort(self, session_id: str) -> None:
        """Abort the running turn of a session (no-op when idle)."""
        ...

    async def mark_interrupted(self, session_ids: list[str]) -> list[str]:
        """Mark the unfinished turns of these sessions as interrupted: a process that ran them died
        (an agent host killed mid-turn) while others kept the store open, so no crash recovery ran.
        A session whose turn runs in this agent is left alone. The ids of the messages marked
        (events: ``message.updated``, ``message.part.updated``)."""
        ...

    # --- commands ------------------------------------------------------------------------

    async def commands(self) -> CommandList:
        """The built-in and user commands (files are read again at each call)."""
        ...

    async def run_command(
        self,
        session_id: str,
        name: str,
        arguments: str = "",
        agent: str | None = None,
        model: str | None = None,
        attachments: PromptParts = (),
    ) -> CommandResult:
        """Run ``/name arguments``: a built-in action, or the user command's template as a prompt.

        ``agent``/``model``: the session's current choice (a command's own front matter beats them).
        ``attachments``: files the client attached, sent with a prompt command (a built-in refuses them).
        A ``!`shell` `` in a template asks permission as the bash tool does; a rejection raises and
        nothing is sent. A cancelled caller aborts the turn, as with ``prompt``.
        """
        ...

    # --- config and events ---------------------------------------------------------------

    def check_model(self, ref: str | None = None) -> str:
        """``ref`` (default: the configured model) if it can be used: a known provider with its key.

        Raises ConfigError when no model is configured, ProviderError (kind "auth") without a key.
        Nothing is sent to the provider."""
        ...

    def config_info(self) -> ConfigInfo:
        """Agents and models for a client's pickers."""
        ...

    async def providers(self) -> list[ProviderChoice]:
        """The configured providers, then those agentls can reach with a key, each with its models."""
        ...

    def model_limits(self, ref: str) -> ModelLimits:
        """Context and output limits of ``provider/model`` (0 when unknown)."""
        ...

    async def reconfigure(self, layers: Sequence[Layer] | None = None) -> Reconfigured:
        """Apply new host config layers (None: the same again) from the next turn on."""
        ...

    def subscribe(self, *types: type[Event], session_id: str | None = None) -> Subscription:
        """A queue of the agent's events (of ``types``, or all; of one session, or all)."""
        ...

    def listen(self, callback: Callable[[Event], None], *types: type[Event]) -> Callable[[], None]:
        """Call ``callback`` synchronously for each event; returns the function that stops it."""
        ...

    async def show(self, session_ids: Sequence[str]) -> None:
        """Which sessions this front end shows now (none: ``[]``). Attached to the agent host, every
        other front end showing one of them is told (``SessionWatchers``) and so is this one, before
        this returns; in-process there is no other front end and nothing changes."""
        ...

    def watchers(self, session_id: str) -> list[str]:
        """The other front ends showing the session (their names), as last heard; in-process none."""
        ...

    async def close(self, grace: float = 0.0) -> None:
        """Abort running turns, flush the store, stop MCP servers; ``grace``: seconds that background
        work (a session title) may take to finish first."""
        ...

    async def unrecorded_steps(self, session_id: str, message_id: str | None = None) -> int:
        """How many steps that ``diff`` covers changed files it cannot show (a snapshot failed then)."""
        ...

    # --- mode and effort -------------------------------------------------------------------

    async def session_mode(self, session_id: str | None, mode: str | None = None) -> ModeState:
        """The session's autonomy mode, set first when ``mode`` is given: "ask" (a dialog before each
        edit), "auto" (edits land and wait for review; a deny rule still holds) or "plan" (read-only).
        The project remembers the mode chosen last: a new session starts in it. An unknown mode is
        an InvalidInputError naming the modes. No ``session_id``: the mode a new session would start
        in (read only: a mode is chosen for a session, InvalidInputError otherwise)."""
        ...

    async def session_effort(
        self, session_id: str | None, effort: str | None = None, model: str | None = None
    ) -> EffortState:
        """How hard the session's model thinks, set first when ``effort`` is given: one of the levels
        its model offers ("default": back to the model's configured options). A level it does not
        offer is an InvalidInputError naming the levels it has. ``model`` ("provider/model"): the
        model the next prompt goes to, when the client chose one (else the last prompt's). No
        ``session_id``: a new session's effort ("default") and the levels, read only."""
        ...

    async def review_comment(
        self, session_id: str, comments: Sequence[ReviewComment], send: bool = True
    ) -> MessageWithParts:
        """Send the user's review comments to the agent as one prompt, queued behind a running turn,
        and answer with that turn's final message; ``send=False`` stores the prompt without a turn
        (the agent reads it next time) and answers with it. No comments, a path outside the project,
        lines past a file's end: InvalidInputError; an unknown hunk: NotFoundError; nothing is sent."""
        ...

    # --- next edits ------------------------------------------------------

    async def next_edit(self, request: NextEditRequest) -> str | None:
        """The configured small model's rewrite of one line where recent edits' pattern still has
        to be applied (``core.next_edits``), or None: no change, or no small model. A failed or
        timed-out request raises ``ProviderError`` (ask again later; show the user nothing: they
        asked for nothing)."""
        ...

    # --- context items ---------------------------------------------------

    async def resolve_context(
        self, session_id: str | None, items: Sequence[ContextItem]
    ) -> list[ResolvedItem]:
        """Each context item as the model will see it (``text``) and its token count, or its
        ``error``; a prompt then carries the text as a ``ContextInput``. NotFoundError: no such session."""
        ...

    async def mcp_resources(self) -> McpResourceList:
        """The resources and resource templates the running MCP servers list (attached as
        ``McpResourceItem`` context items)."""
        ...

    async def mcp_servers(self) -> list[McpServerStatus]:
        """Every configured MCP server: running (with its tool, resource and prompt counts),
        failed (with its last error) or disabled."""
        ...

    async def mcp_set(self, name: str, action: McpAction) -> list[McpServerStatus]:
        """``enable`` / ``disable`` a server (written to the user's config, then used from the next
        turn on) or ``restart`` it; the servers after. NotFoundError: no such server;
        InvalidInputError: a layer above the user's config decides it."""
        ...

    async def mcp_login(self, name: str) -> str | None:
        """Start a browser login (OAuth) to the remote server ``name``: the authorization address
        for the user to open, or None when the server let agentls in without one (it is restarted).
        The login waits for the browser's redirect in the background (5 minutes); when it completes
        the server restarts with its new tokens, when it fails an ``agent.warning`` says why.
        NotFoundError: no such server; InvalidInputError: a local server, or the login failed at once."""
        ...
