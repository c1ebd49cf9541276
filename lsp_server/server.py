"""The agentls language server: capabilities, the app's lifecycle, and the request plumbing.

``initialize`` is answered before anything heavy is imported; the agent (config, store, litellm)
opens in the background after ``initialized``, and requests that need it wait for it. The project
(its store and config) opens first, on its own: the reads a chat opens with
(``AgentServer.read_request``: the session list, a transcript) are answered from its store while the
rest of the agent loads. Feature modules register their handlers with ``AgentServer.request`` so
that parsing, waiting for the app, error mapping and serialisation happen in one place.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import os
import time
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from lsprotocol import types as lsp
from lsprotocol.converters import get_converter
from pydantic import BaseModel
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer

from agentls.boot import startup_imports
from core import __version__
from core.errors import AgentError
from core.open import host_mode, open_agent, open_project, session_reader
from lsp_server import methods
from lsp_server.clients import Connection, parse_options, section
from lsp_server.diagnostics import DiagnosticsStore
from lsp_server.early_reads import config_layers
from lsp_server.editor import EditorClient
from lsp_server.editor_process import EditorProcess
from lsp_server.errors import to_jsonrpc
from lsp_server.lifecycle import Lifetime
from lsp_server.protocol import dump, parse
from lsp_server.rpc import AgentProtocol
from lsp_server.trust_dialog import settle_trust
from lsp_server.workspace import AGENT_DIAGNOSTICS, LspWorkspace
from lsp_server.worktree_agents import WorktreeAgents

if TYPE_CHECKING:
    from core.api import Agent, Layer, SessionReads
    from core.project import OpenedProject
    from lsp_server.plain import PlainPath

log = logging.getLogger(__name__)

M = TypeVar("M", bound=BaseModel)
Handler = Callable[["Agent", M], Awaitable[Any]]
ReadHandler = Callable[["SessionReads", M], Awaitable[Any]]

SERVER_NOT_INITIALIZED = -32002


class AgentServer(LanguageServer):
    """One agent for one project, driven by the connected editor."""

    protocol: AgentProtocol

    def __init__(self) -> None:
        super().__init__(
            name="agentls",
            version=__version__,
            text_document_sync_kind=lsp.TextDocumentSyncKind.Full,
            protocol_cls=AgentProtocol,
            converter_factory=get_converter,
        )
        self.agent_methods: set[str] = {AGENT_DIAGNOSTICS}
        self.connection = Connection()
        self.lifetime = Lifetime()
        self.watch_parent = True  # stdio: the editor's processId; TCP clients come and go
        # serve_cmd sets the one made at process start, before anything was read; else initialize
        # makes one.
        self.editor_process: EditorProcess | None = None
        self.settings_config: Any = None  # workspace/didChangeConfiguration: agentls.config
        self.diagnostics = DiagnosticsStore()
        self.lsp_workspace: LspWorkspace | None = None
        self.root: Path | None = None
        self.config_data: Any = None
        self.host_option: Any = None  # initializationOptions.host (else AGENTLS_HOST)
        # In the host, for a relay (lsp_server/hosted.py): the agent is this host's, and the process
        # the editor talks to (its processId) is the relay's.
        self.hosted = False
        self.relay_pid: int | None = None  # the relay's pid (pygls keeps the editor's in process_id)
        self.app_ready: list[Callable[[Agent], None]] = []
        self.worktrees = WorktreeAgents(self)  # the agents of worktree sessions, beside the checkout's
        self.plain: PlainPath  # set by plain.register
        self._app: asyncio.Future[Agent] | None = None
        self._project: asyncio.Future[OpenedProject] | None = None  # opened before the rest of the app
        # The project the early phase opened (early_reads): None in it means "open it yourself".
        self._adopted: tuple[asyncio.Future[OpenedProject | None], Any] | None = None
        self._closing: asyncio.Future[None] | None = None
        self._applied_config: Any = None  # the settings config the agent last loaded or rejected
        self._reconfiguring: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()

    def agent_capability(self) -> dict[str, Any]:
        """``experimental.agent`` of the initialize answer."""
        return {
            "version": methods.PROTOCOL_VERSION,
            "methods": sorted(self.agent_methods),
            "events": True,
            "processId": self.relay_pid or os.getpid(),
        }

    # --- the app -------------------------------------------------------------------------

    def start_app(self) -> None:
        """Open the agent in the background (once per process; reconnects reuse it): its project
        (store and config) first, which the session reads need, then the rest."""
        if self._app is not None:
            return
        root = self.root or Path.cwd()
        workspace = self.lsp_workspace = LspWorkspace(self, root, self.diagnostics)
        loop = asyncio.get_running_loop()
        self._project, self._app = loop.create_future(), loop.create_future()
        if self._adopted is not None:
            self.spawn(self._adopt_project(root, self._project, *self._adopted))
        else:
            self.spawn(self._open_project(root, self._project))
        self.spawn(self._open_app(root, workspace, self._app, self._project))

    def adopt_project(self, opening: asyncio.Future[OpenedProject | None], settings_config: Any) -> None:
        """Take the project the early phase opens (with ``settings_config`` as its settings layer)
        instead of opening it at ``initialized``; if it resolves to None, open it as usual."""
        self._adopted = (opening, settings_config)

    async def _adopt_project(
        self,
        root: Path,
        future: asyncio.Future[OpenedProject],
        opening: asyncio.Future[OpenedProject | None],
        settings_config: Any,
    ) -> None:
        try:
            opened = await opening
        except Exception as exc:  # the error of every request, as _open_project's
            future.set_exception(exc)
            return
        if opened is None:  # (a trust question to ask first)
            await self._open_project(root, future)
            return
        self._applied_config = settings_config
        future.set_result(opened)

    async def _open_project(self, root: Path, future: asyncio.Future[OpenedProject]) -> None:
        try:
            # The config's schema is imported off the loop (it must not delay `initialize`).
            await asyncio.to_thread(importlib.import_module, "core.config.loader")
            # Before the project's config is read: a stock client's user is asked about trust first
            # (the chat's first reads wait for the project, so for the answer too).
            await settle_trust(self, root)
            # Taken after that import and the answer: a didChangeConfiguration sent right after `initialized`
            # (eglot, Neovim with `settings`) is then part of the agent's first configuration
            # (one that comes later is applied when the agent is open).
            self._applied_config = self.settings_config
            opened = await open_project(root, self._config_layers(self.settings_config))
        except Exception as exc:  # the app reports it (it waits for the project)
            future.set_exception(exc)
            return
        future.set_result(opened)

    async def _open_app(
        self,
        root: Path,
        workspace: LspWorkspace,
        future: asyncio.Future[Agent],
        project: asyncio.Future[OpenedProject],
    ) -> None:
        started = time.perf_counter()
        try:
            # The project first, alone: the chat's first reads need only it (read_request), and
            # the agent's imports below would slow it down (one GIL).
            opened = await asyncio.shield(project)
            # Imported here, on a thread: open_agent imports the agent itself (litellm's routes,
            # tokenizers) on a thread too.
            try:
                await asyncio.to_thread(_import_front_door)
            except BaseException:
                await opened.store.close()  # (open_agent closes it when it fails itself)
                raise
            # warm: the first prompt then finds the model catalog, connection pool and decoders loaded.
            app = await open_agent(
                root,
                **self._agent_options(workspace),
                opened=opened,
                host="attach"
                if self.hosted
                else host_mode(self.host_option, "initializationOptions.host", self.warn_user),
                client=self.connection.name or "an editor",
                reattach=True,  # when the host dies: a new one, attached again (core/remote/reattach.py)
                host_gone=lambda why: self._in_process(root, workspace, why),
                notice=self.warn_user,
            )
        except Exception as exc:
            return self._failed(root, future, exc)
        future.set_result(app)
        # The figure bench/startup.py reports as the background load itself (issue #14).
        log.info("agent ready in %s after %.0f ms", root, (time.perf_counter() - started) * 1000)
        for callback in self.app_ready:
            callback(app)
        self._reconfigure(app)  # settings that arrived while it opened

    async def _in_process(self, root: Path, workspace: LspWorkspace, why: str) -> None:
        """The agent host died and no new one could be reached: go on with the agent in this
        process (the editor is told once; the store holds what the host committed). Requests
        made meanwhile wait for it, as at start."""
        lost = self._app
        if lost is None:  # the server is closing
            return
        future = self._app = asyncio.get_running_loop().create_future()
        self.show_message(f"agentls: {why}; the agent runs in this process now", lsp.MessageType.Warning)
        try:
            app = await open_agent(root, **self._agent_options(workspace))
        except Exception as exc:
            return self._failed(root, future, exc)
        future.set_result(app)
        if self._app is not future:  # the server closed meanwhile: close_app closes it
            return
        for callback in self.app_ready:
            callback(app)
        if lost.done() and not lost.cancelled() and lost.exception() is None:
            await lost.result().close()

    def _agent_options(self, workspace: LspWorkspace) -> dict[str, Any]:
        """What every agent this server opens in-process is opened with (at start, or when its host
        died): the editor's buffers, config layers and language servers, warmed for the first prompt."""
        return {
            "workspace": workspace,
            "layers": self._config_layers(self._applied_config),
            "warm": True,
            "editor": EditorClient(self, self.connection, workspace),
            "import_guard": startup_imports,
        }

    def _failed(self, root: Path, future: asyncio.Future[Agent], exc: Exception) -> None:
        """The agent could not open: every request will report it; the user sees it once now."""
        log.exception("the agent failed to start in %s", root, exc_info=exc)
        future.set_exception(exc)
        self.show_message(f"agentls could not start: {exc}", lsp.MessageType.Error)

    def config_layers(self) -> list[Layer]:
        """The config layers in effect now (a worktree's agent opens with them)."""
        return self._config_layers(self._applied_config)

    def _config_layers(self, settings_config: Any) -> list[Layer]:
        """The editor's config layers: initialization options, then its settings (which win)."""
        return config_layers(self.config_data, settings_config)

    async def app(self) -> Agent:
        """The running agent, waiting for it to finish opening and for new settings to apply."""
        if self._app is None:
            raise JsonRpcException(message="the server is not initialized", code=SERVER_NOT_INITIALIZED)
        app = await asyncio.shield(self._app)
        # Requests come in order: one sent after didChangeConfiguration sees the new config.
        if self._reconfiguring is not None and not self._reconfiguring.done():
            await asyncio.wait({self._reconfiguring})
        return app

    async def reader(self) -> SessionReads:
        """What answers the session reads: the agent once it is open, its project's store before
        that (once its config has loaded: a bad one is the error of every request)."""
        if self._app is None or self._project is None:
            raise JsonRpcException(message="the server is not initialized", code=SERVER_NOT_INITIALIZED)
        if not self._app.done():
            opened = await asyncio.shield(self._project)
            if not self._app.done():
                return session_reader(opened)
        return await self.app()  # (its error, if it failed to open)

    async def close_app(self) -> None:
        """Close the agent (aborts turns, flushes the store); waits for one still opening.

        Every caller waits for the same closing (``shutdown``, then the server's own close at
        ``exit``): a second caller never returns while the first is still flushing the store."""
        future, self._app = self._app, None
        if future is not None:
            self._closing = asyncio.ensure_future(_close(future, self.worktrees))
        if self._closing is not None:
            await asyncio.shield(self._closing)

    async def cancel_tasks(self) -> None:
        """Cancel the background tasks (event forwarding, dialogs) and wait for them to finish."""
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def apply_settings(self, settings: Any) -> None:
        """``workspace/didChangeConfiguration``: client options, and ``config`` as a config layer."""
        ours = section(settings)
        if ours is None:
            return
        self.connection.settings = parse_options(ours, "agentls settings", self.warn_user)
        self.settings_config = ours.get("config")
        future = self._app
        if future is not None and future.done() and not future.cancelled() and future.exception() is None:
            self._reconfigure(future.result())

    def _reconfigure(self, app: Agent) -> None:
        """Apply the latest settings config to the loaded agent (one reconfigure at a time)."""
        if self.settings_config == self._applied_config:
            return
        if self._reconfiguring is None or self._reconfiguring.done():
            self._reconfiguring = self.spawn(self._apply_settings_config(app))

    async def _apply_settings_config(self, app: Agent) -> None:
        # Settings that change again meanwhile are applied next; each rejected one is shown once.
        while self.settings_config != self._applied_config:
            config = self._applied_config = self.settings_config
            try:
                for worktree_app in self.worktrees.running():  # (the same layers: the same editor)
                    await worktree_app.reconfigure(self._config_layers(config))
                result = await app.reconfigure(self._config_layers(config))
            except AgentError as exc:  # the user's config: they fix it
                self._not_applied(str(exc))
                continue
            except Exception as exc:  # a bug: the traceback goes to the log
                log.exception("applying the new settings failed")
                self._not_applied(f"{type(exc).__name__}: {exc}")
                continue
            if result.warnings:
                self.show_message("agentls: " + "; ".join(result.warnings), lsp.MessageType.Warning)
            changed = f" ({', '.join(result.changed)})" if result.changed else ""
            self.log_message(f"agentls: the new settings are in effect{changed}", lsp.MessageType.Info)

    def _not_applied(self, reason: str) -> None:
        log.warning("the new agentls.config settings were not applied: %s", reason)
        self.show_message(
            "agentls: the new agentls.config settings were not applied (the previous configuration "
            f"stays in effect): {reason}",
            lsp.MessageType.Error,
        )

    # --- plumbing --------------------------------------------------------------------------

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        """Run a background task, keeping a reference and logging its failure."""
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)
        return task

    def _task_done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and (exc := task.exception()) is not None:
            log.error("background task failed", exc_info=exc)

    def request(self, method: str, model: type[M]) -> Callable[[Handler[M]], Handler[M]]:
        """Register ``fn(app, params)`` for a custom request: validated, app awaited, errors mapped.
        ``app`` is the agent of the session the params name (``sessionID``; a worktree session's is
        its worktree's: ``WorktreeAgents.for_params``), else the checkout's."""
        return self._register(method, model, self._routed)

    async def _routed(self, params: BaseModel) -> Agent:
        return await self.worktrees.for_params(await self.app(), params)

    async def _read(self, params: BaseModel) -> SessionReads:
        return await self.reader()

    def read_request(self, method: str, model: type[M]) -> Callable[[ReadHandler[M]], ReadHandler[M]]:
        """Register ``fn(reader, params)`` for a session read, answered before the agent has loaded
        (see ``reader``); validated and mapped as ``request`` does."""
        return self._register(method, model, self._read)

    def _register(
        self, method: str, model: type[M], receiver: Callable[[M], Awaitable[Any]]
    ) -> Callable[[Callable[[Any, M], Awaitable[Any]]], Any]:
        """The handler of ``method``: params validated, ``fn(await receiver(params), params)`` answered,
        the core's errors mapped to JSON-RPC."""

        # The table of methods is the one list: a handler for another method, or with other
        # params than the table's, is a bug the server's start-up shows at once.
        entry = methods.BY_NAME.get(method)
        if entry is None or entry.kind != "request" or entry.direction != "client→server":
            raise ValueError(f"{method} is not a client request of lsp_server/methods.py")
        if entry.params is not model:
            raise ValueError(
                f"{method} takes {entry.params.__name__} (lsp_server/methods.py), not {model.__name__}"
            )

        def decorator(fn: Callable[[Any, M], Awaitable[Any]]) -> Any:
            async def handler(params: Any) -> Any:
                parsed = parse(model, params)
                try:
                    return dump(await fn(await receiver(parsed), parsed))
                except AgentError as exc:
                    log.info("%s failed: %s: %s", method, type(exc).__name__, exc)
                    raise to_jsonrpc(exc) from exc

            handler.__name__ = fn.__name__
            self.feature(method)(handler)
            self.agent_methods.add(method)
            return fn

        return decorator

    def notify(self, method: str, params: Any) -> None:
        """Send a notification if a client is connected (events between clients are dropped)."""
        if not self.connection.connected:
            return
        try:
            self.protocol.notify(method, params)
        except (BrokenPipeError, ConnectionError):
            log.info("the client went away; dropping %s until one connects", method)
            self.connection.connected = False

    def show_message(self, message: str, kind: lsp.MessageType = lsp.MessageType.Info) -> None:
        """``window/showMessage``."""
        if self.connection.connected:
            self.window_show_message(lsp.ShowMessageParams(type=kind, message=message))

    def warn_user(self, message: str) -> None:
        """A warning the user should see (a client option that was ignored)."""
        self.show_message(f"agentls: {message}", lsp.MessageType.Warning)

    def log_message(self, message: str, kind: lsp.MessageType = lsp.MessageType.Log) -> None:
        """``window/logMessage``."""
        if self.connection.connected:
            self.window_log_message(lsp.LogMessageParams(type=kind, message=message))


def _import_front_door() -> None:
    with startup_imports():  # the config schema builds lasting objects: no collections meanwhile
        import core.api  # noqa: F401


async def _close(opening: asyncio.Future[Agent], worktrees: WorktreeAgents) -> None:
    await worktrees.close()
    try:
        app = await asyncio.shield(opening)
    except Exception:
        return  # it never opened: nothing to close
    await app.close()
