"""The session loop over fakes of its typed records (``core.session.records``): no app, no HTTP.

A scripted stream stands in for the model, fakes for the policy and the context hooks; only the
sessions service is real (SQLite in a temporary folder), since the loop reads its history there.
What is tested is the loop's flow: a step per model answer, a tool step continues, an overflow
compacts, the agent's last allowed step stops, a stuck abort warns.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from core.agent.agents import Agents
from core.agent.info import AgentInfo
from core.bus import Bus
from core.config.schema import Config
from core.errors import ContextOverflowError
from core.events import AgentWarning
from core.hooks.service import Hooks
from core.llm import events as ev
from core.llm.model import ModelInfo, resolve_model
from core.llm.request import LLMRequest
from core.message.models import AssistantMessage, MessageWithParts, SubtaskPart, Tokens, UserMessage
from core.message.prompt_input import TextInput
from core.permission.rules import Ruleset
from core.session.loop import SessionLoop
from core.session.mode import SessionControls
from core.session.records import Models, Place, Stores
from core.session.retry import RetryPolicy
from core.session.runtime import Runtime
from core.session.services import StepServices
from core.session.sessions import Sessions
from core.session.system import InstructionFiles
from core.storage import Store
from core.tools.base import ToolSet
from core.tools.context import ToolContext
from core.workspace import DiskWorkspace
from tests.unit.session.test_tool_calls import Echo
from tests.unit.tools.harness import allow_all

MODEL = {"limit": {"context": 100_000, "output": 4_096}}
CONFIG = Config.model_validate(
    {
        "model": "fake/m",
        "provider": {
            "fake": {
                "litellm_provider": "openai",
                "options": {"api_base": "http://127.0.0.1:9"},
                "models": {"m": MODEL},
            }
        },
    }
)
STOP = ev.FinishStep(reason="stop", tokens=Tokens(), cost=0.0)
TOOL_CALLS = ev.FinishStep(reason="tool-calls", tokens=Tokens(), cost=0.0)


def answer(text: str) -> list[ev.StreamEvent]:
    return [ev.TextStart("t"), ev.TextDelta("t", text), ev.TextEnd("t"), STOP]


def echo_call(n: int) -> list[ev.StreamEvent]:
    return [ev.ToolCall(id=f"c{n}", name="echo", input={"text": f"hi {n}"}, raw="{}"), TOOL_CALLS]


@dataclass
class FakeSettings:
    """``Settings``: one fixed config state."""

    config: Config
    agents: Agents
    step_services: StepServices
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    hooks: Hooks = field(default_factory=lambda: Hooks([], Path(".")))
    pinned: int = 0

    def pin(self) -> None:
        self.pinned += 1


@dataclass
class FakePolicy:
    """``Policy``: every rule allows; the tools are what the test offers."""

    root: Path
    tools: ToolSet = field(default_factory=dict)
    cancelled: list[str] = field(default_factory=list)

    def ruleset_for(self, agent: AgentInfo, session_id: str) -> Ruleset:
        return []

    def set_session_rules(self, session_id: str, ruleset: Ruleset) -> None:
        return None

    def tools_for(self, agent: AgentInfo, user: UserMessage, ruleset: Ruleset) -> ToolSet:
        return dict(self.tools)

    def skills(self) -> list[tuple[str, str]]:
        return []

    def mcp_instructions(self, offered: object) -> list[tuple[str, str]]:
        return []

    def tool_context(
        self,
        session_id: str,
        agent: AgentInfo,
        abort: asyncio.Event,
        ruleset: Ruleset,
        message_id: str,
        call_id: str,
    ) -> ToolContext:
        return allow_all(self.root, self.root / "data", call_id=call_id)

    def cancel_dialogs(self, session_id: str) -> None:
        self.cancelled.append(session_id)


@dataclass
class FakeContext:
    """``ContextHooks``: the history as stored; ``overflowing`` messages ask for a compaction."""

    sessions: Sessions
    overflowing: set[str] = field(default_factory=set)
    compactions: list[str] = field(default_factory=list)

    @property
    def auto(self) -> bool:
        return True

    async def history(self, session_id: str) -> list[MessageWithParts]:
        return await self.sessions.messages(session_id)

    def is_overflow(self, message: AssistantMessage, model: ModelInfo) -> bool:
        return message.id in self.overflowing

    def fixed_tokens(self, request: LLMRequest, model: ModelInfo) -> int:
        return 0

    async def preflight_overflow(
        self, request: LLMRequest, model: ModelInfo, history: list[MessageWithParts]
    ) -> bool:
        return False

    async def compact(
        self,
        session_id: str,
        *,
        auto: bool,
        model: ModelInfo,
        abort: asyncio.Event,
        overhead: int = 0,
        before: int = 0,
    ) -> ContextOverflowError | None:
        self.compactions.append(session_id)
        self.overflowing.clear()  # the summary made room
        return None

    async def prune(self, session_id: str) -> None:
        return None


class Script:
    """The model: one list of stream events per request, in order; records each request."""

    def __init__(self, *steps: list[ev.StreamEvent]) -> None:
        self.steps = list(steps)
        self.requests: list[LLMRequest] = []
        self.hold: asyncio.Event | None = None  # set: a request waits for it (a turn that will not stop)
        self.requested = asyncio.Event()

    async def stream(self, request: LLMRequest, abort: asyncio.Event) -> AsyncIterator[ev.StreamEvent]:
        self.requests.append(request)
        self.requested.set()
        if self.hold is not None:
            await self.hold.wait()
        for event in self.steps.pop(0):
            yield event


@dataclass
class World:
    loop: SessionLoop
    sessions: Sessions
    bus: Bus
    script: Script
    policy: FakePolicy
    context: FakeContext
    settings: FakeSettings
    session_id: str


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[World]:
    store = await Store.open(tmp_path / "agentls.db")
    bus = Bus()
    sessions = Sessions(store, bus)
    tree = tmp_path / "tree"
    tree.mkdir()
    project = await store.ensure_project(tree)
    session = await sessions.create(project.id, str(tree))
    script = Script()
    policy = FakePolicy(tree)
    context = FakeContext(sessions)
    settings = FakeSettings(
        CONFIG, Agents.load(CONFIG, tree, tmp_path / "no-config"), StepServices(sessions, bus)
    )

    async def no_subtask(session_id: str, user: UserMessage, part: SubtaskPart, abort: asyncio.Event) -> None:
        raise AssertionError("no subtask in these tests")

    async def no_revert(session_id: str) -> None:
        return None

    runtime = Runtime(
        stores=Stores(store=store, sessions=sessions, bus=bus, project_id=project.id),
        place=Place(directory=tree, worktree=tree, is_git=False, data_dir=tmp_path / "data"),
        settings=settings,
        models=Models(
            stream=script.stream,
            resolve=lambda ref: resolve_model(CONFIG, ref),
            small=lambda user: None,  # no title model: the title stays
            carry=lambda ref: ref,
        ),
        policy=policy,
        controls=SessionControls(sessions, bus, tmp_path / "data", project.id),
        context=context,
        workspace=DiskWorkspace(tree),
        instructions=InstructionFiles(tmp_path / "no-config"),
        cleanup_revert=no_revert,
        run_subtask=no_subtask,
    )
    loop = SessionLoop(runtime, abort_timeout=0)
    try:
        yield World(loop, sessions, bus, script, policy, context, settings, session.id)
    finally:
        await loop.close()
        await sessions.close()
        await store.close()


async def prompt(world: World, text: str = "hello", agent: str | None = None) -> MessageWithParts:
    inputs = [TextInput(type="text", text=text)]
    return await asyncio.wait_for(world.loop.prompt(world.session_id, inputs, agent=agent), 10)


def assistants(messages: list[MessageWithParts]) -> Iterator[AssistantMessage]:
    return (m.info for m in messages if isinstance(m.info, AssistantMessage))


async def test_an_answer_is_one_step_and_the_turn_stops(world: World) -> None:
    world.script.steps = [answer("Hi.")]
    final = await prompt(world)
    assert isinstance(final.info, AssistantMessage) and final.info.finish == "stop"
    assert [p.text for p in final.parts if p.type == "text"] == ["Hi."]
    assert len(world.script.requests) == 1 and world.settings.pinned == 1  # the turn pinned its config


async def test_a_tool_step_continues_until_the_model_answers(world: World) -> None:
    world.policy.tools = {"echo": Echo()}
    world.script.steps = [echo_call(1), echo_call(2), answer("Done.")]
    await prompt(world)
    finishes = [m.finish for m in assistants(await world.sessions.messages(world.session_id))]
    assert finishes == ["tool-calls", "tool-calls", "stop"]
    assert [t.name for t in world.script.requests[0].tools] == ["echo"]


async def test_a_step_that_filled_the_window_compacts_before_the_next(world: World) -> None:
    world.policy.tools = {"echo": Echo()}
    world.script.steps = [echo_call(1), answer("Done.")]
    sub = world.bus.subscribe()

    # The first step's answer overflows: the loop must compact before its second request.
    async def mark_overflow() -> None:
        async for event in sub:
            info = getattr(event, "info", None)
            if isinstance(info, AssistantMessage) and info.finish == "tool-calls":
                world.context.overflowing.add(info.id)
                return

    marker = asyncio.create_task(mark_overflow())
    await prompt(world)
    await marker
    assert world.context.compactions == [world.session_id]
    assert len(world.script.requests) == 2


async def test_the_agents_last_allowed_step_stops_the_turn(world: World) -> None:
    agents = Agents.load(
        Config.model_validate({**CONFIG.model_dump(exclude_none=True), "agent": {"build": {"steps": 1}}}),
        world.policy.root,
        world.policy.root / "no-config",
    )
    world.settings.agents = agents
    world.policy.tools = {"echo": Echo()}
    world.script.steps = [echo_call(1), answer("never asked")]
    await prompt(world, agent="build")
    assert (
        len(world.script.requests) == 1 and world.script.requests[0].tools == []
    )  # no tools on the last step


async def test_an_abort_that_does_not_stop_the_turn_in_time_warns(world: World) -> None:
    world.script.hold = asyncio.Event()  # the model never answers, and the stream ignores the abort
    world.script.steps = [answer("late")]
    warnings = world.bus.subscribe(AgentWarning)
    turn = asyncio.create_task(prompt(world))
    await asyncio.wait_for(world.script.requested.wait(), 10)  # the request is out: the turn runs
    await world.loop.abort(world.session_id)
    warning = await asyncio.wait_for(warnings.get(), 5)
    assert isinstance(warning, AgentWarning) and warning.kind == "abort"
    assert world.policy.cancelled == [world.session_id]  # its dialogs were cancelled first
    world.script.hold.set()
    await asyncio.wait([turn], timeout=10)
