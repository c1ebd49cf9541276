"""The chat's first reads answered before pygls is loaded (issue #44: a cold `:Agentls` shows the
newest session's last messages within 600 ms).

``handshake`` answers ``initialize`` from the first frame; importing pygls and lsprotocol then takes
most of a second of CPU (several on a loaded machine) before the full server reads anything. Meanwhile
this phase reads the client's frames itself (``frame_reader.Pump``): at ``initialized`` it opens the
project — store and config, exactly as the full server would (``core.open.open_project``, the same
config layers, the same trust rules) — and answers the session reads of ``session_reads.READS`` from
its store, with the same handlers the full server registers. Everything else is kept, in order, for
the full server, which takes over when it is built (``release``) together with the opened project
(``prepare``): every frame it did not answer reaches it in the order it came, the
``$/cancelRequest`` of a request answered here never does.

Only what succeeds is answered here. Invalid params, an unknown session, a config or store that does
not open, a project whose trust must be asked (a stock client: the full server asks), anything after
``shutdown``: the frame goes to the full server, which answers it as it always did, so an early
answer is always the one the full server would give.

pygls-free: nothing imported here (at module level) may import pygls or lsprotocol (a test says so).
"""

from __future__ import annotations

import asyncio
import importlib
import json
import logging
import os
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from pydantic import ValidationError
from pygls.uris import to_fs_path  # (pygls' URI module: standard library only)

from core.errors import AgentError
from core.open import open_project, session_reader
from lsp_server.clients import section
from lsp_server.frame_reader import Pump, open_stdin
from lsp_server.handshake import Early, frame, read_params, valid_id
from lsp_server.protocol import dump
from lsp_server.session_reads import READS

if TYPE_CHECKING:
    from core.api import Layer
    from core.project import OpenedProject
    from lsp_server.server import AgentServer

log = logging.getLogger(__name__)

# The names of the editor's config layers, as `agentls config --sources` and errors show them.
INIT_LAYER = "initializationOptions.config"
SETTINGS_LAYER = "workspace/configuration"


def root_of(params: dict[str, Any]) -> Path | None:
    """The project folder ``initialize`` params name: the first file:// workspace folder, else
    ``rootUri``, else ``rootPath`` (params as ``handshake.read_params`` accepted them)."""
    for uri in [f["uri"] for f in params.get("workspaceFolders") or []] + [params.get("rootUri") or ""]:
        if uri and uri.startswith("file:") and (fs_path := to_fs_path(uri)):
            # Lexical normalisation only: no file system calls on the event loop.
            return Path(os.path.abspath(fs_path))
    root_path = params.get("rootPath")
    return Path(root_path) if root_path else None


def config_layers(init_config: Any, settings_config: Any) -> list[Layer]:
    """The editor's config layers: ``initializationOptions.config``, then its settings (which win)."""
    from core.config.loader import Layer  # loaded with the project

    layers = []
    if init_config is not None:
        layers.append(Layer(name=INIT_LAYER, data=init_config))
    if settings_config is not None:
        layers.append(Layer(name=SETTINGS_LAYER, data=settings_config))
    return layers


class _Frame:
    """One frame from the client, and what this phase made of it."""

    __slots__ = ("answered", "body", "cancels", "method", "msg_id", "params")

    def __init__(self, body: bytes) -> None:
        self.body = body
        self.answered = False
        self.cancels: int | str | None = None  # a $/cancelRequest's target
        self.method = ""
        self.msg_id: int | str | None = None
        self.params: Any = None


def _decode(body: bytes) -> dict[str, Any] | None:
    try:
        message = json.loads(body)
    except (ValueError, RecursionError):
        return None  # the full server answers it (a parse error)
    return message if isinstance(message, dict) else None


