"""Subagents: run an agent in a child session for the task tool or an ``@agent`` mention."""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from typing import Any

from core import ids
from core.agent.agents import derive_child_rules
from core.errors import AbortedError, AgentError, NotFoundError, ToolError
from core.events import TaskOrigin
from core.message.models import (
    AssistantMessage,
    AssistantTime,
    MessageError,
    SubtaskPart,
    TextPart,
    ToolPart,
    ToolStateCompleted,
    ToolStateError,
    ToolStateRunning,
    ToolTimeDone,
    ToolTimeError,
    ToolTimeStart,
    UserMessage,
    now_ms,
)
from core.message.prompt_input import TextInput
from core.session.background import BackgroundAgents
from core.session.records import Place, Policy, Settings, Stores, Turns
from core.tools.context import ToolContext
from core.tools.task import SubtaskResult

log = logging.getLogger(__name__)


class Subtasks:
    """Creates child sessions, derives their permissions, ties their abort to the parent's."""

    def __init__(
        self, stores: Stores, settings: Settings, place: Place, policy: Policy, turns: Turns
    ) -> None:
        self._stores, self._settings, self._place = stores, settings, place
        self._policy, self._turns = policy, turns
        self._children: dict[str, set[str]] = defaultdict(set)
        self._origins: dict[str, TaskOrigin] = {}  # child session → the task call it runs for
        self.background: BackgroundAgents | None = None  # set by the wiring

    def describe_subagents(self) -> list[tuple[str, str]]:
        """Subagents the model may pick, with their descriptions."""
        return [(a.name, a.description or "") for a in self._settings.agents.subagents() if a.is_subagent]

    def children_of(self, session_id: str) -> list[str]:
        """Child sessions started from this session (to abort them with it)."""
        found: list[str] = []
        for child in self._children.get(session_id, ()):
            found.append(child)
            found.extend(self.children_of(child))
        return found

    def origin_of(self, session_id: str) -> TaskOrigin | None:
        """The task call ``session_id`` last ran for, when it is a subagent's session."""
        return self._origins.get(session_id)

    async def run_subtask(
        self, ctx: ToolContext, agent: str, prompt: str, description: str, task_id: str | None
    ) -> SubtaskResult:
        """Run ``agent`` on ``prompt`` in a (new or resumed) child session and return its answer."""
        turns = self._turns
        child, model = await self._prepare(ctx, agent, description, task_id)

        async def propagate_abort() -> None:
            await ctx.abort.wait()
            await turns.abort(child)

        watcher = asyncio.create_task(propagate_abort())
        try:
            answer = await turns.prompt(
                child, [TextInput(type="text", text=prompt)], agent=agent, model=model, subagent=True
            )
        finally:
            watcher.cancel()
        final = answer.info
        if isinstance(final, AssistantMessage) and final.error is not None:
            if final.error.name == "aborted":
                raise AbortedError("the subagent was aborted")
            raise ToolError(f"The {agent} subagent failed: {final.error.message}")
        text = "".join(p.text for p in answer.parts if isinstance(p, TextPart) and not p.synthetic)
        return SubtaskResult(session_id=child, text=text.strip() or "(the subagent returned no text)")

    async def start_background(
        self, ctx: ToolContext, agent: str, prompt: str, description: str, task_id: str | None
    ) -> str:
        """Start ``agent`` on ``prompt`` in a child session that runs beside this turn; its id."""
        if self.background is None:
            raise ToolError("background sub-agents are not available here: run the task without background")
        self.background.check_room(ctx.session_id)  # before a child session is made for nothing
        if task_id and self.background.is_running(task_id):
            raise ToolError(f"the sub-agent of task_id {task_id} is still running in the background")
        child, model = await self._prepare(ctx, agent, description, task_id)
        self.background.start(ctx.session_id, child, agent, description, prompt, model)
        return child

    async def _prepare(
        self, ctx: ToolContext, agent: str, description: str, task_id: str | None
    ) -> tuple[str, str | None]:
        """The child session (new, or ``task_id`` resumed) with its rules, and the model it uses."""
        sessions = self._stores.sessions
        try:
            info = self._settings.agents.get(agent)
        except NotFoundError as exc:
            raise ToolError(str(exc)) from exc
        if not info.is_subagent:
            raise ToolError(f"{agent!r} is not a subagent")
        if task_id:
            child = await sessions.get(task_id)
            if child.parentID != ctx.session_id:
                raise ToolError(
                    f"task_id {task_id} does not belong to this session; omit it to start a new task"
                )
        else:
            child = await sessions.create(
                self._stores.project_id,
                str(self._place.directory),
                title=f"{description} (@{agent})",
                parent_id=ctx.session_id,
                worktree=(
                    await sessions.get(ctx.session_id)
                ).worktree,  # the parent's folder, so its worktree
            )
        parent_rules = ctx.ruleset
        self._policy.set_session_rules(child.id, derive_child_rules(parent_rules, info))
        self._children[ctx.session_id].add(child.id)
        self._origins[child.id] = TaskOrigin(
            sessionID=ctx.session_id,
            messageID=ctx.message_id,
            callID=ctx.call_id,
            description=description,
            subagent=agent,
        )
        # The child's id on the running task part at once: clients follow its steps live.
        ctx.update(description, {"sessionID": child.id, "subagent": agent})
        return child.id, await self._parent_model(ctx.session_id)

    def parent_of(self, session_id: str) -> str | None:
        """The session whose task call started ``session_id`` (None: not a sub-agent of this run)."""
        origin = self._origins.get(session_id)
        return origin.sessionID if origin is not None else None

    async def run_from_part(
        self, session_id: str, user: UserMessage, part: SubtaskPart, abort: asyncio.Event
    ) -> None:
        """The loop's task branch: an assistant step holding one ``task`` call the user asked for."""
        sessions, policy, agents = self._stores.sessions, self._policy, self._settings.agents
        try:
            agent = agents.get(user.agent)
        except NotFoundError:
            agent = agents.default()
        msg = AssistantMessage(
            id=ids.ascending("msg"),
            sessionID=session_id,
            parentID=user.id,
            time=AssistantTime(created=now_ms()),
            providerID=user.model.providerID,
            modelID=user.model.modelID,
            agent=agent.name,
            mode=part.agent,
        )
        await sessions.update_message(msg)
        args = {"description": part.description, "prompt": part.prompt, "subagent_type": part.agent}
        started = now_ms()
        tool = ToolPart(
            id=ids.ascending("prt"),
            sessionID=session_id,
            messageID=msg.id,
            callID=ids.ascending("tool"),
            tool="task",
            state=ToolStateRunning(input=args, time=ToolTimeStart(start=started)),
        )
        await sessions.update_part(tool)
        ruleset = policy.ruleset_for(agent, session_id)
        ctx = policy.tool_context(session_id, agent, abort, ruleset, msg.id, tool.callID)
        writes: list[asyncio.Task[None]] = []

        def update(title: str | None, metadata: dict[str, Any]) -> None:
            # As the loop does for a model's task call: the running part shows the child's id.
            if isinstance(tool.state, ToolStateRunning):
                tool.state.title = title if title is not None else tool.state.title
                tool.state.metadata = {**(tool.state.metadata or {}), **metadata}
                writes.append(asyncio.get_running_loop().create_task(sessions.update_part(tool)))

        ctx.update = update
        try:
            result = await self.run_subtask(ctx, part.agent, part.prompt, part.description, None)
        except AgentError as exc:
            tool.state = ToolStateError(
                input=args, error=str(exc), time=ToolTimeError(start=started, end=now_ms())
            )
            if isinstance(exc, AbortedError):
                msg.error = MessageError(name="aborted", message="Aborted by the user")
        else:
            tool.state = ToolStateCompleted(
                input=args,
                output=result.text,
                title=part.description,
                metadata={"sessionID": result.session_id, "subagent": part.agent},
                time=ToolTimeDone(start=started, end=now_ms()),
            )
        await asyncio.gather(*writes)
        await sessions.update_part(tool)
        # "tool-calls": the primary agent takes the next step and reads the subagent's report.
        msg.finish = "tool-calls" if msg.error is None else None
        msg.time.completed = now_ms()
        await sessions.update_message(msg)

    async def _parent_model(self, session_id: str) -> str | None:
        async for msg in self._stores.sessions.stream(session_id):
            if isinstance(msg.info, UserMessage):
                return f"{msg.info.model.providerID}/{msg.info.model.modelID}"
        return None
