"""What an approved plan starts: the session leaves read-only mode and the build agent carries it out.

The build agent's message is stored while the plan agent's turn is still running (as a message the
user sends mid-turn is): the loop takes it at its next step, so the build turn starts at once and
the caller of the original prompt gets the build agent's answer. The plan goes with that message
as a context item, so the build agent reads it even after a compaction drops the plan agent's steps.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Literal, Protocol

from core.agent.agents import Agents
from core.errors import NotFoundError
from core.message.models import MessageWithParts
from core.message.prompt_input import AgentInput, ContextInput, FileInput, TextInput
from core.prompts import load

log = logging.getLogger(__name__)

BUILD_AGENT = "build"


class Prompts(Protocol):
    """What the handoff needs of the session loop (``core.session.loop.SessionLoop``)."""

    async def prompt(
        self,
        session_id: str,
        inputs: Sequence[TextInput | FileInput | AgentInput | ContextInput],
        *,
        agent: str | None = None,
        model: str | None = None,
        no_reply: bool = False,
        subagent: bool = False,
    ) -> MessageWithParts: ...


class ModeNow(Protocol):
    @property
    def mode(self) -> str: ...


class Controls(Protocol):
    """What the handoff needs of the sessions' controls (``core.session.mode.SessionControls``)."""

    async def get(self, session_id: str) -> ModeNow: ...

    async def set_mode(self, session_id: str, mode: Literal["ask"]) -> object: ...


class BuildHandoff:
    """Implements ``core.tools.plan_exit.Handoff``: approve → build agent, plan attached."""

    def __init__(self, controls: Controls, agents: Callable[[], Agents], loop: Prompts) -> None:
        self._controls = controls
        self._agents = agents
        self._loop = loop

    async def approve(self, session_id: str, path: str, text: str) -> str:
        """Switch the session to build and store the build agent's message; the agent's name."""
        if (await self._controls.get(session_id)).mode == "plan":
            # Read-only mode would refuse every edit of the plan; approving it is leaving it. The
            # edits then ask as configured (Auto-accept stays a choice the user makes).
            await self._controls.set_mode(session_id, "ask")
        agent = self._build_agent()
        inputs: list[TextInput | FileInput | AgentInput | ContextInput] = [
            TextInput(text=load("session/plan_approved.md").replace("{path}", path)),
            ContextInput(kind="plan", label=path, text=text),
        ]
        await self._loop.prompt(session_id, inputs, agent=agent, no_reply=True)
        log.info("session %s: plan %s approved; %s carries it out", session_id, path, agent)
        return agent

    def _build_agent(self) -> str:
        agents = self._agents()
        try:
            return agents.get(BUILD_AGENT).name
        except NotFoundError:  # a project that replaced the built-in agents: its default one
            return agents.default().name