class EarlyReads:
    """The phase between the early ``initialize`` answer and the full server (see the module)."""

    def __init__(self, early: Early, write: Callable[[bytes], None]) -> None:
        assert early.body is not None  # only after an answered initialize
        params = read_params(json.loads(early.body)["params"])[0]
        self.root = root_of(params)
        options = params.get("initializationOptions")
        self._options: dict[str, Any] = options if isinstance(options, dict) else {}
        self._write = write
        self.settings_config: Any = None  # the latest didChangeConfiguration's agentls.config
        self.applied_config: Any = None  # the one the project opened with
        self.project: asyncio.Task[OpenedProject | None] | None = None
        self.ended: tuple[str, int] | None = None  # the end of the stream, for the full server
        self.pump: Pump | None = None
        self.task: asyncio.Task[None] | None = None
        self._frames: list[_Frame] = []
        self._queue: deque[_Frame] = deque()  # reads to answer, in order
        self._answered: set[int | str] = set()
        self._wake = asyncio.Event()
        self._closed = False  # shutdown, exit or the hand-over: nothing more is answered here
        self._reading = False  # a read is being answered from the store
        self._worker: asyncio.Task[None] | None = None

    async def start(self, stdin: BinaryIO, pending: bytes) -> None:
        """Read the client's frames (``pending``: read already) and answer the reads among them."""
        self.pump = Pump(await open_stdin(stdin, pending), self.take, self.end)
        self.task = asyncio.create_task(self.pump.run(), name="agentls-stdin")
        self._worker = asyncio.create_task(self._work(), name="agentls-early-reads")

    async def opened(self) -> None:
        """Until the project has opened (or failed), when ``initialized`` came first; at once when
        the stream ends or something else came first."""
        while self.project is None and not self._closed and self.ended is None and not self._frames:
            self._wake.clear()
            await self._wake.wait()
        if self.project is not None:
            await asyncio.wait([self.project])

    def end(self, reason: str, code: int) -> None:
        """The stream ended: the full server stops with this when it takes over (after every
        frame before it was handled)."""
        log.info("the client's stream ended before the server was loaded: %s", reason)
        self.ended = (reason, code)
        self._wake.set()

    def take(self, body: bytes) -> None:
        """One frame from the client, in order: kept for the full server, or queued to answer."""
        entry = _Frame(body)
        self._frames.append(entry)
        self._wake.set()
        message = _decode(body)
        if message is None:
            return
        method, params = message.get("method"), message.get("params")
        if "id" not in message:  # a notification
            if method == "initialized":
                self._open()
            elif method == "workspace/didChangeConfiguration" and isinstance(params, dict):
                ours = section(params.get("settings"))  # as AgentServer.apply_settings reads it
                if ours is not None:
                    self.settings_config = ours.get("config")
            elif method == "exit":
                self._close()
            elif method == "$/cancelRequest" and isinstance(params, dict) and valid_id(params.get("id")):
                entry.cancels = params["id"]
                # A read not begun is left to the full server, and its cancel with it.
                self._queue = deque(e for e in self._queue if e.msg_id != entry.cancels)
            return
        if method == "shutdown":
            self._close()
        if (
            isinstance(method, str)
            and method in READS
            and message.get("jsonrpc") == "2.0"
            and valid_id(message["id"])
            and self.project is not None
            and not self._closed
        ):
            entry.method, entry.msg_id, entry.params = method, message["id"], params
            self._queue.append(entry)
            self._wake.set()

    def _close(self) -> None:
        self._closed = True
        self._queue.clear()

    def _open(self) -> None:
        if self.project is None and not self._closed:
            self.project = asyncio.ensure_future(self._open_project())

    async def _open_project(self) -> OpenedProject | None:
        """The project as the full server's ``start_app`` opens it; None when the full server must
        open it itself (a trust question to ask)."""
        root = self.root or Path.cwd()
        await asyncio.to_thread(importlib.import_module, "core.config.loader")
        if "untrusted" in self._options:  # the plugin asked the user itself
            if self._options.get("untrusted", False) is not False:
                from core.trust import distrust

                distrust(root)  # as the full server's initialize does, before the project opens
        else:
            try:
                question = await asyncio.to_thread(_trust_question, root)
            except Exception:
                log.info("the trust question could not be read early; the server asks", exc_info=True)
                return None
            if question:
                return None  # the full server asks the user first (trust_dialog)
        self.applied_config = self.settings_config
        init_config = self._options.get("config")
        return await open_project(root, config_layers(init_config, self.applied_config))

    async def _work(self) -> None:
        while not self._closed:
            if not self._queue:
                self._wake.clear()
                await self._wake.wait()
                continue
            entry = self._queue.popleft()
            answer = await self._answer(entry)
            if answer is not None:
                self._write(frame({"id": entry.msg_id, "jsonrpc": "2.0", "result": answer}))
                entry.answered = True
                assert entry.msg_id is not None
                self._answered.add(entry.msg_id)
                log.info("%s %s answered before the server was loaded", entry.method, entry.msg_id)

    async def _answer(self, entry: _Frame) -> Any:
        """The result the full server gives for ``entry``, or None to leave it to the full server."""
        assert self.project is not None
        await asyncio.wait([self.project])  # (a wait that never cancels the opening itself)
        if self.project.cancelled() or self.project.exception() is not None:
            return None  # the full server reports it, for every request (a bad config)
        opened = self.project.result()
        params = {} if entry.params is None else entry.params
        if opened is None or not isinstance(params, dict):
            return None
        model, read = READS[entry.method]
        try:
            parsed = model.model_validate(params)
        except ValidationError:
            return None  # the full server names the field
        self._reading = True
        try:
            return dump(await read(session_reader(opened), parsed))
        except AgentError:
            return None  # (an unknown session) the full server maps it to its JSON-RPC error
        except Exception:
            log.exception("%s could not be answered early; the server answers it", entry.method)
            return None
        finally:
            self._reading = False

    async def stop(self) -> None:
        """Answer nothing more: a read under way is finished (and its answer written), one still
        waiting for the project goes to the full server."""
        self._close()
        worker = self._worker
        if worker is None:
            return
        self._wake.set()
        if not self._reading:
            worker.cancel()
        await asyncio.wait([worker])

    def prepare(self, server: AgentServer) -> None:
        """Give the full server the project opened here (before ``initialized`` reaches it)."""
        server.root = server.root or self.root
        if self.project is not None:
            server.adopt_project(self.project, self.applied_config)

    def release(self) -> tuple[list[bytes], tuple[str, int] | None]:
        """The frames for the full server, in order, and the end of the stream if it came; this
        phase takes no more frames (the caller points the pump elsewhere at once)."""
        self._close()
        frames = [
            f.body
            for f in self._frames
            if not f.answered and (f.cancels is None or f.cancels not in self._answered)
        ]
        self._frames.clear()
        return frames, self.ended


def _trust_question(root: Path) -> bool:
    from core.project_trust import question_for

    return question_for(root) is not None
