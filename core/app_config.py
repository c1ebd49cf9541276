"""Everything the app derives from its config, built as one unit so that a reconfigure swaps it whole.

A ``ConfigState`` holds the resolved config and what is built from it: the agents, the retry policy,
the snapshot service (and the step hooks over it) and the MCP servers with their tools. The rest of
the app reads config only through its current state. A turn pins the state it started with (a
context variable, which the tasks a turn starts — tool calls, subagents, its title — inherit), so a
reconfigure applies from the next turn on and a running turn never mixes two configs.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
from collections.abc import Callable, Collection, Mapping
from contextvars import ContextVar
from dataclasses import field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.agent.agents import Agents
from core.api_types import McpResourceList, McpServerStatus
from core.bus import Bus
from core.config.loader import ResolvedConfig
from core.config.merge import format_path
from core.config.schema import Config, McpRemote, McpServer
from core.errors import ConfigError, InvalidInputError, NotFoundError
from core.events import AgentWarning
from core.hooks.service import Hooks
from core.hooks.settings import claude_settings
from core.hooks.settings import parse as parse_hooks
from core.llm import catalog
from core.record import record
from core.sandbox.sandbox import Notice, Sandbox, once
from core.sandbox.settings import sandbox_settings
from core.session.prompt import parse_model_ref
from core.session.retry import RetryPolicy
from core.session.services import StepServices
from core.session.sessions import Sessions
from core.session.snapshots import SnapshotService
from core.tools.base import Tool
from core.uri_template import template_matches
from core.workspace import Workspace

if TYPE_CHECKING:
    from core.tools.mcp import McpManager
    from core.tools.mcp_listing import McpPrompt

log = logging.getLogger(__name__)


@record
class McpEntry:
    """One configured MCP server: the config it was started with, and its manager (None: not running)."""

    config: McpServer
    manager: McpManager | None
    error: str | None = None  # why it did not start
    needs_login: bool = False  # it answered 401 and no stored token was usable


@record
class McpServers:
    """The MCP servers of one config state, one manager each, so that one can be replaced alone."""

    entries: Mapping[str, McpEntry] = field(default_factory=dict)

    def tools(self) -> list[Tool[Any]]:
        """The tools of every connected server."""
        return [tool for e in self.entries.values() if e.manager is not None for tool in e.manager.tools()]

    def instructions(self, offered: Collection[str]) -> list[tuple[str, str]]:
        """(server, instructions) of each running server that gave some and has a tool in
        ``offered``, in the config's order (the same bytes at every step, for the prompt cache)."""
        out = []
        for name, entry in self.entries.items():
            manager = entry.manager
            if manager is None or name not in manager.instructions:
                continue
            if any(tool.id in offered for tool in manager.tools()):
                out.append((name, manager.instructions[name]))
        return out

    def prompts(self) -> list[McpPrompt]:
        """The prompts of every connected server, in the config's order."""
        return [p for e in self.entries.values() if e.manager is not None for p in e.manager.prompts]

    async def get_prompt(self, prompt: McpPrompt, arguments: dict[str, str]) -> list[Any]:
        """The messages ``prompt`` renders with ``arguments`` (NotFoundError: its server is gone)."""
        entry = self.entries.get(prompt.server)
        if entry is None or entry.manager is None:
            raise NotFoundError(f"the MCP server {prompt.server} is not connected")
        return await entry.manager.get_prompt(prompt, arguments)

    def resources(self) -> McpResourceList:
        """The resources and resource templates of every connected server."""
        running = [e.manager for e in self.entries.values() if e.manager is not None]
        return McpResourceList(
            tuple(r for m in running for r in m.resources), tuple(t for m in running for t in m.templates)
        )

    async def read_resource(self, server: str | None, uri: str) -> tuple[str, list[Any]]:
        """The server that read ``uri`` (``server``, else the first that lists it or a template
        that makes it) and the contents it gave. NotFoundError when no running server has it."""
        if server is None:
            server = self._server_of(uri)
        entry = self.entries.get(server)
        if entry is None or entry.manager is None:
            running = ", ".join(n for n, e in self.entries.items() if e.manager is not None) or "none"
            raise NotFoundError(f"no MCP server {server} is running (running: {running})")
        return server, await entry.manager.read_resource(server, uri)

    def _server_of(self, uri: str) -> str:
        listed = self.resources()
        for resource in listed.resources:
            if resource.uri == uri:
                return resource.server
        for template in listed.templates:
            if template_matches(template.uri_template, uri):
                return template.server
        raise NotFoundError(f"no running MCP server lists the resource {uri}")

    def managers(self) -> list[McpManager]:
        """Every manager this state started or kept."""
        return [e.manager for e in self.entries.values() if e.manager is not None]

    def status(self) -> list[McpServerStatus]:
        """Each configured server: running (with what it offers), failed (and why), needing a login
        (remote servers behind OAuth) or disabled."""
        out = []
        for name, entry in self.entries.items():
            cfg, manager = entry.config, entry.manager
            auth = _auth_state(entry)
            if not cfg.enabled:
                out.append(McpServerStatus(name, cfg.type, False, "disabled", auth=auth))
            elif entry.needs_login:
                error = f"it needs a login: run `agentls mcp login {name}`"
                out.append(McpServerStatus(name, cfg.type, True, "needs-login", error=error, auth=auth))
            elif manager is None or manager.failure is not None:
                error = (manager.failure if manager is not None else entry.error) or "not started"
                out.append(McpServerStatus(name, cfg.type, True, "failed", error=error, auth=auth))
            else:
                resources = len(manager.resources) + len(manager.templates)
                counts = (len(manager.tools()), resources, len(manager.prompts))
                out.append(McpServerStatus(name, cfg.type, True, "running", *counts, auth=auth))
        return out

    async def reconcile(
        self,
        wanted: Mapping[str, McpServer],
        cwd: Path,
        sandbox: Sandbox | None = None,
        restart: Collection[str] = (),
    ) -> tuple[McpServers, list[McpManager], list[str]]:
        """The servers for ``wanted``: unchanged ones kept running, added or changed ones started.

        Returns the new set, the managers it no longer uses (the caller stops them when no turn
        needs them) and the warnings of servers that failed to start. A server whose config did not
        change is not retried, even if it failed: only a change of its config starts it again.
        Local servers start confined by ``sandbox`` (unless their config says ``"sandbox": false``).
        ``restart``: servers started again even so (one that failed or crashed, at the user's word).
        """
        kept = {
            n: e
            for n, e in self.entries.items()
            if n in wanted and e.config == wanted[n] and n not in restart
        }
        to_start = {n: cfg for n, cfg in wanted.items() if n not in kept}
        started, warnings = await _start(to_start, cwd, sandbox)
        entries = {**kept, **started}
        retired = [e.manager for n, e in self.entries.items() if n not in kept and e.manager is not None]
        return McpServers({n: entries[n] for n in wanted}), retired, warnings


