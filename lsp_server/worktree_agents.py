"""Worktree sessions in the language server: one agent per worktree, opened on demand, and each
session request sent to the agent of the folder its session works in (issue 40).

The core is rooted at one folder per agent (permissions, sandbox roots, snapshots, review, bash's
working directory and the system prompt all follow from it), so a session in a worktree is served by
an agent opened in that worktree, beside the checkout's. Its events go to the same client and its
edits through the same editor: a worktree file the editor has open gets the edit in its buffer,
any other goes to disk. A git worktree is the same project as its checkout (the project id is the
repository's root commit), so its sessions are in the same store and the checkout's session list
shows them, each with its ``worktree``; a request naming a session goes to the agent of the
session's folder (``Session.directory``), opened when first needed (after a restart too).

When the checkout's agent is the host's (docs/host.md), so is each worktree's: the host opens the
worktree as a project of its own, its turns go on when the editor closes and every attached front end
sees them live; this server lends the host its buffers of the worktree's files. When that host dies
and no new one can be reached, the worktree's agent opens in this process, as the checkout's does.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.config.paths import data_dir
from core.errors import InvalidInputError, NotFoundError
from core.events import SessionStatus
from core.open import open_agent
from core.trust import distrust, is_trusted
from core.worktrees import service
from core.worktrees.service import Worktree
from lsp_server.editor import EditorClient
from lsp_server.events import forward
from lsp_server.workspace import LspWorkspace

if TYPE_CHECKING:
    from core.api import Agent
    from core.events import Event
    from core.message.models import Session
    from lsp_server.server import AgentServer

log = logging.getLogger(__name__)


class _Opened:
    """A worktree's agent, its workspace and the sessions of it whose turn runs."""

    def __init__(self, made: Worktree, app: Agent, workspace: LspWorkspace) -> None:
        self.made = made
        self.app = app
        self.workspace = workspace
        self.busy: set[str] = set()

    def heard(self, event: Event) -> None:
        if isinstance(event, SessionStatus):
            if event.status.type == "idle":
                self.busy.discard(event.sessionID)
            else:
                self.busy.add(event.sessionID)


