"""``RemoteAgent``: the ``core.api.Agent`` of a project whose agent runs in the host.

Each async method is one ``call`` on the connection; the events of the host's agent arrive as
notifications and are published on a bus of the front end's own, so ``subscribe`` and ``listen``
behave as in-process; the synchronous methods read a ``Mirror`` the events keep current. Closing
detaches: the host's turns go on (another front end may watch them), as a cancelled ``prompt``
aborts its turn, as in-process.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from core.api import (
    CommandList,
    CommandResult,
    ConfigInfo,
    EffortState,
    Layer,
    McpAction,
    McpResourceList,
    McpServerStatus,
    ModelLimits,
    ModeState,
    NextEditRequest,
    PromptMode,
    PromptParts,
    ProviderChoice,
    Reconfigured,
    Reply,
    RevertResult,
    ReviewComment,
    Ruleset,
    SearchHit,
)
from core.bus import Bus, Subscription
from core.errors import InvalidInputError, NotFoundError
from core.events import (
    BackgroundAgent,
    BackgroundShell,
    Event,
    FileDiff,
    PartDelta,
    PermissionReplied,
    PermissionRequest,
    PlanReviewReplied,
    PlanReviewRequest,
    QuestionRejected,
    QuestionReplied,
    QuestionRequest,
    QueuedPrompt,
)
from core.message.context_items import ContextItem, ResolvedItem
from core.message.models import MessageWithParts, Session, Todo
from core.message.review import Hunk, ReviewResult
from core.plan.review import PlanAnswer, check_answer
from core.remote import codec
from core.remote.connection import Connection, ConnectionLost
from core.remote.lend import Lend
from core.remote.mirror import Mirror, pending

log = logging.getLogger(__name__)


class RemoteAgent:
    """A project's agent in the host, driven over one connection."""

    def __init__(
        self, conn: Connection, opened: dict[str, Any], host_pid: int, lend: Lend | None = None
    ) -> None:
        self._conn = conn
        self._lend = lend
        self.on_close: list[Callable[[], Awaitable[None]]] = []  # what the front end lets go of then
        self._project = str(opened["project"])
        self._directory = Path(opened["directory"])
        self._worktree = Path(opened["worktree"])
        self.host_pid = host_pid
        self.mirror = Mirror(opened)
        # What the host said of this front end's settings when it opened the project (docs/host.md).
        self.warnings: list[str] = [str(w) for w in opened.get("warnings", [])]
        self.layers: tuple[Layer, ...] | None = None  # the config layers last reconfigured to
        self.bus = Bus()
        self._dialogs = RemoteDialogs(self)
        self._background: set[asyncio.Future[Any]] = set()
        self.closing = False  # closed by its front end: a lost connection is then no host's death
        self._showing: list[str] = []  # the sessions this front end shows (``show``)
        self.reattaching: asyncio.Future[None] | None = None  # set while a new host is being reached

    # --- the connection's side ------------------------------------------------------------

    def on_notification(self, method: str, params: dict[str, Any]) -> None:
        """Take one notification of the host (events, facts, who answered a dialog)."""
        if params.get("project") != self._project:
            return
        if method == "event":
            event = _event(params)
            # Answered in another front end: its clients say where ("answered in Neovim").
            if (
                isinstance(event, _ANSWERED)
                and event.by is None
                and (by := self.mirror.answered_by.get(event.requestID)) is not None
            ):
                event = dataclasses.replace(event, by=by)
            self.mirror.apply(event)
            self.bus.publish(event)
        elif method == "facts":
            self.mirror.set_facts(params["facts"])
        elif method == "answering":
            self.mirror.answered_by[str(params.get("requestID"))] = str(params.get("client"))

    @property
    def project(self) -> str:
        """The host's handle of the project."""
        return self._project

    async def lent(self, call: str, args: dict[str, Any], session: str | None = None) -> Any:
        """Answer the host's call of what this front end lent (its workspace, editor, terminal)."""
        if self._lend is None:
            raise InvalidInputError("this front end lent nothing for this project")
        return await self._lend.serve(call, args, session)

    def lent_changed(self) -> None:
        """Tell the host what is lent now (the editor opened or closed a document)."""
        if self._lend is not None:
            self._conn.notify("lent", {"project": self._project, **self._lend.described()})

    @property
    def lost(self) -> asyncio.Event:
        """Set when the connection to the host is gone (the host stopped or was killed)."""
        return self._conn.closed

    @property
    def lost_reason(self) -> str:
        """What ended the connection."""
        return self._conn.close_reason

    def running(self, session_id: str) -> bool:
        """Whether a turn of the session runs in the host now."""
        return session_id in self.mirror.busy

    def answered_by(self, request_id: str) -> str | None:
        """The client that answered a dialog, when another front end did."""
        return self.mirror.answered_by.get(request_id)

    async def show(self, session_ids: Sequence[str]) -> None:
        """Tell the host which sessions this front end shows now (none: ``[]``). Each front end
        showing one of them gets a ``session.watchers`` event naming the others, this one too
        before this returns; the host forgets them when this front end goes away."""
        self._showing = list(dict.fromkeys(session_ids))
        await self._send_showing()

    async def _send_showing(self) -> None:
        if self._conn.closed.is_set() and self.reattaching is not None:
            await asyncio.shield(self.reattaching)  # the new host is told by ``reattached``
            return
        await self._conn.request("showing", {"project": self._project, "sessions": self._showing})

    def watchers(self, session_id: str) -> list[str]:
        """The other front ends showing the session, as the host last said (for a shown session)."""
        return list(self.mirror.watchers.get(session_id, []))

    async def call(self, method: str, **args: Any) -> Any:
        """Call ``method`` of the host's agent with ``args``; its result as the method's type.

        A call made while a new host is being reached waits for it (core/remote/reattach.py); a call
        the host's death cut off fails with ConnectionLost saying so."""
        if self._conn.closed.is_set() and self.reattaching is not None:
            await asyncio.shield(self.reattaching)
        params = {"project": self._project, "method": method, "args": codec.dump_args(method, args)}
        conn = self._conn
        try:
            answer = await conn.request("call", params)
        except ConnectionLost as exc:
            if self.closing:
                raise
            raise ConnectionLost(
                f"the agent host (pid {self.host_pid}) stopped during {method}: {exc}"
            ) from None
        return codec.load_result(method, answer)

    def reattached(self, conn: Connection, opened: dict[str, Any], host_pid: int) -> None:
        """Go on over ``conn`` to a new host that opened the project again (``opened``: its answer)."""
        self._conn = conn
        self._project = str(opened["project"])
        self.host_pid = host_pid
        self.mirror = Mirror(opened)
        if self._showing:  # the new host learns what this front end shows
            self._track(asyncio.ensure_future(self._send_showing()))

    def send(self, method: str, **args: Any) -> None:
        """Call a method whose in-process twin returns nothing synchronously (its failure is logged)."""
        self._track(asyncio.ensure_future(self.call(method, **args)))

    def _track(self, task: asyncio.Future[Any]) -> None:
        self._background.add(task)
        task.add_done_callback(self._sent)

    def _sent(self, task: asyncio.Future[Any]) -> None:
        self._background.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.warning("host: a call failed: %s", task.exception())

    # --- the Agent protocol -------------------------------------------------------------------

    @property
    def directory(self) -> Path:
        return self._directory

    @property
    def worktree(self) -> Path:
        return self._worktree

    @property
    def dialogs(self) -> RemoteDialogs:
        return self._dialogs

    async def create_session(
        self, title: str | None = None, agent: str | None = None, model: str | None = None
    ) -> Session:
        result: Session = await self.call("create_session", title=title, agent=agent, model=model)
        return result

    async def list_sessions(self, limit: int = 50, before: str | None = None) -> list[Session]:
        result: list[Session] = await self.call("list_sessions", limit=limit, before=before)
        return result

    async def get_session(self, session_id: str) -> Session:
        result: Session = await self.call("get_session", session_id=session_id)
        return result

    async def rename_session(self, session_id: str, title: str) -> Session:
        result: Session = await self.call("rename_session", session_id=session_id, title=title)
        return result

    async def delete_session(self, session_id: str) -> None:
        await self.call("delete_session", session_id=session_id)

    async def fork_session(self, session_id: str, message_id: str | None = None) -> Session:
        result: Session = await self.call("fork_session", session_id=session_id, message_id=message_id)
        return result

    async def messages(
        self, session_id: str, limit: int | None = None, before: str | None = None
    ) -> list[MessageWithParts]:
        result: list[MessageWithParts] = await self.call(
            "messages", session_id=session_id, limit=limit, before=before
        )
        return result

    async def search_sessions(
        self,
        query: str,
        since: int | None = None,
        until: int | None = None,
        agent: str | None = None,
        limit: int = 20,
    ) -> list[SearchHit]:
        result: list[SearchHit] = await self.call(
            "search_sessions", query=query, since=since, until=until, agent=agent, limit=limit
        )
        return result

    async def export_markdown(self, session_id: str) -> str:
        result: str = await self.call("export_markdown", session_id=session_id)
        return result

    async def todos(self, session_id: str) -> list[Todo]:
        result: list[Todo] = await self.call("todos", session_id=session_id)
        return result

    async def diff(self, session_id: str, message_id: str | None = None) -> list[FileDiff]:
        result: list[FileDiff] = await self.call("diff", session_id=session_id, message_id=message_id)
        return result

    async def revert(self, session_id: str, message_id: str, part_id: str | None = None) -> RevertResult:
        result: RevertResult = await self.call(
            "revert", session_id=session_id, message_id=message_id, part_id=part_id
        )
        return result

    async def unrevert(self, session_id: str) -> RevertResult:
        result: RevertResult = await self.call("unrevert", session_id=session_id)
        return result

    async def review(self, session_id: str) -> list[Hunk]:
        result: list[Hunk] = await self.call("review", session_id=session_id)
        return result

    async def keep(
        self, session_id: str, hunk_ids: Sequence[str] | None = None, file: str | None = None
    ) -> ReviewResult:
        result: ReviewResult = await self.call("keep", session_id=session_id, hunk_ids=hunk_ids, file=file)
        return result

    async def undo(
        self, session_id: str, hunk_ids: Sequence[str] | None = None, file: str | None = None
    ) -> ReviewResult:
        result: ReviewResult = await self.call("undo", session_id=session_id, hunk_ids=hunk_ids, file=file)
        return result

    async def record_edit(self, session_id: str, path: str, before: str, after: str) -> list[Hunk]:
        result: list[Hunk] = await self.call(
            "record_edit", session_id=session_id, path=path, before=before, after=after
        )
        return result

    async def file_at_snapshot(self, snapshot: str, path: str) -> bytes | None:
        result: bytes | None = await self.call("file_at_snapshot", snapshot=snapshot, path=path)
        return result

    async def compact(self, session_id: str) -> MessageWithParts:
        result: MessageWithParts = await self.call("compact", session_id=session_id)
        return result

    async def prompt(
        self,
        session_id: str,
        parts: PromptParts,
        agent: str | None = None,
        model: str | None = None,
        no_reply: bool = False,
        mode: PromptMode = "steer",
    ) -> MessageWithParts:
        result: MessageWithParts = await self.call(
            "prompt",
            session_id=session_id,
            parts=parts,
            agent=agent,
            model=model,
            no_reply=no_reply,
            mode=mode,
        )
        return result

    def queued(self, session_id: str) -> list[QueuedPrompt]:
        return list(self.mirror.queues.get(session_id, []))

    def update_queued(self, session_id: str, queue_id: str, parts: PromptParts) -> QueuedPrompt:
        item = self.mirror.queued_prompt(session_id, queue_id)
        self.send("update_queued", session_id=session_id, queue_id=queue_id, parts=parts)
        return item.model_copy(update={"parts": list(parts)})

    def remove_queued(self, session_id: str, queue_id: str) -> None:
        self.mirror.queued_prompt(session_id, queue_id)
        self.send("remove_queued", session_id=session_id, queue_id=queue_id)

    async def background_agents(self, session_id: str | None = None) -> list[BackgroundAgent]:
        result: list[BackgroundAgent] = await self.call("background_agents", session_id=session_id)
        return result

    async def stop_background_agent(self, session_id: str) -> BackgroundAgent:
        result: BackgroundAgent = await self.call("stop_background_agent", session_id=session_id)
        return result

    async def message_background_agent(self, session_id: str, text: str) -> None:
        await self.call("message_background_agent", session_id=session_id, text=text)

    async def background_settled(self, session_id: str) -> None:
        await self.call("background_settled", session_id=session_id)

    async def background_shells(self, session_id: str | None = None) -> list[BackgroundShell]:
        result: list[BackgroundShell] = await self.call("background_shells", session_id=session_id)
        return result

    async def stop_background_shell(self, shell_id: str) -> BackgroundShell:
        result: BackgroundShell = await self.call("stop_background_shell", shell_id=shell_id)
        return result

    async def abort(self, session_id: str) -> None:
        await self.call("abort", session_id=session_id)

    async def mark_interrupted(self, session_ids: list[str]) -> list[str]:
        result: list[str] = await self.call("mark_interrupted", session_ids=session_ids)
        return result

    async def commands(self) -> CommandList:
        result: CommandList = await self.call("commands")
        return result

    async def run_command(
        self,
        session_id: str,
        name: str,
        arguments: str = "",
        agent: str | None = None,
        model: str | None = None,
        attachments: PromptParts = (),
    ) -> CommandResult:
        result: CommandResult = await self.call(
            "run_command",
            session_id=session_id,
            name=name,
            arguments=arguments,
            agent=agent,
            model=model,
            attachments=attachments,
        )
        return result

    def check_model(self, ref: str | None = None) -> str:
        return self.mirror.check_model(ref)

    def config_info(self) -> ConfigInfo:
        return self.mirror.config_info

    async def providers(self) -> list[ProviderChoice]:
        result: list[ProviderChoice] = await self.call("providers")
        return result

    def model_limits(self, ref: str) -> ModelLimits:
        return self.mirror.model_limits(ref)

    async def reconfigure(self, layers: Sequence[Layer] | None = None) -> Reconfigured:
        result: Reconfigured = await self.call("reconfigure", layers=layers)
        if layers is not None:  # a new host is opened with them (core/remote/reattach.py)
            self.layers = tuple(layers)
        return result

    def subscribe(self, *types: type[Event], session_id: str | None = None) -> Subscription:
        return self.bus.subscribe(*types, session_id=session_id)

    def listen(self, callback: Callable[[Event], None], *types: type[Event]) -> Callable[[], None]:
        return self.bus.listen(callback, *types)

    async def close(self, grace: float = 0.0) -> None:
        """Detach from the host: its agent and any turn it runs go on."""
        del grace  # the host's agent finishes its own background work
        self.closing = True
        if self._background:
            await asyncio.wait(self._background, timeout=5.0)
        self._conn.close()
        for release in self.on_close:
            await release()

    async def unrecorded_steps(self, session_id: str, message_id: str | None = None) -> int:
        result: int = await self.call("unrecorded_steps", session_id=session_id, message_id=message_id)
        return result

    async def session_mode(self, session_id: str | None, mode: str | None = None) -> ModeState:
        result: ModeState = await self.call("session_mode", session_id=session_id, mode=mode)
        return result

    async def session_effort(
        self, session_id: str | None, effort: str | None = None, model: str | None = None
    ) -> EffortState:
        result: EffortState = await self.call(
            "session_effort", session_id=session_id, effort=effort, model=model
        )
        return result

    async def review_comment(
        self, session_id: str, comments: Sequence[ReviewComment], send: bool = True
    ) -> MessageWithParts:
        result: MessageWithParts = await self.call(
            "review_comment", session_id=session_id, comments=comments, send=send
        )
        return result

    async def next_edit(self, request: NextEditRequest) -> str | None:
        result: str | None = await self.call("next_edit", request=request)
        return result

    async def resolve_context(
        self, session_id: str | None, items: Sequence[ContextItem]
    ) -> list[ResolvedItem]:
        result: list[ResolvedItem] = await self.call("resolve_context", session_id=session_id, items=items)
        return result

    async def mcp_resources(self) -> McpResourceList:
        result: McpResourceList = await self.call("mcp_resources")
        return result

    async def mcp_servers(self) -> list[McpServerStatus]:
        result: list[McpServerStatus] = await self.call("mcp_servers")
        return result

    async def mcp_set(self, name: str, action: McpAction) -> list[McpServerStatus]:
        result: list[McpServerStatus] = await self.call("mcp_set", name=name, action=action)
        return result

    async def mcp_login(self, name: str) -> str | None:
        result: str | None = await self.call("mcp_login", name=name)
        return result