def _auth_state(entry: McpEntry) -> str | None:
    """A remote server's login: "needs-login", "logged-in" (tokens stored for its URL) or
    "not-needed" (it runs without); None for a local server, one whose headers carry their own
    Authorization, or one that is not running and has no tokens (unknown)."""
    cfg = entry.config
    if not isinstance(cfg, McpRemote) or not cfg.uses_oauth:
        return None
    if entry.needs_login:
        return "needs-login"
    from core.tools.mcp_tokens import logged_in  # small: no SDK import

    try:
        if logged_in(cfg.url):
            return "logged-in"
    except ConfigError as exc:  # the token file is broken: the server's start says so, as its error
        log.warning("mcp: %s", exc)
        return None
    return "not-needed" if entry.manager is not None and entry.manager.failure is None else None


async def _start(
    servers: Mapping[str, McpServer], cwd: Path, sandbox: Sandbox | None
) -> tuple[dict[str, McpEntry], list[str]]:
    enabled = {name: cfg for name, cfg in servers.items() if cfg.enabled}
    entries = {name: McpEntry(cfg, None) for name, cfg in servers.items() if not cfg.enabled}
    if not enabled:
        return entries, []
    # The MCP SDK costs more to import than the rest of the agent: only when a server is on.
    module = await asyncio.to_thread(importlib.import_module, "core.tools.mcp")
    managers = {
        name: module.McpManager({name: cfg}, cwd=cwd, sandbox=sandbox) for name, cfg in enabled.items()
    }
    try:
        await asyncio.gather(*(m.start() for m in managers.values()))
    except BaseException:  # cancelled (the app is closing): leave no server behind
        await asyncio.gather(*(m.close() for m in managers.values()), return_exceptions=True)
        raise
    warnings: list[str] = []
    for name, manager in managers.items():
        warnings.extend(manager.warnings)
        if name in manager.connected:
            entries[name] = McpEntry(enabled[name], manager)
        else:
            await manager.close()
            error = "; ".join(manager.warnings) or None
            entries[name] = McpEntry(enabled[name], None, error, name in manager.needs_login)
    return entries, warnings