class WorktreeAgents:
    """The agents of the project's worktrees, and which agent serves which session."""

    def __init__(self, server: AgentServer) -> None:
        self._server = server
        self._open: dict[Path, asyncio.Future[_Opened]] = {}  # by the worktree's folder
        # session id -> its worktree and folder (None: the checkout's)
        self._routes: dict[str, tuple[Worktree, Path] | None] = {}

    def running(self) -> list[Agent]:
        """The worktree agents open now."""
        return [opened.app for opened in self._opened()]

    def workspaces(self) -> list[LspWorkspace]:
        """Their workspaces (buffer changes reach each: an open worktree file is any of theirs)."""
        return [opened.workspace for opened in self._opened()]

    def _opened(self) -> list[_Opened]:
        return [f.result() for f in self._open.values() if f.done() and f.exception() is None]

    # --- routing -------------------------------------------------------------------------

    async def for_params(self, checkout: Agent, params: Any) -> Agent:
        """The agent a request is for: that of its ``sessionID``'s folder, of the worktree agent
        whose dialog ``requestID`` is or whose shell ``shellID`` is; else the checkout's."""
        session_id = getattr(params, "sessionID", None)
        if isinstance(session_id, str):
            return await self.for_session(checkout, session_id)
        request_id = getattr(params, "requestID", None)
        if isinstance(request_id, str):
            for app in self.running():
                dialogs = app.dialogs
                ids = [
                    *(r.id for r in dialogs.pending_permissions()),
                    *(r.id for r in dialogs.pending_questions()),
                    *(r.id for r in dialogs.pending_plans()),
                ]
                if request_id in ids:
                    return app
        shell_id = getattr(params, "shellID", None)
        if isinstance(shell_id, str):
            for app in self.running():
                if any(shell.id == shell_id for shell in await app.background_shells()):
                    return app
        return checkout

    async def for_session(self, checkout: Agent, session_id: str) -> Agent:
        """The agent of the folder ``session_id`` works in (the checkout's for an unknown session:
        its handler says what is not found)."""
        if session_id not in self._routes:
            try:
                session = await checkout.get_session(session_id)
            except NotFoundError:
                return checkout
            folder = Path(session.directory)
            made = await asyncio.to_thread(service.owning, folder, data_dir())
            self._routes[session_id] = (made, folder) if made is not None else None
        route = self._routes[session_id]
        return checkout if route is None else (await self._agent(*route)).app

    # --- worktrees -----------------------------------------------------------------------

    async def create_session(
        self, root: Path, name: str, title: str | None, agent: str | None, model: str | None
    ) -> Session:
        """A session in a new worktree (``name``; "": one from the time) of the repository holding
        ``root``, working in the same place inside it as ``root`` has in the checkout. Nothing is
        left when any step fails (a bad name, no git, an unknown agent or model)."""
        repo = await asyncio.to_thread(service.repository, root)
        made = await asyncio.to_thread(service.create, repo, name or service.default_name(), data_dir())
        folder = made.path / await asyncio.to_thread(_inside, root, repo)
        try:
            opened = await self._agent(made, folder)
            session = await opened.app.create_session(title, agent, model)
        except BaseException:
            await self.close_one(made)
            await asyncio.to_thread(service.discard, made)
            raise
        self._routes[session.id] = (made, folder)
        log.info("session %s works in worktree %s (%s)", session.id, made.name, made.branch)
        return session

    def busy(self, made: Worktree) -> list[str]:
        """The sessions of ``made`` whose turn runs now."""
        opened = self._open.get(made.path)
        if opened is None or not opened.done() or opened.exception() is not None:
            return []
        return sorted(opened.result().busy)

    async def close_one(self, made: Worktree) -> None:
        """Close the agent of ``made`` (discarded) and forget its sessions' routes."""
        future = self._open.pop(made.path, None)
        for session_id in [s for s, route in self._routes.items() if route and route[0].path == made.path]:
            del self._routes[session_id]
        if future is not None and future.done() and future.exception() is None:
            await future.result().app.close()

    async def close(self) -> None:
        """Close every worktree agent (running turns are aborted, the store flushed)."""
        opened, self._open = self._opened(), {}
        for one in opened:
            await one.app.close()

    async def _agent(self, made: Worktree, directory: Path) -> _Opened:
        """The agent of ``made``, opened in ``directory`` (inside it) when not open yet."""
        future = self._open.get(made.path)
        if future is None:
            future = asyncio.get_running_loop().create_future()
            self._open[made.path] = future
            try:
                future.set_result(await self._start(made, directory))
            except BaseException as exc:
                del self._open[made.path]
                future.set_exception(exc)
                future.exception()  # retrieved: the caller gets it raised below
                raise
        return await asyncio.shield(future)

    async def _start(self, made: Worktree, directory: Path) -> _Opened:
        if not made.path.is_dir():
            raise InvalidInputError(f"the worktree {made.name} is gone ({made.path}): discard it")
        server = self._server
        # Trusted as the checkout is: an editor that holds the checkout back holds this back too.
        if not is_trusted(server.root or Path.cwd()):
            distrust(made.path)
        workspace = LspWorkspace(server, directory, server.diagnostics)
        # Attached when the checkout's agent is (it is the host's only once the host answered, so a
        # server that fell back to its own process opens the worktree's here too).
        attached = await self._attached()
        app = await open_agent(
            directory,
            workspace=workspace,
            layers=server.config_layers(),
            editor=EditorClient(server, server.connection, workspace),
            client=server.connection.name or "an editor",
            notice=server.warn_user,
            host="attach" if attached else "never",
            reattach=attached,
            host_gone=lambda why: self._in_process(made, directory, why),
        )
        log.info("the agent of worktree %s is ready in %s", made.name, directory)
        return self._adopt(made, app, workspace)

    def _adopt(self, made: Worktree, app: Agent, workspace: LspWorkspace) -> _Opened:
        """Follow ``app``'s turns and send its events to the editor."""
        opened = _Opened(made, app, workspace)
        app.listen(opened.heard, SessionStatus)
        self._server.spawn(forward(self._server, app.subscribe()))
        return opened

    async def _attached(self) -> bool:
        """Whether the checkout's agent is the agent host's."""
        from core.remote.agent import RemoteAgent  # (the host's front door: imported only here)

        try:
            return isinstance(await self._server.app(), RemoteAgent)
        except Exception:  # the checkout's agent did not open: the worktree's opens here
            return False

    async def _in_process(self, made: Worktree, directory: Path, why: str) -> None:
        """The host died and no new one could be reached: the worktree's agent opens in this
        process (the editor was told once, by the checkout's agent). Requests made meanwhile wait
        for it; the store holds what the host committed."""
        lost = self._open.get(made.path)
        if lost is None or not lost.done() or lost.exception() is not None:
            return
        log.warning("the agent of worktree %s opens in this process: %s", made.name, why)
        future: asyncio.Future[_Opened] = asyncio.get_running_loop().create_future()
        self._open[made.path] = future
        server, workspace = self._server, lost.result().workspace
        try:
            app = await open_agent(
                directory,
                workspace=workspace,
                layers=server.config_layers(),
                editor=EditorClient(server, server.connection, workspace),
            )
        except Exception as exc:
            log.exception("the agent of worktree %s could not open in this process", made.name)
            del self._open[made.path]  # opened again, or its error said, at the next request
            future.set_exception(exc)
            future.exception()
            return
        future.set_result(self._adopt(made, app, workspace))
        await lost.result().app.close()


def _inside(directory: Path, repo: Path) -> Path:
    """Where ``directory`` is in the checkout (the top when it is not in it)."""
    resolved = directory.resolve()
    return resolved.relative_to(repo) if resolved.is_relative_to(repo) else Path()
