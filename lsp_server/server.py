"""The agentls language server: capabilities, the app's lifecycle, and the request plumbing.

``initialize`` is answered before anything heavy is imported; the agent (config, store, litellm)
opens in the background after ``initialized``, and requests that need it wait for it. Feature
modules register their handlers with ``AgentServer.request`` so that parsing, waiting for the app,
error mapping and serialisation happen in one place.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, TypeVar

from lsprotocol import types as lsp
from lsprotocol.converters import get_converter
from pydantic import BaseModel
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer

from core import __version__
from core.cli.main import startup_imports
from core.errors import AgentError
from lsp_server.clients import Connection, agent_capability, parse_options, section
from lsp_server.diagnostics import DiagnosticsStore
from lsp_server.errors import to_jsonrpc
from lsp_server.lifecycle import Lifetime, as_int, watch_process
from lsp_server.protocol import dump, parse
from lsp_server.rpc import AgentProtocol
from lsp_server.workspace import AGENT_DIAGNOSTICS, LspWorkspace, path_of, register_document_hooks

if TYPE_CHECKING:
    from core.app import AgentApp
    from lsp_server.plain import PlainPath

log = logging.getLogger(__name__)

M = TypeVar("M", bound=BaseModel)
Handler = Callable[["AgentApp", M], Awaitable[Any]]

PROTOCOL_VERSION = 1
SERVER_NOT_INITIALIZED = -32002


class AgentServer(LanguageServer):
    """One agent (AgentApp) for one project, driven by the connected editor."""

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
        self.settings_config: Any = None  # workspace/didChangeConfiguration: agentls.config
        self.diagnostics = DiagnosticsStore()
        self.lsp_workspace: LspWorkspace | None = None
        self.root: Path | None = None
        self.config_data: Any = None
        self.app_ready: list[Callable[[AgentApp], None]] = []
        self.plain: PlainPath  # set by plain.register
        self._app: asyncio.Future[AgentApp] | None = None
        self._opened_with: Any = None
        self._tasks: set[asyncio.Task[Any]] = set()

    def agent_capability(self) -> dict[str, Any]:
        """``experimental.agent`` of the initialize answer."""
        return {"version": PROTOCOL_VERSION, "methods": sorted(self.agent_methods), "events": True}

    # --- the app -------------------------------------------------------------------------

    def start_app(self) -> None:
        """Open the AgentApp in the background (once per process; reconnects reuse it)."""
        if self._app is not None:
            return
        root = self.root or Path.cwd()
        self.lsp_workspace = LspWorkspace(self, root, self.diagnostics)
        self._app = asyncio.get_running_loop().create_future()
        self.spawn(self._open_app(root, self._app))

    async def _open_app(self, root: Path, future: asyncio.Future[AgentApp]) -> None:
        try:
            # Imported here: litellm, tokenizers and the store must not delay `initialize`.
            module = await asyncio.to_thread(_import_quietly, "core.app")
            loader = await asyncio.to_thread(importlib.import_module, "core.config.loader")
            # Taken after the slow imports: a didChangeConfiguration sent right after `initialized`
            # (eglot, Neovim with `settings`) is part of the agent's first configuration.
            layers = []
            if self.config_data is not None:
                layers.append(loader.Layer(name="initializationOptions.config", data=self.config_data))
            if self.settings_config is not None:
                layers.append(loader.Layer(name="workspace/configuration", data=self.settings_config))
            self._opened_with = self.settings_config
            # warm: the first prompt then finds the model catalog, connection pool and decoders loaded.
            app: AgentApp = await module.AgentApp.open(
                root, workspace=self.lsp_workspace, config_layers=layers, warm=True
            )
        except Exception as exc:  # every request will report it; the user sees it once now
            log.exception("the agent failed to start in %s", root)
            future.set_exception(exc)
            self.show_message(f"agentls could not start: {exc}", lsp.MessageType.Error)
            return
        future.set_result(app)
        log.info("agent ready in %s", root)
        for callback in self.app_ready:
            callback(app)

    async def app(self) -> AgentApp:
        """The running agent, waiting for it to finish opening."""
        if self._app is None:
            raise JsonRpcException(message="the server is not initialized", code=SERVER_NOT_INITIALIZED)
        return await asyncio.shield(self._app)

    async def close_app(self) -> None:
        """Close the agent (aborts turns, flushes the store); waits for one still opening; safe twice."""
        future, self._app = self._app, None
        if future is None:
            return
        try:
            app = await asyncio.shield(future)
        except Exception:
            return  # it never opened: nothing to close
        await app.close()

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
        self.connection.settings = parse_options(ours, "agentls settings")
        config = ours.get("config")
        if config == self.settings_config:
            return
        self.settings_config = config
        if self._app is not None and self._app.done() and config != self._opened_with:
            self.show_message(
                "agentls: the new agentls.config settings apply when the server restarts",
                lsp.MessageType.Warning,
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
        """Register ``fn(app, params)`` for a custom request: validated, app awaited, errors mapped."""

        def decorator(fn: Handler[M]) -> Handler[M]:
            async def handler(params: Any) -> Any:
                parsed = parse(model, params)
                try:
                    return dump(await fn(await self.app(), parsed))
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

    def log_message(self, message: str, kind: lsp.MessageType = lsp.MessageType.Log) -> None:
        """``window/logMessage``."""
        if self.connection.connected:
            self.window_log_message(lsp.LogMessageParams(type=kind, message=message))


def _import_quietly(name: str) -> ModuleType:
    with startup_imports():  # the agent's import builds thousands of lasting objects: no collections
        return importlib.import_module(name)


def _root(params: lsp.InitializeParams) -> Path | None:
    for uri in [f.uri for f in params.workspace_folders or []] + [params.root_uri or ""]:
        if uri and (path := path_of(uri)) is not None:
            return path
    return Path(params.root_path) if params.root_path else None


def build_server() -> AgentServer:
    """The server with every feature module registered."""
    from lsp_server import code_actions, dialogs, events, plain, sessions

    server = AgentServer()

    @server.feature(lsp.INITIALIZE)
    def initialize(params: lsp.InitializeParams) -> None:
        agent = agent_capability(params.capabilities)
        connection = server.connection
        connection.plugin = agent is not None
        connection.saves_edits = bool(agent and agent.get("savesEdits") is True)
        connection.name = params.client_info.name if params.client_info else ""
        connection.connected = True
        server.root = server.root or _root(params)
        options = params.initialization_options
        if isinstance(options, dict):
            if "config" in options:
                server.config_data = options["config"]
            connection.initial = parse_options(options, "initializationOptions")
        pid = as_int(params.process_id)
        if pid is not None and pid > 0 and server.watch_parent:
            server.spawn(watch_process(pid, server.lifetime))

    @server.feature(lsp.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def did_change_configuration(params: lsp.DidChangeConfigurationParams) -> None:
        server.apply_settings(params.settings)

    @server.feature(lsp.INITIALIZED)
    def initialized(params: Any) -> None:
        server.start_app()

    @server.feature(lsp.SHUTDOWN)
    async def shutdown(params: Any) -> None:
        await server.close_app()

    register_document_hooks(server, lambda: server.lsp_workspace)
    sessions.register(server)
    dialogs.register(server)
    events.register(server)
    plain.register(server)
    code_actions.register(server)
    return server
