"""The ACP agent: ``initialize``, the session lifecycle, prompts and cancellation over the core.

The ``acp`` library parses and validates every request against the ACP schema and calls these
methods with typed arguments; what they return is checked the same way. Core errors become
JSON-RPC errors in one place (``acp_server.errors``).
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp import PROTOCOL_VERSION, RequestError
from acp.schema import (
    AgentCapabilities,
    AuthenticateResponse,
    ClientCapabilities,
    CloseSessionResponse,
    ConfigOptionUpdate,
    CurrentModeUpdate,
    DeleteSessionResponse,
    ForkSessionResponse,
    Implementation,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    McpCapabilities,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
    ResumeSessionResponse,
    SessionCapabilities,
    SessionCloseCapabilities,
    SessionDeleteCapabilities,
    SessionForkCapabilities,
    SessionInfo,
    SessionListCapabilities,
    SessionResumeCapabilities,
    SetSessionConfigOptionResponse,
    SetSessionModeResponse,
)

from acp_server import commands, history, options, replay_diffs, trust_question, worktrees
from acp_server.auth import authenticate
from acp_server.auth_methods import auth_methods
from acp_server.context_links import resolve_links
from acp_server.errors import invalid_params, to_request_error, unknown_session
from acp_server.prompt_input import to_inputs
from acp_server.state import AcpSession
from acp_server.stop import stop_reason
from acp_server.updates import iso
from acp_server.workspace import current_session
from core import __version__
from core.errors import AgentError
from core.message.models import AssistantMessage, MessageWithParts

if TYPE_CHECKING:
    from acp_server.front import Front
    from acp_server.projects import ClientMcp, Project
    from core.api import Agent

log = logging.getLogger(__name__)

PAGE = 50


class AcpAgent:
    """Serves one ACP client: sessions of any number of projects, one prompt at a time per session."""

    def __init__(self, front: Front) -> None:
        self.front = front
        self.sessions = front.sessions

    # --- initialize ----------------------------------------------------------------------------

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: ClientCapabilities | None = None,
        client_info: Implementation | None = None,
        **kwargs: Any,
    ) -> InitializeResponse:
        caps = client_capabilities or ClientCapabilities()
        if caps.fs is not None:
            self.front.access.read = bool(caps.fs.read_text_file)
            self.front.access.write = bool(caps.fs.write_text_file)
        self.front.terminal = bool(caps.terminal)
        self.front.dialogs.forms = caps.elicitation is not None and caps.elicitation.form is not None
        name = client_info.name if client_info else "an unnamed client"
        if client_info:
            self.front.client_name = client_info.name
        log.info("ACP client %s asks for protocol %s", name, protocol_version)
        return InitializeResponse(
            # The client's version when we speak it, else the newest we speak (the client decides).
            protocol_version=min(protocol_version, PROTOCOL_VERSION)
            if protocol_version >= 1
            else PROTOCOL_VERSION,
            agent_capabilities=AgentCapabilities(
                load_session=True,
                prompt_capabilities=PromptCapabilities(image=True, audio=False, embedded_context=True),
                mcp_capabilities=McpCapabilities(http=True, sse=True),
                session_capabilities=SessionCapabilities(
                    list=SessionListCapabilities(),
                    delete=SessionDeleteCapabilities(),
                    fork=SessionForkCapabilities(),
                    resume=SessionResumeCapabilities(),
                    close=SessionCloseCapabilities(),
                ),
            ),
            agent_info=Implementation(name="agentls", title="agentls", version=__version__),
            auth_methods=auth_methods(caps.model_dump(by_alias=True, exclude_none=True)),
        )

    async def authenticate(self, method_id: str, **kwargs: Any) -> AuthenticateResponse | None:
        return await authenticate(self.front, method_id)

    # --- session lifecycle -----------------------------------------------------------------------

    async def new_session(
        self, cwd: str, mcp_servers: list[ClientMcp] | None = None, **kwargs: Any
    ) -> NewSessionResponse:
        name = worktrees.requested(kwargs)  # _meta.agentls.worktree: in a worktree of its own
        project = await self._project(cwd, mcp_servers)
        try:
            if name is not None:
                project, info = await worktrees.new_session(
                    self.front.projects, Path(cwd), mcp_servers or [], name
                )
            else:
                info = await project.app.create_session()
        except AgentError as exc:
            raise to_request_error(exc) from exc
        state = self._open(info.id, project, info.directory if name is not None else cwd, None, None)
        state.title = info.title
        self._announce_commands(state)
        return NewSessionResponse(
            session_id=info.id,
            modes=options.mode_state(project.app, state),
            config_options=await self._options(state),
            field_meta=worktrees.described(info),
        )

    async def load_session(
        self, cwd: str, session_id: str, mcp_servers: list[ClientMcp] | None = None, **kwargs: Any
    ) -> LoadSessionResponse | None:
        project, state = await self._reopen(cwd, session_id, mcp_servers)
        app = project.app
        try:
            info = await app.get_session(session_id)
            messages = await app.messages(session_id, limit=100_000)
            todos = await app.todos(session_id)
        except AgentError as exc:
            raise to_request_error(exc) from exc
        project.feed.remember_costs(session_id, history.costs(messages))
        await project.feed.flush()  # nothing of this session may interleave with the replay

        async def send(update: Any) -> None:
            await self.front.send(session_id, update)

        writes = await replay_diffs.whole_file_writes(app, messages)
        await history.replay(info, messages, todos, app.directory, send, writes)
        state.title = info.title
        self._announce_commands(state)
        return LoadSessionResponse(
            modes=options.mode_state(app, state), config_options=await self._options(state)
        )

    async def resume_session(
        self, cwd: str, session_id: str, mcp_servers: list[ClientMcp] | None = None, **kwargs: Any
    ) -> ResumeSessionResponse:
        project, state = await self._reopen(cwd, session_id, mcp_servers)
        self._announce_commands(state)
        return ResumeSessionResponse(
            modes=options.mode_state(project.app, state),
            config_options=await self._options(state),
        )

    async def fork_session(
        self,
        session_id: str,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: list[ClientMcp] | None = None,
        **kwargs: Any,
    ) -> ForkSessionResponse:
        """``session/fork``: a new session holding a copy of the whole conversation so far."""
        project = await self._project(cwd, mcp_servers)
        try:
            info = await project.app.fork_session(session_id)
            agent, model = history.last_choice(await project.app.messages(info.id, limit=20))
        except AgentError as exc:
            raise to_request_error(exc) from exc
        source = self.sessions.get(session_id)
        state = self._open(info.id, project, cwd, agent, model)
        if source is not None:  # what the user picked in the original, even before its first prompt
            state.mode, state.model = source.mode, source.model
        state.title = info.title
        self._announce_commands(state)
        return ForkSessionResponse(
            session_id=info.id,
            modes=options.mode_state(project.app, state),
            config_options=await self._options(state),
        )

    async def close_session(self, session_id: str, **kwargs: Any) -> CloseSessionResponse | None:
        state = self._state(session_id)
        await self._stop(state)
        del self.sessions[session_id]
        self._tell_host(state.project)
        return CloseSessionResponse()

    async def delete_session(self, session_id: str, cwd: Path | None = None) -> DeleteSessionResponse:
        """``session/delete``: the session, its messages and its subagents' sessions."""
        state = self.sessions.get(session_id)
        if state is not None:
            await self._stop(state)
            app = state.project.app
        else:
            app = (await self.front.projects.get(cwd or Path.cwd())).app
        try:
            await app.delete_session(session_id)
        except AgentError as exc:
            raise to_request_error(exc) from exc
        self.sessions.pop(session_id, None)
        if state is not None:
            self._tell_host(state.project)
        return DeleteSessionResponse()

    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None, **kwargs: Any
    ) -> ListSessionsResponse:
        project = await self._project(cwd, None) if cwd else await self.front.default_project()
        try:
            found = await project.app.list_sessions(limit=PAGE, before=cursor)
        except AgentError as exc:
            raise to_request_error(exc) from exc
        roots = [s for s in found if s.parentID is None]
        return ListSessionsResponse(
            sessions=[
                SessionInfo(session_id=s.id, cwd=s.directory, title=s.title, updated_at=iso(s.time.updated))
                for s in roots
            ],
            next_cursor=found[-1].id if len(found) == PAGE else None,
        )

    # --- modes and config options ------------------------------------------------------------------

    async def set_session_mode(
        self, session_id: str, mode_id: str, **kwargs: Any
    ) -> SetSessionModeResponse | None:
        state = await self._session(session_id)
        self._set_mode(state, mode_id)
        await self.front.send(
            session_id,
            ConfigOptionUpdate(
                session_update="config_option_update",
                config_options=await self._options(state),
            ),
        )
        return SetSessionModeResponse()

    async def set_config_option(
        self, config_id: str, session_id: str, value: str | bool, **kwargs: Any
    ) -> SetSessionConfigOptionResponse | None:
        state = await self._session(session_id)
        app = state.project.app
        if config_id == options.MODE and isinstance(value, str):
            self._set_mode(state, value)
            await self.front.send(
                session_id, CurrentModeUpdate(session_update="current_mode_update", current_mode_id=value)
            )
        elif config_id == options.MODEL and isinstance(value, str):
            self._set_model(state, value)
        elif config_id in (options.AUTONOMY, options.EFFORT) and isinstance(value, str):
            try:
                if config_id == options.AUTONOMY:
                    await app.session_mode(session_id, value)
                else:
                    await app.session_effort(session_id, value, options.current_model(app, state))
            except AgentError as exc:
                raise to_request_error(exc) from exc
        else:
            raise invalid_params(f"unknown config option {config_id!r} (or a value of the wrong type)")
        return SetSessionConfigOptionResponse(config_options=await self._options(state))

    async def set_session_model(self, session_id: str, model_id: str, **kwargs: Any) -> dict[str, Any]:
        """``session/set_model`` of older clients: the same as the ``model`` config option."""
        state = await self._session(session_id)
        self._set_model(state, model_id)
        await self.front.send(
            session_id,
            ConfigOptionUpdate(
                session_update="config_option_update",
                config_options=await self._options(state),
            ),
        )
        return {}

    # --- prompts -----------------------------------------------------------------------------------

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        """A prompt sent while one is answered waits in the session's queue and runs as its own turn
        once the turns before it have ended; each request gets its own turn's stop reason."""
        state = await self._session(session_id)
        inputs = to_inputs(prompt, state.cwd)
        current_session.set(session_id)  # file requests of this turn name this session (tasks inherit it)
        await trust_question.settle(self.front, state)  # may reopen the project's agent
        app = state.project.app
        busy = state.busy  # before this prompt joins the session's turns

        async def answer() -> MessageWithParts | None:
            prompt_inputs = await resolve_links(app, session_id, inputs)  # may fetch or ask: cancellable
            # `/name args` naming a command runs it; the command list is read only for such a prompt.
            if commands.looks_like_command(prompt_inputs):
                invocation = commands.parse(prompt_inputs, await app.commands())
                if invocation is not None:
                    if busy:  # a command acts on the conversation: not while prompts of it are in flight
                        message = f"/{invocation.name} waits until the session's prompts are answered"
                        raise RequestError(-32600, message, None)
                    return await commands.run(self.front, state, invocation)
            return await app.prompt(
                session_id, prompt_inputs, agent=state.mode, model=state.model, mode="queue"
            )

        work = answer()
        # A task of its own, so that session/cancel can stop it at any point, even before the loop runs.
        turn: asyncio.Task[Any] = asyncio.ensure_future(work)
        state.turns.append(turn)
        try:
            await asyncio.wait({turn})
        finally:
            if not turn.done():  # this request itself was cancelled (the connection closed)
                turn.cancel()
            state.turns.remove(turn)
        await state.project.feed.flush()
        self.front.spawn(commands.announce(self.front, state))  # a command file added or changed
        if turn in state.cancelled:
            state.cancelled.discard(turn)
            return PromptResponse(stop_reason="cancelled")
        if (exc := turn.exception()) is not None:
            if isinstance(exc, AgentError):
                raise to_request_error(exc) from exc
            raise exc
        final = turn.result()
        if not isinstance(final, MessageWithParts):
            return PromptResponse(stop_reason="end_turn")  # a command that ran no turn (/compact, /undo)
        steps = await _steps(app, session_id, final)
        return PromptResponse(stop_reason=stop_reason(final, steps, _step_limit(app, state.mode)))

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        state = self.sessions.get(session_id)
        if state is None:
            log.info("cancel of unknown session %s ignored", session_id)
            return
        await self._stop(state)

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        raise RequestError.method_not_found(f"_{method}")

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        log.info("extension notification _%s ignored", method)

    # --- helpers -----------------------------------------------------------------------------------

    async def _project(self, cwd: str | None, servers: list[ClientMcp] | None) -> Project:
        path = Path(cwd) if cwd else None
        if path is None or not path.is_absolute():
            raise invalid_params(f"cwd must be an absolute path, got {cwd!r}")
        if not await asyncio.to_thread(path.is_dir):
            raise invalid_params(f"cwd {cwd} is not a directory")
        try:
            project = await self.front.projects.get(path, servers or [])
        except AgentError as exc:
            raise to_request_error(exc) from exc
        return project

    async def _reopen(
        self, cwd: str, session_id: str, servers: list[ClientMcp] | None
    ) -> tuple[Project, AcpSession]:
        project = await self._project(cwd, servers)
        try:
            info = await project.app.get_session(session_id)
        except AgentError as exc:
            raise to_request_error(exc) from exc
        elsewhere = await worktrees.reopen(self.front.projects, info, servers or [])
        if elsewhere is not None:  # a worktree session goes on in its worktree, with its agent
            project, cwd = elsewhere, info.directory
        app = project.app
        try:
            messages = await app.messages(session_id, limit=20)
        except AgentError as exc:
            raise to_request_error(exc) from exc
        agent, model = history.last_choice(messages)
        old = self.sessions.get(session_id)
        if old is not None and old.project is not project:
            await self._stop(old)
        return project, self._open(session_id, project, cwd, agent, model)

    def _open(
        self, session_id: str, project: Project, cwd: str, agent: str | None, model: str | None
    ) -> AcpSession:
        names = {n for n, _ in options.modes(project.app)}
        mode = agent if agent in names else project.app.config_info().default_agent
        state = self.sessions.get(session_id)
        if state is None or state.project is not project:
            moved = state.project if state is not None else None
            state = AcpSession(id=session_id, project=project, cwd=Path(cwd), mode=mode, model=model)
            self.sessions[session_id] = state
            self._tell_host(project)
            if moved is not None:
                self._tell_host(moved)
        return state

    def _tell_host(self, project: Project) -> None:
        """Tell the agent host (when the project's agent is attached to one) which sessions of the
        project this client has open: the other front ends showing one say "also open in Zed"."""
        shown = [sid for sid, state in self.sessions.items() if state.project is project]

        async def tell() -> None:  # (in-process, ``show`` changes nothing)
            try:
                await project.app.show(shown)
            except AgentError as exc:  # the host went away: a new one is told when reattached
                log.info("the sessions shown were not passed to the host: %s", exc)

        self.front.spawn(tell())

    async def _options(self, state: AcpSession) -> list[Any]:
        """The session's config options: agent and model, then autonomy and effort."""
        try:
            return await options.all_options(state.project.app, state)
        except AgentError as exc:
            raise to_request_error(exc) from exc

    def _state(self, session_id: str) -> AcpSession:
        state = self.sessions.get(session_id)
        if state is None:
            raise unknown_session(session_id)
        return state

    async def _session(self, session_id: str) -> AcpSession:
        """The session, once its project's agent can answer (it may be moving into this process)."""
        state = self._state(session_id)
        try:
            await state.project.agent()
        except AgentError as exc:
            raise to_request_error(exc) from exc
        return state

    def _set_mode(self, state: AcpSession, mode_id: str) -> None:
        names = [n for n, _ in options.modes(state.project.app)]
        if mode_id not in names:
            raise invalid_params(f"unknown mode {mode_id!r}; the modes are {', '.join(names)}")
        state.mode = mode_id

    def _set_model(self, state: AcpSession, value: str) -> None:
        app = state.project.app
        if value not in options.models(app) and value != options.current_model(app, state):
            raise invalid_params(f"unknown model {value!r}; configured: {', '.join(options.models(app))}")
        state.model = value

    async def _stop(self, state: AcpSession) -> None:
        """Stop every prompt of the session in flight: the running turn and those queued behind it."""
        # Queued ones first, so that none starts as the running turn ends; all before any await.
        stopping = [turn for turn in reversed(state.turns) if not turn.done()]
        for turn in stopping:
            state.cancelled.add(turn)
            turn.cancel()  # the loop aborts its run (and waits until it is consistent); a queued one leaves
        if stopping:
            await asyncio.wait(stopping)
        try:
            app = await state.project.agent()
        except AgentError as exc:  # no agent to stop: the project's could not be opened again
            log.info("session %s not aborted: %s", state.id, exc)
            return
        await app.abort(state.id)

    def _announce_commands(self, state: AcpSession) -> None:
        # After the response that makes the session known to the client (the writes are in order).
        state.commands_sent = None
        self.front.spawn(commands.announce(self.front, state))


async def _steps(app: Agent, session_id: str, final: MessageWithParts) -> int:
    """How many model requests answered the turn's user message."""
    info = final.info
    if not isinstance(info, AssistantMessage):
        return 0
    recent = await app.messages(session_id, limit=200)
    return sum(1 for m in recent if isinstance(m.info, AssistantMessage) and m.info.parentID == info.parentID)


def _step_limit(app: Agent, mode: str) -> int | None:
    try:
        return app.config_info().agent(mode).steps
    except AgentError:
        return None