@record
class ConfigState:
    """The resolved config and what the app built from it; ``owner`` is the app it belongs to."""

    owner: object
    resolved: ResolvedConfig
    agents: Agents
    retry: RetryPolicy
    snapshots: SnapshotService
    step_services: StepServices
    mcp: McpServers
    sandbox: Sandbox
    hooks: Hooks

    @property
    def config(self) -> Config:
        """The validated config."""
        return self.resolved.config


@record
class StateParts:
    """What building a state needs from the app (fixed for the app's lifetime)."""

    owner: object
    worktree: Path
    data_dir: Path
    project_id: str
    workspace: Workspace
    sessions: Sessions
    bus: Bus
    is_busy: Callable[[str], bool]


def build_state(
    parts: StateParts, resolved: ResolvedConfig, previous: ConfigState | None = None
) -> ConfigState:
    """Agents, retry policy and snapshots for ``resolved``; MCP servers are added by ``with_mcp``.

    The snapshot service of ``previous`` is kept when the snapshot settings did not change (it
    holds the edit journal's state).
    """
    config = resolved.config
    agents = Agents.load(config, parts.worktree)
    for warning in agents.warnings:
        log.warning("agents: %s", warning)
    retry = RetryPolicy(
        initial_delay=config.retry.initial_delay,
        max_delay=config.retry.max_delay,
        max_attempts=config.retry.max_attempts,
    )
    if previous is not None and previous.config.snapshot == config.snapshot:
        snapshots, services = previous.snapshots, previous.step_services
    else:
        snapshots = SnapshotService.create(
            config, parts.data_dir, parts.project_id, parts.worktree, parts.workspace, parts.sessions,
            parts.bus, parts.is_busy,
        )  # fmt: skip
        services = StepServices(
            sessions=parts.sessions,
            bus=parts.bus,
            snapshots=snapshots.hooks(),
            on_patch=snapshots.on_patch,
            review_note=snapshots.review.tell,
        )
    mcp = previous.mcp if previous is not None else McpServers()
    # The fallback notice is said once per app, not once per config: it is carried over.
    notice = previous.sandbox.notice if previous is not None else sandbox_notice(parts.bus)
    sandbox_config, confined_mcp, ignored = sandbox_settings(resolved)
    for warning in ignored:
        log.warning("sandbox: %s", warning)
        parts.bus.publish(AgentWarning(kind="sandbox", message=warning))
    sandbox = Sandbox(sandbox_config, (parts.worktree,), notice, confined_mcp=confined_mcp)
    return ConfigState(
        parts.owner, resolved, agents, retry, snapshots, services, mcp, sandbox, hooks_of(parts, config)
    )


def hooks_of(parts: StateParts, config: Config) -> Hooks:
    """The hooks of agentls config and of the project's Claude Code settings (trusted projects only);
    a hook that cannot be used is said once, as a warning."""
    entries, warnings = parse_hooks(config.hooks, "agentls config")
    claude, more = claude_settings(parts.worktree)
    for warning in warnings + more:
        log.warning("hooks: %s", warning)
        parts.bus.publish(AgentWarning(kind="hooks", message=warning))
    return Hooks(entries + claude, parts.worktree)


def sandbox_notice(bus: Bus) -> Notice:
    """Tell every client, once, that commands run without an OS sandbox (``agent.warning``)."""

    def publish(message: str, session_id: str | None) -> None:
        log.info("sandbox: %s", message)  # the event is what the user reads
        bus.publish(AgentWarning(kind="sandbox", message=message, sessionID=session_id))

    return once(publish)


async def next_state(
    parts: StateParts, old: ConfigState, resolved: ResolvedConfig
) -> tuple[ConfigState, list[McpManager], list[str]]:
    """The state for ``resolved`` after ``old``: its MCP servers reconciled, the managers it no longer
    uses, and the MCP warnings. ConfigError when ``resolved`` cannot replace a working config."""
    check_model_refs(resolved)
    state = build_state(parts, resolved, previous=old)
    mcp, retired, warnings = await old.mcp.reconcile(resolved.config.mcp, parts.worktree, state.sandbox)
    return replace(state, mcp=mcp), retired, warnings