class RemoteDialogs:
    """``core.api.Dialogs`` of a ``RemoteAgent``: pending requests from its mirror, answers sent."""

    def __init__(self, agent: RemoteAgent) -> None:
        self._agent = agent

    def pending_permissions(self, session_id: str | None = None) -> list[PermissionRequest]:
        return pending(self._agent.mirror.permissions, session_id, lambda r: r.sessionID)

    async def reply_permission(
        self, request_id: str, reply: Reply, message: str | None = None, edited: str | None = None
    ) -> None:
        await self._agent.call(
            "dialogs.reply_permission", request_id=request_id, reply=reply, message=message, edited=edited
        )

    def pending_questions(self, session_id: str | None = None) -> list[QuestionRequest]:
        return pending(self._agent.mirror.questions, session_id, lambda r: r.sessionID)

    def answer(self, request_id: str, answers: list[list[str]]) -> None:
        self._known_question(request_id)
        self._agent.send("dialogs.answer", request_id=request_id, answers=answers)

    def dismiss(self, request_id: str) -> None:
        self._known_question(request_id)
        self._agent.send("dialogs.dismiss", request_id=request_id)

    def pending_plans(self, session_id: str | None = None) -> list[PlanReviewRequest]:
        return pending(self._agent.mirror.plans, session_id, lambda r: r.sessionID)

    def reply_plan(self, request_id: str, answer: PlanAnswer) -> None:
        request = self._agent.mirror.plans.get(request_id)
        if request is None:
            raise NotFoundError(f"no pending plan review {request_id}")
        check_answer(request, answer)  # the host's answer to a bad one would reach no one
        self._agent.send("dialogs.reply_plan", request_id=request_id, answer=answer)

    def deny_in_session(self, session_id: str, rules: Ruleset) -> None:
        self._agent.send("dialogs.deny_in_session", session_id=session_id, rules=rules)

    def _known_question(self, request_id: str) -> None:
        if request_id not in self._agent.mirror.questions:
            raise NotFoundError(f"no pending question {request_id}")


# The events that close a dialog someone answered: ``by`` names the front end, when another did.
_ANSWERED = (PermissionReplied, QuestionReplied, QuestionRejected, PlanReviewReplied)


def _event(params: dict[str, Any]) -> Event:
    """The event a notification carries (a streamed delta built directly: there are thousands)."""
    kind, properties = str(params.get("type")), params.get("properties") or {}
    if kind == PartDelta.TYPE:
        return PartDelta(**properties)
    event_class = Event.REGISTRY.get(kind)
    if event_class is None:
        raise InvalidInputError(f"the host sent an unknown event type {kind!r}")
    event: Event = codec.load(event_class, properties)  # its validator built once per type, not per event
    return event
