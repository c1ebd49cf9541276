"""The host's agents: one per project folder and set of config layers, opened once, shared by
every front end that opens the same, kept warm until the host exits. Each agent works through a
``RoutedWorkspace`` and a ``RoutedEditor``: the buffers and language servers its front ends lend."""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from core.api import Agent, Layer
from core.config.paths import worktree_of
from core.errors import AgentError
from core.events import ConfigUpdated, QueueAdded, SessionIdle, SessionStatus
from core.open import open_agent
from core.remote import codec
from core.remote.connection import described
from host.broadcast import Broadcast
from host.lenders import Lenders
from host.routed import RoutedEditor, RoutedWorkspace
from host.routed_bash import RoutedBash

log = logging.getLogger(__name__)


class Project:
    """One opened agent and what the host tells front ends about it."""

    def __init__(self, handle: str, agent: Agent, lenders: Lenders) -> None:
        self.handle = handle
        self.agent = agent
        self.lenders = lenders
        self.facts = facts(agent)
        self.queue_sessions: set[str] = set()  # sessions that queued a prompt: a new front end reads them
        self.busy: set[str] = set()  # sessions whose turn runs now
        self.stop_listening = agent.listen(
            self._on_event, ConfigUpdated, QueueAdded, SessionStatus, SessionIdle
        )
        # After the listener above: a front end's facts are made after it saw a config change.
        self.broadcast = Broadcast(handle, agent, lambda: self.facts)

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
    """Open agents by (folder, layers); concurrent opens of the same one wait for one open."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self._opening: dict[str, asyncio.Task[Project]] = {}
        self._handles = itertools.count(1)
        self.by_handle: dict[str, Project] = {}

    async def open(self, directory: Path, layers: Sequence[Layer]) -> Project:
        """The project's agent, opened now or earlier (a failed open is not kept: the next try opens)."""
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
        project = Project(handle, agent, lenders)
        self.by_handle[handle] = project
        log.info("host: opened %s as %s", directory, handle)
        return project

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
    """What makes two opens the same agent: the project's real path and what the config layers
    say. A layer's name only labels where a value came from, and an empty layer says nothing: VS
    Code sends its settings as an empty ``initializationOptions.config``, the Neovim plugin as
    settings, so two editors with nothing set would otherwise get two agents and not see each
    other's turns."""
    layer_data = [[layer.data, str(layer.path)] for layer in layers if layer.data]
    return json.dumps([str(directory.resolve()), layer_data], sort_keys=True, default=str)
