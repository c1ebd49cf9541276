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
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from lsprotocol import types as lsp
from lsprotocol.converters import get_converter
from pydantic import BaseModel
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol, lsp_method

from core import __version__
from core.errors import AgentError
from lsp_server.diagnostics import DiagnosticsStore
from lsp_server.errors import to_jsonrpc
from lsp_server.protocol import dump, parse
from lsp_server.workspace import AGENT_DIAGNOSTICS, LspWorkspace, path_of, register_document_hooks

if TYPE_CHECKING:
    from core.app import AgentApp
    from lsp_server.plain import PlainPath

log = logging.getLogger(__name__)

M = TypeVar("M", bound=BaseModel)
Handler = Callable[["AgentApp", M], Awaitable[Any]]

PROTOCOL_VERSION = 1
SERVER_NOT_INITIALIZED = -32002


@dataclass
class Connection:
    """What the server knows about the client currently connected."""

    plugin: bool = False  # announced experimental.agent: events and reply requests, not dialogs
    connected: bool = False


class AgentProtocol(LanguageServerProtocol):
    """pygls' protocol plus the ``experimental.agent`` capability in the initialize answer."""

    _server: AgentServer

    @lsp_method(lsp.INITIALIZE)
    def lsp_initialize(self, params: lsp.InitializeParams) -> Any:
        result = yield from super().lsp_initialize(params)
        result.capabilities.experimental = {
            "agent": {
                "version": PROTOCOL_VERSION,
                "methods": sorted(self._server.agent_methods),
                "events": True,
            }
        }
        return result


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
        self.diagnostics = DiagnosticsStore()
        self.lsp_workspace: LspWorkspace | None = None
        self.root: Path | None = None
        self.config_data: Any = None
        self.app_ready: list[Callable[[AgentApp], None]] = []
        self.plain: PlainPath  # set by plain.register
        self._app: asyncio.Future[AgentApp] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()

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
            module = await asyncio.to_thread(importlib.import_module, "core.app")
            loader = await asyncio.to_thread(importlib.import_module, "core.config.loader")
            layers = []
            if self.config_data is not None:
                layers.append(loader.Layer(name="initializationOptions.config", data=self.config_data))
            app: AgentApp = await module.AgentApp.open(
                root, workspace=self.lsp_workspace, config_layers=layers
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
        """Close the agent (flushes the store); safe to call twice."""
        future, self._app = self._app, None
        if future is None or not future.done() or future.exception() is not None:
            return
        await future.result().close()

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


def _root(params: lsp.InitializeParams) -> Path | None:
    for uri in [f.uri for f in params.workspace_folders or []] + [params.root_uri or ""]:
        if uri and (path := path_of(uri)) is not None:
            return path
    return Path(params.root_path) if params.root_path else None


def _is_plugin(capabilities: lsp.ClientCapabilities) -> bool:
    experimental = capabilities.experimental
    return isinstance(experimental, dict) and isinstance(experimental.get("agent"), dict)


def build_server() -> AgentServer:
    """The server with every feature module registered."""
    from lsp_server import code_actions, dialogs, events, plain, sessions

    server = AgentServer()

    @server.feature(lsp.INITIALIZE)
    def initialize(params: lsp.InitializeParams) -> None:
        server.connection.plugin = _is_plugin(params.capabilities)
        server.connection.connected = True
        server.root = server.root or _root(params)
        options = params.initialization_options
        if isinstance(options, dict) and "config" in options:
            server.config_data = options["config"]

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