class Retired:
    """MCP managers a reconfigure dropped: stopped once the turns that may still call them end."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[None]] = set()

    async def retire(self, managers: list[McpManager], *, after: list[asyncio.Task[Any]]) -> None:
        """Stop ``managers`` now when ``after`` is empty, else in the background once it is done."""
        if not managers:
            return
        if not after:
            await _close(managers)
            return

        async def stop() -> None:
            await asyncio.wait(after)
            await _close(managers)

        task = asyncio.ensure_future(stop())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def close(self, also: list[McpManager]) -> None:
        """Wait for the retired managers to stop (their turns must be over), then stop ``also``."""
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await _close(also)


async def _close(managers: list[McpManager]) -> None:
    await asyncio.gather(*(m.close() for m in managers), return_exceptions=True)


def check_model_refs(resolved: ResolvedConfig) -> None:
    """ConfigError naming the layer when a model reference is not ``provider/model``, or names a
    provider that is neither configured (``provider.<name>``) nor one litellm serves: every prompt
    on it would fail. Checked at load and before a reconfigure replaces a working config."""
    config = resolved.config
    refs: dict[tuple[str, ...], str | None] = {("model",): config.model, ("small_model",): config.small_model}
    refs.update({("agent", name, "model"): agent.model for name, agent in config.agent.items()})
    for path, ref in refs.items():
        if ref is None:
            continue
        try:
            provider = parse_model_ref(ref).providerID
        except InvalidInputError as exc:
            raise ConfigError(f"{resolved.source_of(path)}: {format_path(path)}: {exc}") from None
        if provider not in config.provider and not catalog.is_known_provider(provider):
            raise ConfigError(
                f"{resolved.source_of(path)}: {format_path(path)}: unknown provider {provider!r} in {ref!r}: "
                f"add it under provider.{provider} (with litellm_provider and options.api_base), or use "
                "a provider litellm serves, such as anthropic or openai"
            )


def changed_keys(old: Config, new: Config) -> list[str]:
    """The top-level keys whose values differ."""
    before, after = old.model_dump(mode="json"), new.model_dump(mode="json")
    return sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))


def follow_default(moved: dict[str, str], old: str | None, new: str | None) -> None:
    """Record that the default model went from ``old`` to ``new``: sessions on ``old`` (or on a
    default it had replaced) follow it; a session on ``new`` already is where the default is."""
    if old is None or new is None or old == new:
        return
    for key, target in moved.items():
        if target == old:
            moved[key] = new
    moved[old] = new
    moved.pop(new, None)


# The state a turn runs with. One variable for every app: a state answers only to its owner.
_PINNED: ContextVar[ConfigState | None] = ContextVar("agentls_turn_config", default=None)


def pinned(owner: object) -> ConfigState | None:
    """The state the current task pinned for ``owner``, if any."""
    state = _PINNED.get()
    return state if state is not None and state.owner is owner else None


def pin(state: ConfigState) -> None:
    """Keep ``state`` for the rest of the current task and the tasks it starts."""
    _PINNED.set(state)


class LiveSettings:
    """The config state in effect (``core.session.records.Settings``): the one the running turn
    pinned, else the current one; ``reconfigure`` replaces ``current`` whole."""

    def __init__(self, parts: StateParts, resolved: ResolvedConfig) -> None:
        # The states it builds answer to it (``owner``): a turn pins one for this agent only.
        self.parts = replace(parts, owner=self)
        self.current = build_state(self.parts, resolved)

    @property
    def state(self) -> ConfigState:
        """The state in effect here: the one this turn pinned, else the current one."""
        return pinned(self) or self.current

    @property
    def config(self) -> Config:
        """The validated config."""
        return self.state.config

    @property
    def agents(self) -> Agents:
        """The project's agents."""
        return self.state.agents

    @property
    def retry(self) -> RetryPolicy:
        """How failed model requests are retried."""
        return self.state.retry

    @property
    def step_services(self) -> StepServices:
        """What a model step uses (store, bus, snapshot hooks)."""
        return self.state.step_services

    @property
    def hooks(self) -> Hooks:
        """The user's hooks (core.hooks) of the config in effect."""
        return self.state.hooks

    def pin(self) -> None:
        """Keep the state in effect now for the rest of the calling task and the tasks it starts."""
        pin(self.state)
