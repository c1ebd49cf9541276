"""The composition root: builds the agent's typed service records and hands each helper exactly
what it uses (``core.session.records``). ``AgentApp`` is a thin front door over what ``wire`` builds.

Who needs whom: the loop needs the subtasks (a task the user asked for), the subtasks need the loop
(a child session's turn) and the policy (their calls' rules), the policy hands the subtasks to each
call's context. The loop is built first; the subtasks are reached from it through a function, and
set on the policy once built.
"""

from __future__ import annotations

import asyncio
import logging
import os
from typing import Any

from core.app_config import LiveSettings, StateParts
from core.bus import Bus
from core.config.loader import ResolvedConfig
from core.config.paths import config_dir
from core.dialogs import AppDialogs
from core.llm.stream import stream as llm_stream
from core.message.models import SubtaskPart, UserMessage
from core.permission.service import Permissions
from core.plan.handoff import BuildHandoff
from core.plan.review import PlanReviews
from core.policy import AgentPolicy, ModelChoice
from core.question.service import Questions
from core.record import record
from core.session.background import BackgroundAgents
from core.session.compactor import Compactor
from core.session.context_hooks import ContextManager
from core.session.context_resolver import ContextResolver
from core.session.controls_service import ControlsService
from core.session.loop import ABORT_TIMEOUT, SessionLoop
from core.session.mode import SessionControls
from core.session.queue import PromptQueue
from core.session.records import Models, Place, Stores
from core.session.requests import RequestBuilder
from core.session.runtime import Runtime
from core.session.sessions import Sessions
from core.session.subtask import Subtasks
from core.session.system import InstructionFiles
from core.storage.store import Store
from core.tools.plan_exit import PlanExitTool
from core.tools.question import QuestionTool
from core.tools.registry import ToolRegistry, builtin_registry
from core.tools.schema import tool_parameters_schema
from core.tools.skill import SkillTool
from core.tools.task import TaskTool
from core.tools.todo import TodoReadTool, TodoWriteTool
from core.tools.webfetch import WebFetchTool
from core.workspace import Workspace

log = logging.getLogger(__name__)


@record(eq=False, repr=False)  # never compared or printed
class Wiring:
    """Everything one agent is made of, each part built from the records it needs."""

    stores: Stores
    place: Place
    settings: LiveSettings
    models: Models
    choice: ModelChoice
    permissions: Permissions
    questions: Questions
    dialogs: AppDialogs
    controls: SessionControls
    controls_service: ControlsService
    policy: AgentPolicy
    tools: ToolRegistry
    context: ContextManager
    subtasks: Subtasks
    background: BackgroundAgents
    loop: SessionLoop
    queue: PromptQueue
    context_items: ContextResolver


BUILTIN_EXTRAS = (TodoWriteTool, TodoReadTool, QuestionTool, SkillTool, WebFetchTool)


def prepare_schemas() -> None:
    """Make the built-in tools' parameter schemas now (made once per process, sent with every
    request): ``open_agent`` calls it inside the start-up imports, where pydantic's plugin scan is
    off (see ``agentls.boot``) — the schemas' defaults are pydantic's first models after them."""
    for tool in builtin_registry().all():
        tool_parameters_schema(tool.Params)
    for extra in (*BUILTIN_EXTRAS, TaskTool, PlanExitTool):
        tool_parameters_schema(extra.Params)


def abort_timeout() -> float:
    """How long an abort waits for its turn to stop before it warns: ``AGENTLS_ABORT_TIMEOUT``
    seconds (tests make it 0, so that an abort during a tool warns without a wait), else 5."""
    raw = os.environ.get("AGENTLS_ABORT_TIMEOUT")
    if raw is None:
        return ABORT_TIMEOUT
    try:
        seconds = float(raw)
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds < float("inf"):
        log.warning("AGENTLS_ABORT_TIMEOUT=%r is not a number of seconds; using %s", raw, ABORT_TIMEOUT)
        return ABORT_TIMEOUT
    return seconds


def wire(
    *,
    place: Place,
    store: Store,
    project_id: str,
    bus: Bus,
    workspace: Workspace,
    resolved: ResolvedConfig,
) -> Wiring:
    """Build the agent's services for ``resolved`` (a reconfigure swaps ``settings.current``)."""
    sessions = Sessions(store, bus)
    stores = Stores(store=store, sessions=sessions, bus=bus, project_id=project_id)
    loop: SessionLoop | None = None

    def is_busy(session_id: str) -> bool:
        return loop is not None and loop.is_busy(session_id)

    parts = StateParts(None, place.worktree, place.data_dir, project_id, workspace, sessions, bus, is_busy)
    settings = LiveSettings(parts, resolved)
    choice = ModelChoice(settings, bus)
    models = Models(stream=llm_stream, resolve=choice.resolve, small=choice.small, carry=choice.carry)
    permissions = Permissions(bus, store, project_id)
    questions = Questions(bus)
    plans = PlanReviews(bus)
    dialogs = AppDialogs(permissions, questions, plans)
    tools = builtin_registry()
    for extra in BUILTIN_EXTRAS:
        tools.register(extra())
    controls = SessionControls(sessions, bus, place.data_dir, project_id)
    policy = AgentPolicy(settings, place, sessions, dialogs, permissions, questions, tools, controls)
    instructions = InstructionFiles(config_dir())
    requests = RequestBuilder(place, settings, policy, instructions, controls)  # compaction's
    context = ContextManager(
        stores,
        settings,
        models,
        requests,
        lambda measures: Compactor(stores, settings, models, measures, is_busy),
    )

    async def run_subtask(
        session_id: str, user: UserMessage, part: SubtaskPart, abort: asyncio.Event
    ) -> None:
        await subtasks.run_from_part(session_id, user, part, abort)

    async def cleanup_revert(session_id: str) -> None:
        await settings.state.snapshots.cleanup(session_id)

    runtime = Runtime(
        stores=stores,
        place=place,
        settings=settings,
        models=models,
        policy=policy,
        controls=controls,
        context=context,
        workspace=workspace,
        instructions=instructions,
        cleanup_revert=cleanup_revert,
        run_subtask=run_subtask,
    )
    loop = SessionLoop(runtime, abort_timeout())
    subtasks = Subtasks(stores, settings, place, policy, loop)
    background = BackgroundAgents(bus, loop, subtasks.parent_of, policy.shells.kill_session)
    subtasks.background = background
    policy.subtasks = subtasks
    policy.claims = background.claims
    tools.register(TaskTool(subtasks))
    tools.register(PlanExitTool(plans, BuildHandoff(controls, lambda: settings.agents, loop)))
    controls_service = ControlsService(controls, stores, settings, models, permissions, subtasks.children_of)

    async def read_resource(server: str | None, uri: str) -> tuple[str, list[Any]]:
        return await settings.state.mcp.read_resource(server, uri)

    context_items = ContextResolver(
        stores, place, settings, models, context.counter, policy, permissions, workspace, read_resource
    )
    return Wiring(
        stores=stores,
        place=place,
        settings=settings,
        models=models,
        choice=choice,
        permissions=permissions,
        questions=questions,
        dialogs=dialogs,
        controls=controls,
        controls_service=controls_service,
        policy=policy,
        tools=tools,
        context=context,
        subtasks=subtasks,
        background=background,
        loop=loop,
        queue=PromptQueue(loop, bus),
        context_items=context_items,
    )
