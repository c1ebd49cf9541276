"""What the ACP front end keeps per session: its project's agent, mode, model and turn state."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from core.permission.rules import Rule

if TYPE_CHECKING:
    from acp_server.projects import Project


@dataclass
class AcpSession:
    """One core session opened by the client (``session/new``, ``load``, ``resume`` or ``fork``)."""

    id: str
    project: Project
    cwd: Path
    mode: str  # the agent the next prompt runs with
    model: str | None  # "provider/model"; None: the agent's or the config's default
    # The prompts in flight, oldest first: the running one, then those queued behind it (core.api's
    # mode "queue"); those a session/cancel stopped are in ``cancelled`` until they answer.
    turns: list[asyncio.Task[object]] = field(default_factory=list)
    cancelled: set[asyncio.Task[object]] = field(default_factory=set)
    # "Reject always" answers: deny rules for the rest of this session (ACP has no place to keep them).
    denied: list[Rule] = field(default_factory=list)
    title: str | None = None
    # The commands the client was last told of (name, description, hint): re-sent when they change.
    commands_sent: tuple[tuple[str, str, str], ...] | None = None
    # The effort the client was last shown in the session's options: a different one read later
    # (set by another client of the project) is announced by the feed.
    effort_sent: str | None = None

    @property
    def busy(self) -> bool:
        """Whether a prompt is being answered (or waits in the queue)."""
        return any(not turn.done() for turn in self.turns)
