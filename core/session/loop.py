"""prompt() and loop(): one runner per session, driving steps until the model is done.

Each iteration reloads the history (so messages that arrive mid-turn are seen), decides whether
the turn is over, runs a pending subtask or compaction, or runs one model step through the
processor. A second prompt on a busy session stores its message and waits for the same result.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
from collections.abc import AsyncIterator, Callable, Coroutine, Sequence
from typing import Any

from core import ids
from core.agent.info import AgentInfo
from core.context.compaction import overflow_without_auto
from core.errors import AbortedError, AgentError, ContextOverflowError, InvalidInputError, NotFoundError
from core.events import AgentWarning, SessionIdle, SessionStatus, SessionStatusInfo
from core.hooks.service import MODES
from core.llm.events import StreamEvent
from core.llm.model import ModelInfo
from core.llm.request import LLMRequest
from core.message.models import (
    AssistantMessage,
    AssistantTime,
    MessageWithParts,
    Session,
    UserMessage,
    now_ms,
)
from core.message.prompt_input import AgentInput, ContextInput, FileInput, TextInput
from core.record import struct
from core.session import decide
from core.session.hook_moments import at_stop, before_prompt, notify_on_dialogs
from core.session.loop_compaction import LoopCompaction
from core.session.processor import Processor
from core.session.prompt import PromptTarget, build_user_message, parse_model_ref
from core.session.records import StreamFn
from core.session.requests import RequestBuilder, StepPlan
from core.session.runtime import Runtime
from core.session.step import StepInput
from core.session.title import generate_title, is_placeholder, provisional_title, replaceable

log = logging.getLogger(__name__)

# How long an abort waits for the turn to stop, and an abandoned prompt for its aborted turn to end.
ABORT_TIMEOUT = 5
ABANDON_TIMEOUT = 10


@struct
class _Run:
    abort: asyncio.Event
    task: asyncio.Task[MessageWithParts]


class SessionLoop:
    """Runs sessions: ``prompt`` stores a message and waits for the turn's final answer."""

    def __init__(self, rt: Runtime, abort_timeout: float = ABORT_TIMEOUT) -> None:
        self._rt = rt
        self._abort_timeout = abort_timeout  # a turn still running this long after its abort: a warning
        self._runs: dict[str, _Run] = {}
        self._requests = RequestBuilder(rt.place, rt.settings, rt.policy, rt.instructions, rt.controls)
        self._compaction = LoopCompaction(rt, self._requests)
        self._background: set[asyncio.Task[None]] = set()
        # The user's Notification hooks run while a dialog waits for them.
        self._unnotify = notify_on_dialogs(rt.stores.bus, lambda: rt.settings.hooks, self._in_background)

    # --- public ------------------------------------------------------------------------

    def is_busy(self, session_id: str) -> bool:
        """Whether a turn is running in this session."""
        return session_id in self._runs

    def current(self, session_id: str) -> asyncio.Task[MessageWithParts] | None:
        """The task of the session's running turn, if one runs."""
        run = self._runs.get(session_id)
        return None if run is None or run.task.done() else run.task

    def running(self) -> list[asyncio.Task[MessageWithParts]]:
        """The tasks of the turns running now."""
        return [run.task for run in self._runs.values()]

    async def prompt(
        self,
        session_id: str,
        inputs: Sequence[TextInput | FileInput | AgentInput | ContextInput],
        *,
        agent: str | None = None,
        model: str | None = None,
        no_reply: bool = False,
        subagent: bool = False,
    ) -> MessageWithParts:
        """Store the user's message, then run (or join) the session's loop and return its answer.

        The one place where "the caller went away" is handled for every front end (an editor's
        ``$/cancelRequest``, a cancelled progress, a subagent's parent): the message is stored whole
        or not at all, and the turn is aborted instead of running on unseen.
        """
        abandoned = asyncio.Event()
        turn = asyncio.ensure_future(
            self._prompt(session_id, inputs, agent, model, no_reply, subagent, abandoned)
        )
        try:
            return await asyncio.shield(turn)
        except asyncio.CancelledError:
            if not turn.done():
                log.info("the caller of a prompt in %s went away: aborting the turn", session_id)
                abandoned.set()
                await self.abort(session_id)
                await asyncio.wait([turn], timeout=ABANDON_TIMEOUT)
            turn.add_done_callback(_consume)
            raise

    async def _prompt(
        self,
        session_id: str,
        inputs: Sequence[TextInput | FileInput | AgentInput | ContextInput],
        agent: str | None,
        model: str | None,
        no_reply: bool,
        subagent: bool,
        abandoned: asyncio.Event,
    ) -> MessageWithParts:
        rt = self._rt
        session = await rt.stores.sessions.get(session_id)
        if session.revert is not None and not self.is_busy(session_id):
            await rt.cleanup_revert(session_id)
        last = await self._last_user(session_id)
        agent_info = (
            rt.settings.agents.get(agent) if agent else self._agent_or_default(last.agent if last else None)
        )
        if not agent_info.is_primary and agent and not subagent:
            raise InvalidInputError(f"{agent} is a subagent; mention it with @{agent} instead")
        ref = model or (agent_info.model if agent_info.model else None)
        # A session goes on with its last model; one on a default that changed follows the default.
        model_ref = parse_model_ref(ref) if ref else (rt.models.carry(last.model) if last else None)
        if model_ref is None:
            if not rt.settings.config.model:
                raise InvalidInputError(
                    'no model is configured: set "model": "provider/model" in agentls.json '
                    "(or pass one with the prompt)"
                )
            model_ref = parse_model_ref(rt.settings.config.model)
        target = PromptTarget(
            session_id=session_id,
            agent=agent_info.name,
            model=model_ref,
            directory=rt.place.directory,
            worktree=rt.place.worktree,
        )
        subagents = {a.name for a in rt.settings.agents.subagents()}
        info, parts = await build_user_message(target, inputs, rt.workspace, subagents)
        hooks = rt.settings.hooks
        if not subagent and (hooks.configured("SessionStart") or hooks.configured("UserPromptSubmit")):
            text = "\n".join(i.text for i in inputs if isinstance(i, TextInput))
            mode = rt.controls.now(session_id).mode
            parts += await before_prompt(hooks, info, text, first=last is None, mode=mode)
        await rt.stores.sessions.update_message(info)
        for part in parts:
            await rt.stores.sessions.update_part(part)
        await rt.stores.sessions.update(session_id, lambda _s: None)
        if no_reply or abandoned.is_set():  # abandoned while storing: the message stays, unanswered
            return MessageWithParts(info=info, parts=parts)
        return await self.loop(session_id, answering=info.id)

    async def loop(self, session_id: str, answering: str | None = None) -> MessageWithParts:
        """Run the session until the model is done (or join the run already going).

        ``answering``: the user message the caller waits on. A run that ends without having seen
        it (it arrived as a rejection stopped the turn) is followed by a run of its own, so that the
        answer is always an assistant message newer than it; an aborted one raises AbortedError."""
        while True:
            run = self._runs.get(session_id)
            own = run is None or run.task.done()  # a run started now sees the caller's message
            if run is None or run.task.done():
                abort = asyncio.Event()
                task = asyncio.create_task(self._run(session_id, abort), name=f"loop {session_id}")
                run = _Run(abort=abort, task=task)
                self._runs[session_id] = run
                task.add_done_callback(functools.partial(self._finished, session_id, run))
            # A caller that goes away aborts the turn: prompt() does that, once, for every front end.
            answer = await asyncio.shield(run.task)
            if answering is None or (
                isinstance(answer.info, AssistantMessage) and answer.info.id > answering
            ):
                return answer
            if run.abort.is_set():
                raise AbortedError("the turn was aborted before it answered this prompt")
            if own:  # it saw the message and still wrote no answer: never loop on that
                raise AgentError(f"the turn in session {session_id} ended without an answer")
            log.info(
                "session %s: the turn ended before it saw message %s; starting its own", session_id, answering
            )

    async def abort(self, session_id: str) -> None:
        """Stop the running turn; returns when the session is consistent and idle."""
        run = self._runs.get(session_id)
        if run is None:
            return
        run.abort.set()
        self._rt.policy.cancel_dialogs(session_id)
        try:
            await asyncio.wait_for(asyncio.shield(run.task), timeout=self._abort_timeout)
        except AgentError:
            pass
        except TimeoutError:
            waited = f"{self._abort_timeout:g}"
            log.warning("the turn of %s did not stop within %s s of its abort", session_id, waited)
            self._rt.stores.bus.publish(
                AgentWarning(
                    kind="abort",
                    sessionID=session_id,
                    message=f"the turn did not stop within {waited} s of the abort; it may "
                    "still finish a tool call in the background",
                )
            )
        except asyncio.CancelledError:
            if not run.task.cancelled():
                raise

    async def close(self, grace: float = 0.0) -> None:
        """Abort every running turn; background work (a title on its way) gets ``grace`` seconds
        to finish before it is cancelled."""
        self._unnotify()
        for session_id in list(self._runs):
            await self.abort(session_id)
        if grace > 0 and self._background:
            await asyncio.wait(list(self._background), timeout=grace)
        for task in list(self._background):
            task.cancel()
        await asyncio.gather(*self._background, return_exceptions=True)

    # --- the loop ----------------------------------------------------------------------

    def _finished(self, session_id: str, run: _Run, _task: object = None) -> None:
        if self._runs.get(session_id) is run:
            del self._runs[session_id]
        self._rt.stores.bus.publish(
            SessionStatus(sessionID=session_id, status=SessionStatusInfo(type="idle"))
        )
        self._rt.stores.bus.publish(SessionIdle(sessionID=session_id))

    async def _run(self, session_id: str, abort: asyncio.Event) -> MessageWithParts:
        rt = self._rt
        rt.settings.pin()  # a reconfigure from now on applies to the next turn, not to this one
        # The title's request waits until the model answers this turn's first request: sent
        # together, it went out first (and in a fresh process built the HTTP client on the way).
        answering = asyncio.Event()
        processor = Processor(
            rt.settings.step_services, _signalling(rt.models.stream, answering), rt.settings.retry
        )
        step = 0
        kept_going = 0  # times Stop hooks kept this turn going
        # True from a compaction until a step fits: an overflow in between means compacting made
        # no progress (it could only summarise the summary again), so the turn ends instead.
        unproven = False
        while True:
            rt.stores.bus.publish(SessionStatus(sessionID=session_id, status=SessionStatusInfo(type="busy")))
            if abort.is_set():
                break
            await rt.settings.step_services.tell_review(session_id)
            history = await rt.context.history(session_id)
            scan = decide.scan(history)
            user = scan.last_user
            if user is None:
                raise InvalidInputError(f"session {session_id} has no user message to answer")
            resolved: list[ModelInfo] = []

            def model_of_turn(user: UserMessage = user, resolved: list[ModelInfo] = resolved) -> ModelInfo:
                if not resolved:
                    resolved.append(rt.models.resolve(f"{user.model.providerID}/{user.model.modelID}"))
                return resolved[0]

            move = decide.next_move(scan, lambda m: rt.context.is_overflow(m, model_of_turn()))
            if move.kind == "stop":
                # The model answered: the user's Stop hooks may keep the turn going (not when an
                # error or a rejection ended it, nor for a run that only joined a finished turn).
                if step > 0 and await self._stop_hooks(session_id, abort, kept_going):
                    kept_going += 1
                    continue
                break
            step += 1
            if step == 1:
                await self._start_title(session_id, history, after=answering)
            if move.subtask is not None:
                await rt.run_subtask(session_id, user, move.subtask, abort)
                continue
            model = model_of_turn()
            agent = self._agent_or_default(user.agent)
            last_step = agent.steps is not None and step >= agent.steps
            plan = StepPlan(
                session_id=session_id,
                history=history,
                user=user,
                agent=agent,
                model=model,
                step=step,
                last_finished_id=scan.last_finished.id if scan.last_finished else None,
                tools_enabled=not last_step,
            )
            if move.kind == "compact":
                if not await self._compaction.compact(plan, unproven, abort, reported=scan.last_finished):
                    break
                unproven = True
                continue
            request, tools = await self._requests.build(plan)
            if await rt.context.preflight_overflow(request, model, history):
                if not await self._compaction.compact(plan, unproven, abort, request):
                    break
                unproven = True
                continue
            assistant = AssistantMessage(
                id=ids.ascending("msg"),
                sessionID=session_id,
                parentID=user.id,
                time=AssistantTime(created=now_ms()),
                providerID=model.provider_id,
                modelID=model.model_id,
                agent=agent.name,
                mode=agent.name,
            )
            await rt.stores.sessions.update_message(assistant)
            ruleset = rt.policy.ruleset_for(agent, session_id)
            outcome = await processor.process(
                StepInput(
                    assistant=assistant,
                    request=request,
                    tools=tools,
                    make_context=functools.partial(rt.policy.tool_context, session_id, agent, abort, ruleset),
                    abort=abort,
                    recent_calls=_recent_calls(history),
                    check_overflow=functools.partial(_overflow, rt, model),
                    compact_on_overflow_error=rt.context.auto,
                    explain_overflow=functools.partial(_explain_overflow, rt, model),
                    hooks=rt.settings.hooks,
                    permission_mode=MODES.get(rt.controls.now(session_id).mode, "default"),
                )
            )
            after = decide.after_step(outcome, last_step)
            if after == "compact":
                if not await self._compaction.compact(plan, unproven, abort, request, reported=assistant):
                    break
                unproven = True
                continue
            unproven = False  # this step fitted
            if after == "stop":
                break
        await rt.context.prune(session_id)
        return await self._answer(session_id)

    def _in_background(self, work: Coroutine[Any, Any, object]) -> None:
        """Work no turn waits for (a Notification hook); ``close`` gives it its grace."""
        task: asyncio.Task[Any] = asyncio.ensure_future(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _stop_hooks(self, session_id: str, abort: asyncio.Event, kept_going: int) -> bool:
        """Whether the user's Stop (or SubagentStop) hooks keep the turn going."""
        rt = self._rt
        hooks = rt.settings.hooks
        if abort.is_set() or not (hooks.configured("Stop") or hooks.configured("SubagentStop")):
            return False
        session = await rt.stores.sessions.get(session_id)
        history = await rt.context.history(session_id)
        return await at_stop(hooks, rt.stores.sessions, history, session.parentID is not None, kept_going)

    def _agent_or_default(self, name: str | None) -> AgentInfo:
        if name:
            try:
                return self._rt.settings.agents.get(name)
            except NotFoundError:
                log.warning("agent %s no longer exists; using the default agent", name)
        return self._rt.settings.agents.default()

    async def _answer(self, session_id: str) -> MessageWithParts:
        """The newest assistant message: the turn's final one (a user message is never an answer;
        ``loop`` tells whether it answers the caller's prompt)."""
        newest: MessageWithParts | None = None
        async for msg in self._rt.stores.sessions.stream(session_id):
            if isinstance(msg.info, AssistantMessage):
                return msg
            newest = newest or msg
        if newest is None:
            raise InvalidInputError(f"session {session_id} is empty")
        return newest  # no step ever ran in this session: ``loop`` does not take it as an answer

    async def _last_user(self, session_id: str) -> UserMessage | None:
        async for msg in self._rt.stores.sessions.stream(session_id):
            if isinstance(msg.info, UserMessage):
                return msg.info
        return None

    async def _start_title(
        self, session_id: str, history: list[MessageWithParts], after: asyncio.Event
    ) -> None:
        """Title a session still called by its placeholder: the first prompt's first line now (before
        the first request, so every client shows it while the model works), the model's title in the
        background once ``after`` is set (or the turn ends without it)."""
        rt = self._rt
        turn = asyncio.current_task()
        assert turn is not None, "called from the turn's task"
        session = await rt.stores.sessions.get(session_id)
        if session.parentID is not None or not is_placeholder(session.title):
            return
        first = next((m for m in history if isinstance(m.info, UserMessage)), None)
        if first is None:
            return
        user = first.info
        assert isinstance(user, UserMessage)
        text = "\n".join(p.text for p in first.parts if p.type == "text" and not p.synthetic)
        provisional = provisional_title(text)
        if provisional is not None:
            await rt.stores.sessions.update(session_id, _retitle(provisional, None))

        async def title() -> None:
            started = asyncio.ensure_future(after.wait())
            try:
                await asyncio.wait({started, turn}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                started.cancel()
            new_title = await generate_title(rt.models.stream, rt.models.small(user), text)
            if new_title != provisional:
                await rt.stores.sessions.update(session_id, _retitle(new_title, provisional))

        task = asyncio.create_task(title(), name=f"title {session_id}")
        self._background.add(task)
        task.add_done_callback(self._title_done)

    def _title_done(self, task: asyncio.Task[None]) -> None:
        self._background.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.warning("title generation failed: %s", task.exception())


def _retitle(title: str, provisional: str | None) -> Callable[[Session], None]:
    """An edit that sets ``title`` where nobody chose one since the prompt (``replaceable``)."""

    def edit(current: Session) -> None:
        if replaceable(current.title, provisional):
            current.title = title

    return edit


def _signalling(stream: StreamFn, answering: asyncio.Event) -> StreamFn:
    """``stream``, setting ``answering`` at the model's first event (or when a stream ends without
    one, so that nothing waits on a request that failed). Once set, later steps get ``stream``
    itself: no extra hop for every event of a long answer."""

    async def first(request: LLMRequest, abort: asyncio.Event) -> AsyncIterator[StreamEvent]:
        events = stream(request, abort)
        try:
            async for event in events:
                answering.set()
                yield event
        finally:
            answering.set()
            aclose = getattr(events, "aclose", None)
            if aclose is not None:
                await aclose()

    def signalled(request: LLMRequest, abort: asyncio.Event) -> AsyncIterator[StreamEvent]:
        return stream(request, abort) if answering.is_set() else first(request, abort)

    return signalled


def _overflow(rt: Runtime, model: ModelInfo, message: AssistantMessage) -> bool:
    return rt.context.is_overflow(message, model)


def _explain_overflow(rt: Runtime, model: ModelInfo, exc: ContextOverflowError) -> ContextOverflowError:
    if rt.context.auto:
        return exc  # compaction was tried this turn already; the provider's words say enough
    return overflow_without_auto(model.model_id)


def _recent_calls(history: list[MessageWithParts]) -> list[tuple[str, str]]:
    calls: list[tuple[str, str]] = []
    for msg in history[-6:]:
        for part in msg.parts:
            if part.type == "tool" and part.state.status != "pending":
                calls.append((part.tool, json.dumps(part.state.input, sort_keys=True, separators=(",", ":"))))
    return calls[-2:]


def _consume(turn: asyncio.Future[MessageWithParts]) -> None:
    """Retrieve the outcome of a turn whose caller went away (no "never retrieved" warning)."""
    if not turn.cancelled() and (exc := turn.exception()) is not None:
        log.info("an abandoned turn ended with %s: %s", type(exc).__name__, exc)
