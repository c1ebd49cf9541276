"""The host's agents: one per project folder and agent-wide config (``core.config.scope``: what a
front end's config layers say, but the model, which is each front end's own, ``host/views.py``),
opened once, shared by every front end that opens the same, kept warm until the host exits. Each
agent works through a ``RoutedWorkspace`` and a ``RoutedEditor``: the buffers and language servers
its front ends lend."""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from core.api import Agent, Layer
from core.config.paths import worktree_of
from core.config.scope import agent_wide
from core.errors import AgentError
from core.events import ConfigUpdated, QueueAdded, SessionIdle, SessionStatus
from core.open import open_agent
from core.remote import codec
from core.remote.connection import Connection, described
from host.broadcast import Broadcast
from host.lenders import Lenders
from host.routed import RoutedEditor, RoutedWorkspace
from host.routed_bash import RoutedBash
from host.views import View, view_facts, view_wire

log = logging.getLogger(__name__)


class Project:
    """One opened agent and what the host tells front ends about it."""

    def __init__(
        self,
        handle: str,
        agent: Agent,
        lenders: Lenders,
        layers: Sequence[Layer] = (),
        directory: Path | None = None,
    ) -> None:
        self.handle = handle
        self.directory = directory or agent.directory  # as opened (resolved): the folder agents share
        self.agent = agent
        self.lenders = lenders
        self.layers = list(layers)  # the agent-wide layers the agent runs with
        self.views: dict[Connection, View] = {}  # each front end's own (host/views.py)
        self.facts = facts(agent)
        self.queue_sessions: set[str] = set()  # sessions that queued a prompt: a new front end reads them
        self.busy: set[str] = set()  # sessions whose turn runs now
        self.stop_listening = agent.listen(
            self._on_event, ConfigUpdated, QueueAdded, SessionStatus, SessionIdle
        )
        # After the listener above: a front end's facts are made after it saw a config change.
        self.broadcast = Broadcast(handle, agent, self.facts_for, self.info_for)

    def attach(self, conn: Connection, view: View) -> Callable[[], None]:
        """Send the project's events to a front end's connection, read with its ``view``; returns
        the detach."""
        self.views[conn] = view
        stop = self.broadcast.add(conn)

        def detach() -> None:
            stop()
            self.views.pop(conn, None)

        return detach

    def facts_for(self, conn: Connection) -> dict[str, Any]:
        """The facts as the front end of ``conn`` sees them."""
        return view_facts(self.facts, self.views.get(conn), self.agent)

    def info_for(self, conn: Connection, properties: dict[str, Any]) -> dict[str, Any]:
        """A ``config.updated``'s properties as the front end of ``conn`` sees them."""
        return view_wire(properties, self.views.get(conn), self.agent)

    def _on_event(self, event: Any) -> None:
        if isinstance(event, QueueAdded):
            self.queue_sessions.add(event.sessionID)
        elif isinstance(event, SessionStatus | SessionIdle):
            track_busy(self.busy, event)
        else:
            self.facts = facts(self.agent)


def track_busy(busy: set[str], event: SessionStatus | SessionIdle) -> None:
    """Follow which sessions run a turn (busy or retrying) from their status events."""
    if isinstance(event, SessionStatus) and event.status.type != "idle":
        busy.add(event.sessionID)
    else:
        busy.discard(event.sessionID)


def facts(agent: Agent) -> dict[str, Any]:
    """What a front end's synchronous methods answer from: the pickers' config and each
    configured model's check (None: usable; else the error the check raised)."""
    info = agent.config_info()
    checks: dict[str, Any] = {}
    for ref in (None, *info.models):
        try:
            agent.check_model(ref)
            checks[ref or ""] = None
        except AgentError as exc:
            checks[ref or ""] = described(exc)
    return {"config_info": codec.dump_result("config_info", info), "checks": checks}


class Projects:
    """Open agents by (folder, agent-wide layers); concurrent opens of the same one wait for one open."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self._opening: dict[str, asyncio.Task[Project]] = {}
        self._handles = itertools.count(1)
        self.by_handle: dict[str, Project] = {}

    async def open(self, directory: Path, layers: Sequence[Layer]) -> Project:
        """The project's agent for ``layers``' agent-wide keys, opened now or earlier (a failed open
        is not kept: the next try opens)."""
        layers = agent_wide(layers)
        key = _key(directory, layers)
        task = self._opening.get(key)
        if task is None:
            task = asyncio.create_task(self._open(f"p{next(self._handles)}", directory, layers))
            self._opening[key] = task
        try:
            return await asyncio.shield(task)
        except Exception:  # any failure: the next open tries again (a fixed config, a freed disk)
            if self._opening.get(key) is task:
                del self._opening[key]
            raise

    async def _open(self, handle: str, directory: Path, layers: Sequence[Layer]) -> Project:
        lenders = Lenders()
        # The agent's workspace is rooted where an in-process one is: the project's worktree.
        worktree = await asyncio.to_thread(worktree_of, directory)
        agent = await open_agent(
            directory,
            workspace=RoutedWorkspace(worktree, lenders),
            editor=RoutedEditor(lenders),
            tools=[RoutedBash(lenders)],
            layers=layers,
            data_dir=self.data_dir,
            warm=True,
        )
        real = await asyncio.to_thread(directory.resolve)
        project = Project(handle, agent, lenders, layers, real)
        self.by_handle[handle] = project
        log.info("host: opened %s as %s", directory, handle)
        return project

    def same_folder(self, project: Project) -> list[Project]:
        """The other agents open on ``project``'s folder (other agent-wide settings)."""
        return [
            other
            for other in self.by_handle.values()
            if other is not project and other.directory == project.directory
        ]

    def rekey(self, project: Project) -> None:
        """File ``project`` under its agent-wide layers after a reconfigure changed them: the next
        open with the layers it had gets an agent of its own. When another agent is filed under the
        new ones already, that one stays the one later opens get."""
        new = _key(project.directory, project.layers)
        for key, task in list(self._opening.items()):
            opened = task.done() and not task.cancelled() and task.exception() is None
            if key != new and opened and task.result() is project:
                del self._opening[key]
                self._opening.setdefault(new, task)

    async def close(self) -> None:
        """Close every agent (their running turns are aborted; what they committed stays)."""
        for project in list(self.by_handle.values()):
            project.stop_listening()
            project.broadcast.stop()
            try:
                await project.agent.close(grace=1.0)
            except Exception:  # one agent's failure must not keep the others open
                log.exception("host: closing %s failed", project.handle)
        self.by_handle.clear()
        self._opening.clear()


def _key(directory: Path, layers: Sequence[Layer]) -> str:
    """What makes two opens the same agent: the project's real path and what the agent-wide config
    layers say. A layer's name only labels where a value came from, and an empty layer says nothing: VS
    Code sends its settings as an empty ``initializationOptions.config``, the Neovim plugin as
    settings, so two editors with nothing set would otherwise get two agents and not see each
    other's turns."""
    layer_data = [[layer.data, str(layer.path)] for layer in layers if layer.data]
    return json.dumps([str(directory.resolve()), layer_data], sort_keys=True, default=str)
