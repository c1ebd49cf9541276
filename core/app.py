"""AgentApp: the running agent for one project, exactly ``core.api.Agent`` (a test checks that its
public names are the protocol's). ``open_app`` builds it over what ``core.wiring`` wires; front ends
reach it through ``core.open.open_agent``, tests through ``tests/harness.py``."""

from __future__ import annotations

import asyncio
import importlib
import logging
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from core import app_info
from core.api import (
    CommandList,
    CommandResult,
    CommandSummary,
    ConfigInfo,
    EffortState,
    McpAction,
    McpResourceList,
    McpServerStatus,
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
from core.commands.mcp_prompts import add_prompts
from core.commands.model import CommandInfo
from core.commands.runner import run_command
from core.commands.shell import shell_runner
from core.config.keys import set_mcp_enabled
from core.config.loader import Layer, load_config
from core.config.paths import config_dir
from core.config.schema import Config, McpRemote
from core.dialogs import AppDialogs
from core.editor import EditorIntelligence
from core.errors import ConfigError, InvalidInputError, NotFoundError
from core.events import (
    AgentWarning,
    BackgroundAgent,
    BackgroundShell,
    ConfigUpdated,
    Event,
    FileDiff,
    QueuedPrompt,
)
from core.llm.model import ModelInfo, resolve_small_model
from core.llm.transport import aclose_http_client
from core.message.context_items import ContextItem, ResolvedItem
from core.message.markdown import session_markdown
from core.message.models import MessageWithParts, Session, SessionWorktree, Todo
from core.message.prompt_input import PromptMode, TextInput
from core.message.review import Hunk, ReviewComment, ReviewResult
from core.message.search import SearchFilter, SearchHit
from core.message.title_text import clean_title
from core.next_edits.request import NextEditRequest
from core.next_edits.suggest import suggest
from core.permission.request import PermissionAsk
from core.project import OpenedProject, open_project
from core.record import record
from core.review.comments import project_path, review_prompt
from core.session.interrupted import mark_interrupted
from core.session.prompt import parse_model_ref
from core.session.reader import read_messages
from core.session.records import Place
from core.session.sessions import Sessions
from core.session.snapshots import SnapshotService
from core.tools.base import Tool
from core.tools.editor_tools import EDITOR_TOOLS
from core.tools.paths import read_requests
from core.warmup import warm_up
from core.wiring import Wiring, wire
from core.workspace import DiskWorkspace, Workspace
from core.worktrees import service as worktrees

log = logging.getLogger(__name__)


class AgentApp:
    """One project's agent: implements ``core.api.Agent`` and has no other public member; the
    services it delegates to are the wiring's (``core.wiring``), private here."""

    def __init__(self, wiring: Wiring, config_layers: Sequence[Layer] = ()) -> None:
        # The composition root built every service from typed records; the app only delegates.
        self._wiring = wiring
        self._layers = tuple(config_layers)
        self._reconfiguring = asyncio.Lock()
        self._mcp_retired = Retired()
        self._mcp_logins: dict[str, asyncio.Task[None]] = {}  # browser logins under way, by server
        self._command_aborts: dict[str, set[asyncio.Event]] = {}  # commands expanding, by session

    @property
    def directory(self) -> Path:
        """The project folder the agent was opened in."""
        return self._wiring.place.directory

    @property
    def worktree(self) -> Path:
        """The project's root (the git worktree, else the folder)."""
        return self._wiring.place.worktree

    @property
    def dialogs(self) -> AppDialogs:
        """Pending permission requests and questions."""
        return self._wiring.dialogs

    # --- config: what the running turn pinned, else the current state --------------------

    @property
    def _sessions(self) -> Sessions:
        return self._wiring.stores.sessions

    @property
    def _project_id(self) -> str:
        return self._wiring.stores.project_id

    @property
    def _state(self) -> ConfigState:
        return self._wiring.settings.state

    @property
    def _config(self) -> Config:
        return self._state.config

    @property
    def _snapshots(self) -> SnapshotService:
        return self._state.snapshots

    async def reconfigure(self, layers: Sequence[Layer] | None = None) -> Reconfigured:
        """Resolve the config again — the files, and ``layers`` as the host's layers (None: the
        same as before) — and use it from the next turn on; running turns keep theirs.

        Raises ConfigError, keeping the config in effect, when the new one is invalid.
        """
        layers = self._layers if layers is None else tuple(layers)
        w = self._wiring
        async with self._reconfiguring:
            resolved = await asyncio.to_thread(load_config, self.directory, self.worktree, layers)
            settings = w.settings
            old = settings.current
            settings.current, retired, mcp_warnings = await next_state(settings.parts, old, resolved)
            self._layers = layers
            await self._mcp_retired.retire(retired, after=w.loop.running())
            follow_default(w.choice.moved_defaults, old.config.model, resolved.config.model)
        changed = changed_keys(old.config, resolved.config)
        warnings = [*resolved.warnings, *mcp_warnings]
        for warning in warnings:
            log.warning("config: %s", warning)
        log.info("config reloaded; changed: %s", ", ".join(changed) or "nothing")
        w.stores.bus.publish(ConfigUpdated(changed=changed, **self.config_info().to_wire()))
        return Reconfigured(changed=changed, warnings=warnings)

    async def close(self, grace: float = 0.0) -> None:
        """Stop running turns, flush the store, stop MCP servers; ``grace``: seconds that
        background work (a session title) may take to finish first."""
        await self._wiring.background.close()  # before the loop: no result starts a parent's turn
        await self._wiring.queue.close()
        await self._wiring.loop.close(grace)
        await self._wiring.policy.shells.close()
        for login in self._mcp_logins.values():
            login.cancel()
        await asyncio.gather(*self._mcp_logins.values(), return_exceptions=True)
        await self._mcp_retired.close(self._wiring.settings.current.mcp.managers())
        await self._sessions.close()
        await self._wiring.stores.store.close()
        await aclose_http_client()

    # --- sessions ------------------------------------------------------------------------

    async def create_session(
        self, title: str | None = None, agent: str | None = None, model: str | None = None
    ) -> Session:
        """A new root session in this project."""
        if agent is not None:
            self._state.agents.get(agent)  # NotFoundError names the agents there are
        if model is not None:
            parse_model_ref(model)
        return await self._sessions.create(
            self._project_id, str(self.directory), title=title, worktree=self._own_worktree()
        )

    def _own_worktree(self) -> SessionWorktree | None:
        """The agentls worktree this agent was opened in (its sessions say so), or None."""
        made = worktrees.owning(self.directory, self._wiring.place.data_dir)
        if made is None:
            return None
        return SessionWorktree(name=made.name, branch=made.branch, path=str(made.path))

    async def list_sessions(self, limit: int = 50, before: str | None = None) -> list[Session]:
        """This project's sessions, newest first."""
        return await self._sessions.list(self._project_id, limit=limit, before=before)

    async def get_session(self, session_id: str) -> Session:
        """One session (NotFoundError when it does not exist)."""
        return await self._sessions.get(session_id)

    async def rename_session(self, session_id: str, title: str) -> Session:
        """Give a session the user's title (the agent no longer replaces it)."""
        title = clean_title(title)
        if not title:
            raise InvalidInputError("a session title cannot be empty (control characters are removed)")

        def rename(session: Session) -> None:
            session.title = title

        return await self._sessions.update(session_id, rename)

    async def delete_session(self, session_id: str) -> None:
        """Delete a session with its messages and child sessions."""
        self._wiring.queue.clear(session_id)
        await self._wiring.background.stop_under(session_id)
        await self._wiring.loop.abort(session_id)
        await self._sessions.delete(session_id)

    async def fork_session(self, session_id: str, message_id: str | None = None) -> Session:
        """A copy of the session up to (not including) ``message_id``."""
        return await self._sessions.fork(session_id, message_id)

    async def messages(
        self, session_id: str, limit: int | None = None, before: str | None = None
    ) -> list[MessageWithParts]:
        """A page of the transcript: the newest ``limit`` messages before ``before`` (all of them
        when ``limit`` is None, as ``agent/session/messages`` promises), oldest first."""
        await self._sessions.get(session_id)
        return await read_messages(self._sessions.page, session_id, limit, before)

    async def search_sessions(
        self,
        query: str,
        since: int | None = None,
        until: int | None = None,
        agent: str | None = None,
        limit: int = 20,
    ) -> list[SearchHit]:
        """This project's sessions whose title or text matches ``query``, newest first."""
        where = SearchFilter(project_id=self._project_id, since=since, until=until, agent=agent)
        return await self._wiring.stores.store.search_sessions(query, where, limit=limit)

    async def export_markdown(self, session_id: str) -> str:
        """The whole session as Markdown, tool calls folded."""
        session = await self._sessions.get(session_id)
        return session_markdown(session, await self._sessions.messages(session_id))

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
            return await self._wiring.loop.prompt(session_id, parts, agent=agent, model=model, no_reply=True)
        return await self._wiring.queue.submit(session_id, parts, agent=agent, model=model, mode=mode)

    def queued(self, session_id: str) -> list[QueuedPrompt]:
        """The session's queued prompts, next first."""
        return self._wiring.queue.list(session_id)

    def update_queued(self, session_id: str, queue_id: str, parts: PromptParts) -> QueuedPrompt:
        """Edit a queued prompt before it starts."""
        return self._wiring.queue.update(session_id, queue_id, parts)

    def remove_queued(self, session_id: str, queue_id: str) -> None:
        """Take a prompt out of the queue (its caller gets AbortedError)."""
        self._wiring.queue.remove(session_id, queue_id)

    # --- background work (issue 40) ---------------------------------------------------------

    async def background_agents(self, session_id: str | None = None) -> list[BackgroundAgent]:
        """The background sub-agents (of one parent session, or all), running and recently ended."""
        return self._wiring.background.agents(session_id)

    async def stop_background_agent(self, session_id: str) -> BackgroundAgent:
        """Stop a background sub-agent: its turn, its commands and its background shells."""
        return await self._wiring.background.stop(session_id)

    async def message_background_agent(self, session_id: str, text: str) -> None:
        """Queue a message into a running background sub-agent (its next step sees it)."""
        await self._wiring.background.send(session_id, text)

    async def background_settled(self, session_id: str) -> None:
        """Wait until no background sub-agent of the session runs and their results were answered."""
        await self._wiring.background.settled(session_id)

    async def background_shells(self, session_id: str | None = None) -> list[BackgroundShell]:
        """The background shells (of one session, or all), running and exited."""
        return self._wiring.policy.shells.listing(session_id)

    async def stop_background_shell(self, shell_id: str) -> BackgroundShell:
        """Kill a background shell's process group; its state after."""
        shells = self._wiring.policy.shells
        shell = shells.find(shell_id)
        await shells.kill(shell)
        return shell.summary()

    async def abort(self, session_id: str) -> None:
        """Abort the running turn of a session, and its commands' shell steps (no-op when idle)."""
        for command in self._command_aborts.get(session_id, ()):
            command.set()
        await self._wiring.loop.abort(session_id)

    async def mark_interrupted(self, session_ids: list[str]) -> list[str]:
        """Mark the unfinished turns of sessions a dead process ran (core/session/interrupted.py)."""
        loop = self._wiring.loop
        idle = [session_id for session_id in session_ids if not loop.is_busy(session_id)]
        return await mark_interrupted(self._sessions, idle)

    async def commands(self) -> CommandList:
        """The built-in and user commands (files are read again at each call) and the MCP servers'
        prompts."""
        catalog = await self._command_catalog()
        return CommandList(
            commands=tuple(
                CommandSummary(c.name, c.description, c.kind, c.source, c.hint, c.agent, c.model, c.subtask)
                for c in sorted(catalog.commands.values(), key=_menu_order)
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
        info = self._state.agents.get(chosen) if chosen else self._state.agents.default()
        ruleset = self._wiring.policy.ruleset_for(info, session_id)

        async def ask(request: PermissionAsk) -> None:
            await self._wiring.permissions.ask(session_id, None, None, request, ruleset)

        abort = asyncio.Event()
        self._command_aborts.setdefault(session_id, set()).add(abort)
        sandbox = self._state.sandbox
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
                subagents={a.name for a in self._state.agents.subagents()},
                get_prompt=self._state.mcp.get_prompt,
                attachments=attachments,
            )
        finally:
            running = self._command_aborts.get(session_id, set())
            running.discard(abort)
            if not running:
                self._command_aborts.pop(session_id, None)

    async def _command_catalog(self) -> Catalog:
        home = Path.home()
        config = self._config.command
        catalog = await asyncio.to_thread(load_catalog, config, self.worktree, config_dir(), home)
        add_prompts(catalog, self._state.mcp.prompts())
        return catalog

    async def compact(self, session_id: str) -> MessageWithParts:
        """Summarise the session now (a manual compaction)."""
        return await self._wiring.context.compact_now(session_id)

    async def revert(self, session_id: str, message_id: str, part_id: str | None = None) -> RevertResult:
        """Undo the agent's file changes from ``message_id`` on (refused while busy)."""
        return await self._snapshots.revert(session_id, message_id, part_id)

    async def unrevert(self, session_id: str) -> RevertResult:
        """Undo the last revert."""
        return await self._snapshots.unrevert(session_id)

    async def diff(self, session_id: str, message_id: str | None = None) -> list[FileDiff]:
        """What the agent changed in the session (or since a message)."""
        return await self._snapshots.diff(session_id, message_id)

    async def review(self, session_id: str) -> list[Hunk]:
        """The agent's changes in the session still to review (pending hunks), oldest first."""
        return await self._snapshots.review.pending(session_id)

    async def keep(
        self, session_id: str, hunk_ids: Sequence[str] | None = None, file: str | None = None
    ) -> ReviewResult:
        """Keep pending hunks: by id, every one of ``file``, or all (neither given)."""
        return await self._snapshots.review.keep(session_id, hunk_ids, file)

    async def undo(
        self, session_id: str, hunk_ids: Sequence[str] | None = None, file: str | None = None
    ) -> ReviewResult:
        """Undo pending hunks, keeping the user's edits (conflicts change nothing)."""
        return await self._snapshots.review.undo(session_id, hunk_ids, file)

    async def record_edit(self, session_id: str, path: str, before: str, after: str) -> list[Hunk]:
        """Record an editor's edit as pending hunks of the session (see ``ReviewService.record_edit``)."""
        rel = project_path(path, self.worktree)
        return await self._snapshots.review.record_edit(session_id, rel, before.encode(), after.encode())

    async def todos(self, session_id: str) -> list[Todo]:
        """The session's todo list."""
        return await self._sessions.get_todos(session_id)

    def check_model(self, ref: str | None = None) -> str:
        """``ref`` (default: the configured model) if it can be used; nothing is sent to the provider."""
        ref = ref or self._config.model
        if not ref:
            raise ConfigError(
                'no model is configured: set "model" in agentls.json (e.g. "anthropic/claude-sonnet-4-5") '
                "and give its provider a key with `agentls auth PROVIDER`"
            )
        self._wiring.choice.resolve(ref)  # ConfigError (bad ref) or ProviderError kind "auth" (no key)
        return ref

    def config_info(self) -> ConfigInfo:
        """Agents and models for a client's pickers."""
        return app_info.config_info(self._config, self._state.agents, self._wiring.choice.resolve)

    async def providers(self) -> list[ProviderChoice]:
        """The configured providers, then those agentls can reach with a key, each with its models."""
        return await app_info.provider_choices(self.config_info())

    async def file_at_snapshot(self, snapshot: str, path: str) -> bytes | None:
        """A file's bytes in a step snapshot; None when the file did not exist then."""
        return await self._snapshots.backend.file_at(snapshot, path)

    def model_limits(self, ref: str) -> ModelLimits:
        """Context and output limits of a model (0 when unknown), for a client's context-use gauge."""
        return app_info.model_limits(self._wiring.choice.resolve, ref)

    def subscribe(self, *types: type[Event], session_id: str | None = None) -> Subscription:
        """A queue of the agent's events (of ``types``, or all; of one session, or all)."""
        return self._wiring.stores.bus.subscribe(*types, session_id=session_id)

    def listen(self, callback: Listener, *types: type[Event]) -> Callable[[], None]:
        """Call ``callback`` synchronously for each event; returns the function that stops it."""
        return self._wiring.stores.bus.listen(callback, *types)

    async def show(self, session_ids: Sequence[str]) -> None:
        """In-process there is no other front end to tell which sessions this one shows."""

    def watchers(self, session_id: str) -> list[str]:
        """In-process no other front end shows a session."""
        return []

    async def unrecorded_steps(self, session_id: str, message_id: str | None = None) -> int:
        """How many steps that ``diff`` covers changed files it cannot show (a snapshot failed then)."""
        return await self._snapshots.unrecorded(session_id, message_id)

    # --- mode and effort (core/session/mode.py, core/llm/effort.py) -------------------------

    async def session_mode(self, session_id: str | None, mode: str | None = None) -> ModeState:
        """The session's mode, set first when ``mode`` is given (see ``core.api.Agent``)."""
        return await self._wiring.controls_service.mode(session_id, mode)

    async def session_effort(
        self, session_id: str | None, effort: str | None = None, model: str | None = None
    ) -> EffortState:
        """The session's effort, set first when ``effort`` is given (see ``core.api.Agent``)."""
        return await self._wiring.controls_service.effort(session_id, effort, model)

    async def review_comment(
        self, session_id: str, comments: Sequence[ReviewComment], send: bool = True
    ) -> MessageWithParts:
        """Send review comments to the agent as one prompt (see ``core.review.comments``)."""
        hunks = await self._snapshots.review.hunks(session_id)
        text = await review_prompt(comments, hunks, self._snapshots.workspace, self.worktree)
        return await self.prompt(session_id, [TextInput(text=text)], no_reply=not send, mode="queue")

    async def next_edit(self, request: NextEditRequest) -> str | None:
        """The small model's rewrite of one site's line (see ``core.next_edits.suggest``)."""
        return await suggest(self._wiring.models.stream, self._small_model, request)

    def _small_model(self) -> ModelInfo:
        config = self._config
        return resolve_small_model(config, self._wiring.choice.resolve(self.check_model()))

    async def resolve_context(
        self, session_id: str | None, items: Sequence[ContextItem]
    ) -> list[ResolvedItem]:
        """Each context item as the model will see it (see ``core.session.context_resolver``)."""
        return await self._wiring.context_items.resolve(session_id, items)

    async def mcp_resources(self) -> McpResourceList:
        """The running MCP servers' resources and resource templates."""
        return self._state.mcp.resources()

    async def mcp_servers(self) -> list[McpServerStatus]:
        """The configured MCP servers: running, failed (and why) or disabled."""
        return self._wiring.settings.current.mcp.status()

    async def mcp_set(self, name: str, action: McpAction) -> list[McpServerStatus]:
        """Enable or disable a server (in the user's config, then reconfigured) or restart it."""
        servers = self._wiring.settings.current.config.mcp
        if name not in servers:
            known = ", ".join(sorted(servers)) or "none"
            raise NotFoundError(f"no MCP server {name!r} is configured (configured: {known})")
        if action == "restart":
            await self._restart_mcp(name)
            return await self.mcp_servers()
        wanted = action == "enable"
        await asyncio.to_thread(set_mcp_enabled, name, wanted)
        await self.reconfigure()
        resolved = self._wiring.settings.current.resolved
        if resolved.config.mcp[name].enabled != wanted:
            raise InvalidInputError(
                f"{resolved.source_of(('mcp', name, 'enabled'))} sets mcp.{name}.enabled, which wins over "
                "your own config: change it there"
            )
        return await self.mcp_servers()

    async def mcp_login(self, name: str) -> str | None:
        """Start a browser login to a remote server (see ``core.api.Agent``)."""
        cfg = self._wiring.settings.current.config.mcp.get(name)
        if cfg is None:
            known = ", ".join(sorted(self._wiring.settings.current.config.mcp)) or "none"
            raise NotFoundError(f"no MCP server {name!r} is configured (configured: {known})")
        if not isinstance(cfg, McpRemote):
            raise InvalidInputError(f"{name} is a local MCP server: only remote (HTTP) servers log in")
        earlier = self._mcp_logins.pop(name, None)
        if earlier is not None:  # its listener gives way to the new one
            earlier.cancel()
        auth = await asyncio.to_thread(importlib.import_module, "core.tools.mcp_auth")
        url: str | None
        url, login = await auth.begin_login(name, cfg)
        if url is None:  # it ended before a browser was needed: no login needed, or an error
            await login
            await self._restart_mcp(name)
            return None
        self._mcp_logins[name] = asyncio.create_task(self._finish_mcp_login(name, login))
        return url

    async def _finish_mcp_login(self, name: str, login: asyncio.Task[str]) -> None:
        try:
            await login
        except InvalidInputError as exc:  # LoginError: refused, timed out, a mismatched redirect
            self._wiring.stores.bus.publish(AgentWarning(kind="mcp", message=str(exc)))
            return
        finally:
            self._mcp_logins.pop(name, None)
        await self._restart_mcp(name)

    async def _restart_mcp(self, name: str) -> None:
        w = self._wiring
        async with self._reconfiguring:
            state = w.settings.current
            mcp, retired, warnings = await state.mcp.reconcile(
                state.config.mcp, self.worktree, state.sandbox, restart={name}
            )
            w.settings.current = replace(state, mcp=mcp)
            await self._mcp_retired.retire(retired, after=w.loop.running())
        for warning in warnings:
            log.warning("mcp: %s", warning)


@record(eq=False, repr=False)  # never compared or printed
class OpenedAgent:
    """An agent and the services it was built on (``open_agent`` hands out the agent only; the
    test harness keeps both)."""

    agent: AgentApp
    wiring: Wiring


async def open_app(
    directory: Path,
    *,
    workspace: Workspace | None = None,
    config_layers: Sequence[Layer] = (),
    data_dir: Path | None = None,
    warm: bool = False,
    tools: Sequence[Tool[Any]] = (),
    editor: EditorIntelligence | None = None,
    opened: OpenedProject | None = None,
) -> OpenedAgent:
    """Load config, open the store (with crash recovery) and start MCP servers.

    ``warm``: also load what the first prompt needs (see ``warm_up``); for long-lived hosts.
    ``tools``: the host's own tools, replacing built-in ones with the same id.
    ``editor``: the editor's language servers; the editor tools are offered while it answers them.
    ``opened``: the project ``core.project.open_project`` opened already, with ``config_layers``.
    """
    project = opened or await open_project(directory, data_dir, config_layers)
    wiring = wire(
        place=Place(
            directory=project.directory,
            worktree=project.worktree,
            is_git=project.is_git,
            data_dir=project.data_dir,
        ),
        store=project.store,
        project_id=project.project_id,
        bus=Bus(),
        workspace=workspace or DiskWorkspace(project.worktree),
        resolved=project.resolved,
    )
    app = AgentApp(wiring, config_layers)
    if editor is not None:
        wiring.policy.editor = editor
        for editor_tool in EDITOR_TOOLS:
            wiring.tools.register(editor_tool())
    for tool in tools:
        wiring.tools.register(tool, replace=True)
    try:
        await wiring.permissions.reload()
        await _start_mcp(wiring)
        if warm:
            # What the first prompt would load (see ``core.warmup``): for a host that opens the
            # agent in the background, so that its first prompt reaches the model at once.
            await warm_up(wiring.settings.current.config, wiring.tools.all())
    except BaseException:
        await app.close()  # the store and any MCP server already started
        raise
    return OpenedAgent(agent=app, wiring=wiring)


def _menu_order(command: CommandInfo) -> tuple[bool, bool, str]:
    """Built-ins, then the user's commands, then the MCP servers' prompts; by name in each."""
    return command.kind != "builtin", command.kind == "mcp", command.name


async def _start_mcp(wiring: Wiring) -> None:
    settings = wiring.settings
    state = settings.current
    mcp, _, warnings = await state.mcp.reconcile(state.config.mcp, wiring.place.worktree, state.sandbox)
    for warning in warnings:
        log.warning("mcp: %s", warning)
    settings.current = replace(state, mcp=mcp)
