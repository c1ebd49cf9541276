"""AgentApp: the running agent for one project — what the LSP server, the CLI and tests drive."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from core import app_info
from core.agent.agents import Agents
from core.agent.info import AgentInfo
from core.api import (
    CommandList,
    CommandResult,
    CommandSummary,
    ConfigInfo,
    EffortState,
    ModelLimits,
    ModeState,
    PromptParts,
    ProviderChoice,
    Reconfigured,
    RevertResult,
)
from core.app_config import (
    ConfigState,
    Retired,
    changed_keys,
    follow_default,
    next_state,
)
from core.bus import Bus, Listener, Subscription
from core.commands.catalog import Catalog, load_catalog
from core.commands.runner import run_command
from core.commands.shell import shell_runner
from core.config.loader import Layer, ResolvedConfig, load_config
from core.config.paths import config_dir
from core.config.schema import Config
from core.editor import EditorIntelligence
from core.errors import ConfigError, InvalidInputError
from core.events import ConfigUpdated, Event, FileDiff, QueuedPrompt
from core.llm.model import ModelInfo
from core.llm.transport import aclose_http_client
from core.message.context_items import ContextItem, ResolvedItem
from core.message.markdown import session_markdown
from core.message.models import MessageWithParts, ModelRef, Session, Todo, UserMessage
from core.message.prompt_input import PromptMode, TextInput
from core.message.review import Hunk, ReviewComment, ReviewResult
from core.message.search import SearchFilter, SearchHit
from core.message.title_text import clean_title
from core.permission import rules
from core.permission.request import PermissionAsk
from core.project import OpenedProject, open_project
from core.review.comments import review_prompt
from core.session.mode import Controls, SessionControls
from core.session.prompt import parse_model_ref
from core.session.reader import read_messages
from core.session.records import Place
from core.session.retry import RetryPolicy
from core.session.services import StepServices
from core.session.snapshots import SnapshotService
from core.storage.store import Store
from core.tools.base import Tool
from core.tools.context import ToolContext
from core.tools.editor_tools import EDITOR_TOOLS
from core.tools.paths import read_requests
from core.tools.registry import ToolRegistry
from core.warmup import warm_up
from core.wiring import wire
from core.workspace import DiskWorkspace, Workspace

log = logging.getLogger(__name__)


class AgentApp:
    """One project's agent: config, store, sessions, tools, permissions and the session loop."""

    def __init__(
        self,
        *,
        directory: Path,
        worktree: Path,
        is_git: bool,
        resolved: ResolvedConfig,
        data_dir: Path,
        store: Store,
        project_id: str,
        bus: Bus,
        workspace: Workspace,
        config_layers: Sequence[Layer] = (),
    ) -> None:
        self.directory = directory
        self.worktree = worktree
        self.is_git = is_git
        self.data_dir = data_dir
        self.store = store
        self.project_id = project_id
        self.bus = bus
        self.workspace = workspace
        # The composition root builds every service from typed records; the app only delegates.
        self.wiring = wire(
            place=Place(directory=directory, worktree=worktree, is_git=is_git, data_dir=data_dir),
            store=store,
            project_id=project_id,
            bus=bus,
            workspace=workspace,
            resolved=resolved,
        )
        w = self.wiring
        self.sessions = w.stores.sessions
        self.permissions = w.permissions
        self.questions = w.questions
        self.dialogs = w.dialogs
        self.stream = w.models.stream
        self._layers = tuple(config_layers)
        self._reconfiguring = asyncio.Lock()
        self._mcp_retired = Retired()
        self._command_aborts: dict[str, set[asyncio.Event]] = {}  # commands expanding, by session
        self.context = w.context
        self.subtasks = w.subtasks
        self.tools: ToolRegistry = w.tools
        self.loop = w.loop
        self.queue = w.queue

    @property
    def editor(self) -> EditorIntelligence | None:
        """The editor's language servers (the editor tools are offered while it answers them)."""
        return self.wiring.policy.editor

    @editor.setter
    def editor(self, editor: EditorIntelligence | None) -> None:
        self.wiring.policy.editor = editor

    # --- config: everything below reads the state of the running turn, else the current one --

    @property
    def config_state(self) -> ConfigState:
        """The config state in effect here: the one this turn pinned, else the current one."""
        return self.wiring.settings.state

    @property
    def resolved(self) -> ResolvedConfig:
        """The resolved config with the layer of every key."""
        return self.config_state.resolved

    @property
    def config(self) -> Config:
        """The validated config."""
        return self.config_state.config

    @property
    def agents(self) -> Agents:
        """The project's agents."""
        return self.config_state.agents

    @property
    def retry(self) -> RetryPolicy:
        """How failed model requests are retried."""
        return self.config_state.retry

    @property
    def snapshots(self) -> SnapshotService:
        """Step snapshots, revert and diffs."""
        return self.config_state.snapshots

    @property
    def step_services(self) -> StepServices:
        """What a model step uses (store, bus, snapshot hooks)."""
        return self.config_state.step_services

    def pin_config(self) -> None:
        """Keep the config in effect now for the rest of the calling task and the tasks it starts."""
        self.wiring.settings.pin()

    async def reconfigure(self, layers: Sequence[Layer] | None = None) -> Reconfigured:
        """Resolve the config again — the files, and ``layers`` as the host's layers (None: the
        same as before) — and use it from the next turn on; running turns keep theirs.

        Raises ConfigError, keeping the config in effect, when the new one is invalid.
        """
        layers = self._layers if layers is None else tuple(layers)
        async with self._reconfiguring:
            resolved = await asyncio.to_thread(load_config, self.directory, self.worktree, layers)
            settings = self.wiring.settings
            old = settings.current
            settings.current, retired, mcp_warnings = await next_state(settings.parts, old, resolved)
            self._layers = layers
            await self._mcp_retired.retire(retired, after=self.loop.running())
            follow_default(self.wiring.choice.moved_defaults, old.config.model, resolved.config.model)
        changed = changed_keys(old.config, resolved.config)
        warnings = [*resolved.warnings, *mcp_warnings]
        for warning in warnings:
            log.warning("config: %s", warning)
        log.info("config reloaded; changed: %s", ", ".join(changed) or "nothing")
        self.bus.publish(ConfigUpdated(changed=changed, **self.config_info().to_wire()))
        return Reconfigured(changed=changed, warnings=warnings)

    @classmethod
    async def open(
        cls,
        directory: Path,
        *,
        workspace: Workspace | None = None,
        config_layers: Sequence[Layer] = (),
        data_dir: Path | None = None,
        warm: bool = False,
        tools: Sequence[Tool[Any]] = (),
        editor: EditorIntelligence | None = None,
        opened: OpenedProject | None = None,
    ) -> AgentApp:
        """Load config, open the store (with crash recovery) and start MCP servers.

        ``warm``: also load what the first prompt needs (see ``warm_up``); for long-lived hosts.
        ``tools``: the host's own tools, replacing built-in ones with the same id.
        ``editor``: the editor's language servers; the editor tools are offered while it answers them.
        ``opened``: the project ``core.project.open_project`` opened already, with ``config_layers``.
        """
        project = opened or await open_project(directory, data_dir, config_layers)
        app = cls(
            directory=project.directory,
            worktree=project.worktree,
            is_git=project.is_git,
            resolved=project.resolved,
            data_dir=project.data_dir,
            store=project.store,
            project_id=project.project_id,
            bus=Bus(),
            workspace=workspace or DiskWorkspace(project.worktree),
            config_layers=config_layers,
        )
        if editor is not None:
            app.editor = editor
            for editor_tool in EDITOR_TOOLS:
                app.tools.register(editor_tool())
        for tool in tools:
            app.tools.register(tool, replace=True)
        try:
            await app.permissions.reload()
            await app._start_mcp()
            if warm:
                await app.warm_up()
        except BaseException:
            await app.close()  # the store and any MCP server already started
            raise
        return app

    async def warm_up(self) -> None:
        """Load now what the first prompt would (see ``core.warmup``): for a host that opens the
        app in the background, so that its first prompt reaches the model at once."""
        await warm_up(self.config, self.tools.all())

    async def _start_mcp(self) -> None:
        settings = self.wiring.settings
        state = settings.current
        mcp, _, warnings = await state.mcp.reconcile(state.config.mcp, self.worktree, state.sandbox)
        for warning in warnings:
            log.warning("mcp: %s", warning)
        settings.current = replace(state, mcp=mcp)

    async def close(self, grace: float = 0.0) -> None:
        """Stop running turns, flush the store, stop MCP servers; ``grace``: seconds that
        background work (a session title) may take to finish first."""
        await self.queue.close()
        await self.loop.close(grace)
        await self._mcp_retired.close(self.wiring.settings.current.mcp.managers())
        await self.sessions.close()
        await self.store.close()
        await aclose_http_client()

    # --- sessions ------------------------------------------------------------------------

    async def create_session(
        self, title: str | None = None, agent: str | None = None, model: str | None = None
    ) -> Session:
        """A new root session in this project."""
        if agent is not None:
            self.agents.get(agent)  # NotFoundError names the agents there are
        if model is not None:
            parse_model_ref(model)
        return await self.sessions.create(self.project_id, str(self.directory), title=title)

    async def list_sessions(self, limit: int = 50, before: str | None = None) -> list[Session]:
        """This project's sessions, newest first."""
        return await self.sessions.list(self.project_id, limit=limit, before=before)

    async def get_session(self, session_id: str) -> Session:
        """One session (NotFoundError when it does not exist)."""
        return await self.sessions.get(session_id)

    async def rename_session(self, session_id: str, title: str) -> Session:
        """Give a session the user's title (the agent no longer replaces it)."""
        title = clean_title(title)
        if not title:
            raise InvalidInputError("a session title cannot be empty (control characters are removed)")

        def rename(session: Session) -> None:
            session.title = title

        return await self.sessions.update(session_id, rename)

    async def delete_session(self, session_id: str) -> None:
        """Delete a session with its messages and child sessions."""
        self.queue.clear(session_id)
        await self.loop.abort(session_id)
        await self.sessions.delete(session_id)

    async def fork_session(self, session_id: str, message_id: str | None = None) -> Session:
        """A copy of the session up to (not including) ``message_id``."""
        return await self.sessions.fork(session_id, message_id)

    async def messages(
        self, session_id: str, limit: int | None = None, before: str | None = None
    ) -> list[MessageWithParts]:
        """A page of the transcript: the newest ``limit`` messages before ``before`` (all of them
        when ``limit`` is None, as ``agent/session/messages`` promises), oldest first."""
        await self.sessions.get(session_id)
        return await read_messages(self.sessions.page, session_id, limit, before)

    async def search_sessions(
        self,
        query: str,
        since: int | None = None,
        until: int | None = None,
        agent: str | None = None,
        limit: int = 20,
    ) -> list[SearchHit]:
        """This project's sessions whose title or text matches ``query``, newest first."""
        where = SearchFilter(project_id=self.project_id, since=since, until=until, agent=agent)
        return await self.store.search_sessions(query, where, limit=limit)

    async def export_markdown(self, session_id: str) -> str:
        """The whole session as Markdown, tool calls folded."""
        session = await self.sessions.get(session_id)
        return session_markdown(session, await self.sessions.messages(session_id))

    async def prompt(
        self,
        session_id: str,
        parts: PromptParts,
        agent: str | None = None,
        model: str | None = None,
        no_reply: bool = False,
        mode: PromptMode = "steer",
    ) -> MessageWithParts:
        """Send a prompt and wait for the final assistant message of its turn (``mode``: what it
        does while a turn runs, see ``core.session.queue``)."""
        if no_reply:
            return await self.loop.prompt(session_id, parts, agent=agent, model=model, no_reply=True)
        return await self.queue.submit(session_id, parts, agent=agent, model=model, mode=mode)

    def queued(self, session_id: str) -> list[QueuedPrompt]:
        """The session's queued prompts, next first."""
        return self.queue.list(session_id)

    def update_queued(self, session_id: str, queue_id: str, parts: PromptParts) -> QueuedPrompt:
        """Edit a queued prompt before it starts."""
        return self.queue.update(session_id, queue_id, parts)

    def remove_queued(self, session_id: str, queue_id: str) -> None:
        """Take a prompt out of the queue (its caller gets AbortedError)."""
        self.queue.remove(session_id, queue_id)

    async def abort(self, session_id: str) -> None:
        """Abort the running turn of a session, and its commands' shell steps (no-op when idle)."""
        for command in self._command_aborts.get(session_id, ()):
            command.set()
        await self.loop.abort(session_id)

    async def commands(self) -> CommandList:
        """The built-in and user commands (files are read again at each call)."""
        catalog = await self._command_catalog()
        return CommandList(
            commands=tuple(
                CommandSummary(c.name, c.description, c.kind, c.source, c.hint, c.agent, c.model, c.subtask)
                for c in sorted(catalog.commands.values(), key=lambda c: (c.kind != "builtin", c.name))
            ),
            errors=tuple(str(e) for e in catalog.errors),
            warnings=tuple(catalog.warnings),
        )

    async def run_command(
        self,
        session_id: str,
        name: str,
        arguments: str = "",
        agent: str | None = None,
        model: str | None = None,
        attachments: PromptParts = (),
    ) -> CommandResult:
        """Run ``/name arguments`` in a session (see ``core.api.Agent.run_command``)."""
        catalog = await self._command_catalog()
        found = catalog.commands.get(name.removeprefix("/"))
        chosen = (found.agent if found else None) or agent  # the agent that answers judges its shell
        info = self.agents.get(chosen) if chosen else self.agents.default()
        ruleset = self.ruleset_for(info, session_id)

        async def ask(request: PermissionAsk) -> None:
            await self.permissions.ask(session_id, None, None, request, ruleset)

        abort = asyncio.Event()
        self._command_aborts.setdefault(session_id, set()).add(abort)
        sandbox = self.config_state.sandbox
        shell = shell_runner(
            ask, self.directory, self.worktree, abort, sandbox=sandbox, session_id=session_id
        )

        async def check_file(path: Path) -> None:  # a template's @file asks as the read tool does
            for request in read_requests(path, self.worktree):
                await ask(request)

        try:
            return await run_command(
                self,
                catalog,
                session_id,
                name,
                arguments,
                agent=agent,
                model=model,
                shell=shell,
                check_file=check_file,
                attachments=attachments,
            )
        finally:
            running = self._command_aborts.get(session_id, set())
            running.discard(abort)
            if not running:
                self._command_aborts.pop(session_id, None)

    async def _command_catalog(self) -> Catalog:
        home = Path.home()
        return await asyncio.to_thread(load_catalog, self.config.command, self.worktree, config_dir(), home)

    def subagent_names(self) -> set[str]:
        """The agents a prompt can hand work to (``@name``, a subtask command)."""
        return {a.name for a in self.agents.subagents()}

    def is_busy(self, session_id: str) -> bool:
        """Whether a turn is running."""
        return self.loop.is_busy(session_id)

    async def compact(self, session_id: str) -> MessageWithParts:
        """Summarise the session now (a manual compaction)."""
        return await self.context.compact_now(session_id)

    async def revert(self, session_id: str, message_id: str, part_id: str | None = None) -> RevertResult:
        """Undo the agent's file changes from ``message_id`` on (refused while busy)."""
        return await self.snapshots.revert(session_id, message_id, part_id)

    async def unrevert(self, session_id: str) -> RevertResult:
        """Undo the last revert."""
        return await self.snapshots.unrevert(session_id)

    async def diff(self, session_id: str, message_id: str | None = None) -> list[FileDiff]:
        """What the agent changed in the session (or since a message)."""
        return await self.snapshots.diff(session_id, message_id)

    async def review(self, session_id: str) -> list[Hunk]:
        """The agent's changes in the session still to review (pending hunks), oldest first."""
        return await self.snapshots.review.pending(session_id)

    async def keep(
        self, session_id: str, hunk_ids: Sequence[str] | None = None, file: str | None = None
    ) -> ReviewResult:
        """Keep pending hunks: by id, every one of ``file``, or all (neither given)."""
        return await self.snapshots.review.keep(session_id, hunk_ids, file)

    async def undo(
        self, session_id: str, hunk_ids: Sequence[str] | None = None, file: str | None = None
    ) -> ReviewResult:
        """Undo pending hunks, keeping the user's edits (conflicts change nothing)."""
        return await self.snapshots.review.undo(session_id, hunk_ids, file)

    async def todos(self, session_id: str) -> list[Todo]:
        """The session's todo list."""
        return await self.sessions.get_todos(session_id)

    def check_model(self, ref: str | None = None) -> str:
        """``ref`` (default: the configured model) if it can be used; nothing is sent to the provider."""
        ref = ref or self.config.model
        if not ref:
            raise ConfigError(
                'no model is configured: set "model" in agentls.json (e.g. "anthropic/claude-sonnet-4-5") '
                "and give its provider a key with `agentls auth PROVIDER`"
            )
        self.resolve_model(ref)  # ConfigError (bad ref) or ProviderError kind "auth" (no key)
        return ref

    def config_info(self) -> ConfigInfo:
        """Agents and models for a client's pickers."""
        return app_info.config_info(self.config, self.agents, self.resolve_model)

    async def providers(self) -> list[ProviderChoice]:
        """The configured providers, then those agentls can reach with a key, each with its models."""
        return await app_info.provider_choices(self.config_info())

    async def file_at_snapshot(self, snapshot: str, path: str) -> bytes | None:
        """A file's bytes in a step snapshot; None when the file did not exist then."""
        return await self.snapshots.backend.file_at(snapshot, path)

    def model_limits(self, ref: str) -> ModelLimits:
        """Context and output limits of a model (0 when unknown), for a client's context-use gauge."""
        return app_info.model_limits(self.resolve_model, ref)

    def subscribe(self, *types: type[Event], session_id: str | None = None) -> Subscription:
        """A queue of the agent's events (of ``types``, or all; of one session, or all)."""
        return self.bus.subscribe(*types, session_id=session_id)

    def listen(self, callback: Listener, *types: type[Event]) -> Callable[[], None]:
        """Call ``callback`` synchronously for each event; returns the function that stops it."""
        return self.bus.listen(callback, *types)

    # --- models and rules, for the app's own methods and its hosts ------------------------

    def carry_model(self, ref: ModelRef) -> ModelRef:
        """The model a session whose last prompt used ``ref`` goes on with (``ModelChoice.carry``)."""
        return self.wiring.choice.carry(ref)

    def resolve_model(self, ref: str) -> ModelInfo:
        """ModelInfo for ``provider/model``."""
        return self.wiring.choice.resolve(ref)

    def small_model(self, user: UserMessage) -> ModelInfo | None:
        """The model for titles and summaries (None, with a warning event, when there is none)."""
        return self.wiring.choice.small(user)

    def ruleset_for(self, agent: AgentInfo, session_id: str) -> rules.Ruleset:
        """The rules a call in this session is judged by (approvals are added by the service)."""
        return self.wiring.policy.ruleset_for(agent, session_id)

    def tool_context(
        self,
        session_id: str,
        agent: AgentInfo,
        abort: asyncio.Event,
        ruleset: rules.Ruleset,
        message_id: str,
        call_id: str,
    ) -> ToolContext:
        """The context for one tool call, its ``ask`` bound once to the call's ids and ``ruleset``."""
        return self.wiring.policy.tool_context(session_id, agent, abort, ruleset, message_id, call_id)

    async def unrecorded_steps(self, session_id: str, message_id: str | None = None) -> int:
        """How many steps that ``diff`` covers changed files it cannot show (a snapshot failed then)."""
        return await self.snapshots.unrecorded(session_id, message_id)

    # --- mode and effort (core/session/mode.py, core/llm/effort.py) -------------------------

    @property
    def controls(self) -> SessionControls:
        """Each session's mode and effort."""
        return self.wiring.controls

    async def session_controls(self, session_id: str) -> Controls:
        """The session's mode and effort, loaded (a step reads them before its rules)."""
        return await self.controls.get(session_id)

    async def session_mode(self, session_id: str | None, mode: str | None = None) -> ModeState:
        """The session's mode, set first when ``mode`` is given (see ``core.api.Agent``)."""
        return await self.wiring.controls_service.mode(session_id, mode)

    async def session_effort(
        self, session_id: str | None, effort_level: str | None = None, model: str | None = None
    ) -> EffortState:
        """The session's effort, set first when ``effort_level`` is given (see ``core.api.Agent``)."""
        return await self.wiring.controls_service.effort(session_id, effort_level, model)

    async def review_comment(
        self, session_id: str, comments: Sequence[ReviewComment], send: bool = True
    ) -> MessageWithParts:
        """Send review comments to the agent as one prompt (see ``core.review.comments``)."""
        hunks = await self.snapshots.review.hunks(session_id)
        text = await review_prompt(comments, hunks, self.snapshots.workspace, self.worktree)
        return await self.prompt(session_id, [TextInput(text=text)], no_reply=not send, mode="queue")

    async def resolve_context(
        self, session_id: str | None, items: Sequence[ContextItem]
    ) -> list[ResolvedItem]:
        """Each context item as the model will see it (see ``core.session.context_resolver``)."""
        return await self.wiring.context_items.resolve(session_id, items)
