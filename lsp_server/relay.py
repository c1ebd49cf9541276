"""``agentls serve`` attached (``AGENTLS_HOST=auto|attach|tcp://…``): a byte relay between the
editor's stdio and an LSP session in the host (lsp_server/hosted.py, host/relays.py).

Standard library only, besides agentls's own modules that are too (``core.remote.launch``,
``.place``, ``.tcp``, ``.wire``, ``core.config.paths``): pygls, lsprotocol, pydantic and the
agent are paid once, by the host, for every editor. tests/host/test_relay.py checks what a relay
has loaded.

It decides before reading anything from the editor: when no host can be used (none runs in
``attach`` mode, one that will not start, another protocol, version or environment, a TCP host
that cannot be reached or refuses the token), ``attach`` returns None and ``agentls serve`` runs
the server in its own process as before (it tries the host again and says why it runs
in-process). Once attached it pipes both ways and watches its parent (the editor): when the
editor goes, the relay closes its connection and exits; the host closes that session and its
turns go on. When the host dies, every request of the editor still unanswered is answered with
an error naming the host's death, the editor is told once (``window/showMessage``) and the relay
exits 1, so the editor starts a new server.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from core import __version__
from core.errors import AgentError
from core.remote.launch import AttachError, start_host
from core.remote.place import environment_digest, socket_path
from core.remote.tcp import TcpHost, client_token, parse_tcp_host
from core.remote.wire import HOST_REPLACED, MAX_FRAME, PROTOCOL, encode

log = logging.getLogger(__name__)

CLOSED = "$/agentls/relayClosed"  # the session's last word before the host closes it: {reason, here?}
UNTRUSTED = "the editor has not trusted the project"  # with ``here: false``: serve it in the relay's process
HOST_DIED = -32099  # the error a request still unanswered when the host died gets (LSP's server range)
HELLO_TIMEOUT_S = 30.0


def host_mode() -> str | None:
    """``AGENTLS_HOST`` when it asks for a host (``auto``, ``attach``, ``tcp://…``), else None."""
    mode = os.environ.get("AGENTLS_HOST", "").strip().lower()
    return mode if mode in ("auto", "attach") or mode.startswith("tcp://") else None


class Attached:
    """A connection to the host whose hello was answered: from here on it carries raw bytes."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, host_pid: int) -> None:
        self.reader = reader
        self.writer = writer
        self.host_pid = host_pid


async def attach(kind: str, mode: str, data_dir: Path, client: str) -> Attached:
    """The host's connection for a ``kind`` session (``lsp``); AttachError says why no host can
    be used. ``auto`` starts one when none runs (or one replaced by an upgrade)."""
    tcp = None
    try:
        if mode.startswith("tcp://"):
            tcp = parse_tcp_host(mode)
        try:
            return await _hello(kind, data_dir, client, tcp)
        except _NoHost as exc:
            if mode != "auto":
                raise AttachError(str(exc)) from None
            await start_host(data_dir, wait_for_lock=exc.exiting)
        except _Replaced as exc:
            if mode != "auto" or "stops now" not in str(exc):
                raise AttachError(str(exc)) from None
            await start_host(data_dir, wait_for_lock=True)
        return await _hello(kind, data_dir, client, tcp)
    except AttachError:
        raise
    except (AgentError, OSError) as exc:  # ConfigError (a bad address or token), _NoHost, no route
        raise AttachError(str(exc) or type(exc).__name__) from None


class _NoHost(AgentError):
    def __init__(self, message: str, exiting: bool = False) -> None:
        super().__init__(message)
        self.exiting = exiting  # it closed during the hello: a host that stops


class _Replaced(AgentError):
    pass


async def _hello(kind: str, data_dir: Path, client: str, tcp: TcpHost | None) -> Attached:
    params: dict[str, Any] = {"protocol": PROTOCOL, "version": __version__, "client": client}
    if tcp is None:
        try:
            reader, writer = await asyncio.open_unix_connection(socket_path(data_dir), limit=MAX_FRAME)
        except (FileNotFoundError, ConnectionRefusedError) as exc:
            raise _NoHost(f"no host runs on {data_dir} ({exc.strerror})") from None
        params["environment"] = environment_digest()
    else:
        params["token"] = client_token()
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection(tcp.host, tcp.port, limit=MAX_FRAME), HELLO_TIMEOUT_S
        )
    params.update(pid=os.getpid(), relay={"kind": kind, "editorPid": os.getppid(), "cwd": os.getcwd()})
    writer.write(encode({"jsonrpc": "2.0", "id": 1, "method": "hello", "params": params}))
    try:
        line = await asyncio.wait_for(reader.readline(), HELLO_TIMEOUT_S)
        answer = json.loads(line) if line else None
    except ConnectionError as exc:  # a host dying as it was reached (its socket still accepted)
        writer.close()
        if tcp is not None:
            raise AttachError(f"the host at {tcp} closed the connection during the hello ({exc})") from None
        raise _NoHost(f"the host went away during the hello ({exc})", exiting=True) from None
    except (TimeoutError, ValueError) as exc:
        writer.close()
        raise AttachError(f"the host did not answer its hello: {exc or 'timed out'}") from None
    if answer is None:
        writer.close()
        if tcp is not None:
            raise AttachError(f"the host at {tcp} closed the connection during the hello")
        raise _NoHost("the host went away during the hello", exiting=True)
    error = answer.get("error") if isinstance(answer, dict) else None
    if error is not None or not isinstance(answer.get("result"), dict):
        writer.close()
        where = f"the host at {tcp}: " if tcp is not None else ""
        message = where + str((error or {}).get("message", "a hello answer without a result"))
        raise (_Replaced if (error or {}).get("code") == HOST_REPLACED else AttachError)(message)
    return Attached(reader, writer, int(answer["result"].get("pid") or 0))


class Frames:
    """LSP frames read off a byte stream as they arrive."""

    def __init__(self) -> None:
        self.buffer = b""  # what follows the last whole frame

    def feed(self, data: bytes) -> list[bytes]:
        """The bodies of the frames ``data`` completes; FramingError-free: a header without a
        readable Content-Length is handed on whole (``broken``) for the other end to refuse."""
        self.buffer += data
        bodies = []
        while (end := self.buffer.find(b"\r\n\r\n")) >= 0:
            length = None
            for line in self.buffer[:end].split(b"\r\n"):
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length" and value.strip().isdigit():
                    length = int(value)
            if length is None:
                raise Broken(self.buffer)
            if len(self.buffer) < end + 4 + length:
                break
            bodies.append(self.buffer[end + 4 : end + 4 + length])
            self.buffer = self.buffer[end + 4 + length :]
        return bodies


class Broken(Exception):
    """Bytes that are not an LSP frame (``data``: all of them, from the broken header on)."""

    def __init__(self, data: bytes) -> None:
        super().__init__(f"a frame header without a Content-Length ({data[:40]!r})")
        self.data = data


def frame(payload: dict[str, Any] | bytes) -> bytes:
    """``payload`` (or a body already encoded) as an LSP frame."""
    body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class Document:
    """An open document as the editor has it now."""

    def __init__(self, item: dict[str, Any]) -> None:
        self.item = dict(item)  # uri, languageId, version, text

    def change(self, params: dict[str, Any], encoding: str) -> None:
        """Apply a didChange: whole-text changes, or ranges in ``encoding``'s units."""
        version = (params.get("textDocument") or {}).get("version")
        if version is not None:
            self.item["version"] = version
        for change in params.get("contentChanges") or []:
            text = str(change.get("text", ""))
            if "range" not in change:
                self.item["text"] = text
                continue
            current = str(self.item["text"])
            start = offset(current, change["range"]["start"], encoding)
            end = offset(current, change["range"]["end"], encoding)
            self.item["text"] = current[:start] + text + current[end:]


def offset(text: str, position: dict[str, Any], encoding: str) -> int:
    """The index in ``text`` of an LSP position (``line``, ``character`` in ``encoding``'s units:
    UTF-16 code units by default); past a line's end is its end, past the last line the text's."""
    line, character = int(position.get("line", 0)), int(position.get("character", 0))
    index = 0
    for _ in range(line):
        newline = _next_line(text, index)
        if newline < 0:
            return len(text)
        index = newline
    end = _line_end(text, index)
    units = 0
    while index < end and units < character:
        char = text[index]
        units += _units(char, encoding)
        if units > character:
            break
        index += 1
    return index


def _units(char: str, encoding: str) -> int:
    if encoding == "utf-8":
        return len(char.encode())
    if encoding == "utf-32":
        return 1
    return 2 if ord(char) > 0xFFFF else 1


def _next_line(text: str, index: int) -> int:
    """Where the line after the one at ``index`` starts (LSP: \\n, \\r\\n or \\r end a line), or -1."""
    end = _line_end(text, index)
    if end >= len(text):
        return -1
    return end + 2 if text.startswith("\r\n", end) else end + 1


def _line_end(text: str, index: int) -> int:
    ends = [found for found in (text.find("\n", index), text.find("\r", index)) if found >= 0]
    return min(ends) if ends else len(text)


class Recorder:
    """What a new session needs to stand where the lost one stood: the editor's ``initialize``
    (and the answer it got), ``initialized``, its configuration and folder changes, the sessions
    its chats show, and every open document's current text."""

    def __init__(self) -> None:
        self.initialize: dict[str, Any] | None = None
        self.answer: dict[str, Any] | None = None
        self.initialized = False
        self.configuration: dict[str, Any] | None = None
        self.folders: list[dict[str, Any]] = []
        self.showing: dict[str, Any] | None = None
        self.documents: dict[str, Document] = {}

    @property
    def encoding(self) -> str:
        capabilities = (self.answer or {}).get("capabilities") or {}
        return str(capabilities.get("positionEncoding") or "utf-16")

    def editor_said(self, message: dict[str, Any]) -> None:
        """Note a message of the editor's."""
        method, params = message.get("method"), message.get("params")
        params = params if isinstance(params, dict) else {}
        if method == "initialize" and self.initialize is None:
            self.initialize = message
        elif method == "initialized":
            self.initialized = True
        elif method == "workspace/didChangeConfiguration":
            self.configuration = params
        elif method == "workspace/didChangeWorkspaceFolders":
            self.folders.append(params)
        elif method == "agent/session/show":
            self.showing = params
        elif method == "textDocument/didOpen":
            item = params.get("textDocument") or {}
            self.documents[str(item.get("uri"))] = Document(item)
        elif method == "textDocument/didChange":
            document = self.documents.get(str((params.get("textDocument") or {}).get("uri")))
            if document is not None:
                document.change(params, self.encoding)
        elif method == "textDocument/didClose":
            self.documents.pop(str((params.get("textDocument") or {}).get("uri")), None)

    def answered(self, message: dict[str, Any]) -> None:
        """Note an answer to the editor: its ``initialize``'s result."""
        if self.initialize is not None and self.answer is None and message.get("id") == self.initialize["id"]:
            self.answer = message.get("result")

    def after_initialize(self) -> list[bytes]:
        """The bodies that bring a new session to the editor's state, after its ``initialize``."""
        bodies: list[dict[str, Any]] = []
        if self.initialized:
            bodies.append({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        if self.configuration is not None:
            bodies.append(_note("workspace/didChangeConfiguration", self.configuration))
        bodies += [_note("workspace/didChangeWorkspaceFolders", change) for change in self.folders]
        for document in self.documents.values():
            bodies.append(_note("textDocument/didOpen", {"textDocument": document.item}))
        if self.showing is not None:
            bodies.append(_note("agent/session/show", self.showing))
        return [json.dumps(body).encode() for body in bodies]


def _note(method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": method, "params": params}


class Fallback:
    """No host could be reached after the host died: what the in-process server is handed (the
    editor's ``initialize`` and the answer it already has, then the frames that rebuild its state
    and whatever the editor sent meanwhile)."""

    def __init__(self, initialize: bytes, msg_id: Any, answer: dict[str, Any], pending: bytes) -> None:
        self.initialize = initialize
        self.msg_id = msg_id
        self.answer = answer
        self.pending = pending


class Unrelayed:
    """The host will not serve this editor (it has not trusted the project: trust is per process);
    what the editor sent so far, unanswered, for the server in the relay's own process."""

    def __init__(self, pending: bytes) -> None:
        self.pending = pending


Reconnect = Callable[[], Awaitable["Attached | str"]]  # a new connection, or why none
REPLAY_ID = "agentls-relay-replay"


class Relay:
    """Pipe the editor's stdio to the host's session and back until the editor goes; when the
    host dies, rebuild the session on a new host (or hand it to the in-process server)."""

    def __init__(self, attached: Attached, write_out: Callable[[bytes], None], reconnect: Reconnect) -> None:
        self.attached = attached
        self.write_out = write_out  # bytes → the editor's stdout
        self.reconnect = reconnect
        self.pending: dict[str, str] = {}  # the editor's requests the host has not answered: id → method
        self.asked: set[str] = set()  # the host's requests to the editor not answered yet
        self.dropped: set[str] = set()  # answers to a dead host's requests: never sent on
        self.swallow: set[str] = set()  # the replayed requests: their answers are not the editor's
        self.exiting = False  # the editor said ``exit``: the session's end is not the host's
        self.closed_by_host: str | None = None  # why, when the host closed the session (CLOSED)
        self.not_here = False  # the host said the session is not its to serve (CLOSED, here: false)
        self.unanswered: list[bytes] | None = []  # the editor's frames until its initialize is answered
        self.recorder = Recorder()
        self.held: list[bytes] | None = None  # the editor's frames while a new host is found
        self._from_editor = Frames()
        self._from_host = Frames()
        self._stdin_ended = asyncio.Event()

    async def run(self, stdin_fd: int, editor_gone: asyncio.Event) -> int | Fallback | Unrelayed:
        """0 when the editor went (or closed stdin); 1 when the host closed the session (it
        could not read the editor's bytes); a Fallback when the host died and none is left; an
        Unrelayed when the host will not serve this editor before answering it."""
        loop = asyncio.get_running_loop()
        os.set_blocking(stdin_fd, False)
        loop.add_reader(stdin_fd, self._read_stdin, stdin_fd)
        try:
            while True:
                outcome = await self._until_an_end(editor_gone)
                if outcome is not None:
                    return outcome
                result = await self._host_lost()
                if result is not None:
                    return result
        finally:
            loop.remove_reader(stdin_fd)
            os.set_blocking(stdin_fd, True)

    async def _until_an_end(self, editor_gone: asyncio.Event) -> int | Unrelayed | None:
        """0 or 1 to exit, an Unrelayed to serve here; None when the host died."""
        to_editor = asyncio.ensure_future(self._host_to_editor())
        gone = asyncio.ensure_future(editor_gone.wait())
        ended = asyncio.ensure_future(self._stdin_ended.wait())
        done, _ = await asyncio.wait([to_editor, gone, ended], return_when=asyncio.FIRST_COMPLETED)
        for task in (to_editor, gone, ended):
            task.cancel()
        if gone in done or ended in done or self.exiting:
            with contextlib.suppress(OSError, RuntimeError):
                self.attached.writer.close()
            return 0
        if self.not_here and self.unanswered is not None:  # nothing answered: start over here
            with contextlib.suppress(OSError, RuntimeError):
                self.attached.writer.close()
            return Unrelayed(b"".join(frame(body) for body in self.unanswered) + self._from_editor.buffer)
        if self.closed_by_host is not None:
            self._closed(self.closed_by_host)
            return 1
        return None

    def _closed(self, why: str) -> None:
        """The host closed this session (it could not read the editor's bytes): say so, exit 1."""
        self._tell_pending("closed this session")
        self._show(
            1,
            f"agentls: the agent host (pid {self.attached.host_pid}) closed this session ({why}); "
            "restart the language server to go on",
        )

    def _read_stdin(self, fd: int) -> None:
        try:
            data = os.read(fd, 65536)
        except BlockingIOError:
            return
        if not data:
            asyncio.get_running_loop().remove_reader(fd)
            self._stdin_ended.set()
            return
        try:
            bodies = self._from_editor.feed(data)
        except Broken as broken:  # the session refuses it (and closes): the host is the judge
            self._from_editor.buffer = b""
            self._send_raw(broken.data)
            return
        for body in bodies:
            self._from_editor_body(body)

    def _from_editor_body(self, body: bytes) -> None:
        message = _loads(body)
        if message is not None:
            if message.get("method") == "exit":
                self.exiting = True
            elif "method" in message and "id" in message:
                self.pending[_key(message["id"])] = str(message["method"])
            elif "method" not in message and _key(message.get("id")) in self.dropped:
                self.dropped.discard(_key(message.get("id")))
                return  # the answer to a request of a dead host
            elif "method" not in message:
                self.asked.discard(_key(message.get("id")))
            self.recorder.editor_said(message)
        if self.unanswered is not None:
            self.unanswered.append(body)
        if self.held is not None:
            self.held.append(body)
        else:
            self._send_raw(frame(body))

    def _send_raw(self, data: bytes) -> None:
        with contextlib.suppress(OSError, RuntimeError):
            self.attached.writer.write(data)

    async def _host_to_editor(self) -> None:
        reader = self.attached.reader
        with contextlib.suppress(ConnectionError):
            while data := await reader.read(65536):
                for body in self._from_host.feed(data):
                    self._from_host_body(body)

    def _from_host_body(self, body: bytes) -> None:
        message = _loads(body)
        if message is not None and message.get("method") == CLOSED:
            params = message.get("params") or {}
            self.closed_by_host = str(params.get("reason", "no reason given"))
            self.not_here = params.get("here") is False
            return
        if message is not None and "method" not in message:
            key = _key(message.get("id"))
            if key in self.swallow:
                self.swallow.discard(key)
                return
            self.pending.pop(key, None)
            self.recorder.answered(message)
            if self.recorder.answer is not None:
                self.unanswered = None
        elif message is not None and "id" in message:
            self.asked.add(_key(message["id"]))
        self.write_out(frame(body))

    def _tell_pending(self, ended: str) -> None:
        pid = self.attached.host_pid
        for key, method in list(self.pending.items()):
            error = {"code": HOST_DIED, "message": f"the agent host (pid {pid}) {ended} during {method}"}
            self.write_out(frame({"jsonrpc": "2.0", "id": json.loads(key), "error": error}))
        self.pending.clear()

    def _show(self, kind: int, text: str) -> None:
        self.write_out(frame(_note("window/showMessage", {"type": kind, "message": text})))

    async def _host_lost(self) -> Fallback | int | None:
        """The host died: answer what waits, say so once, and rebuild the session on a new host
        (None) or hand it to the in-process server (a Fallback)."""
        dead = self.attached.host_pid
        self._tell_pending("stopped")
        self.dropped |= self.asked  # the editor's late answers to it go nowhere
        self.asked.clear()
        self._from_host = Frames()
        self.held = []
        attached = await self.reconnect()
        if isinstance(attached, Attached) and attached.host_pid == dead:  # alive: its session failed
            attached.writer.close()
            self._closed("its session failed")
            return 1
        held, self.held = self.held, None
        recorder = self.recorder
        if isinstance(attached, str):
            self._show(
                2,
                f"agentls: the agent host (pid {dead}) stopped and no host can be reached ({attached}); "
                "the agent runs in this process now",
            )
            return self._fallback(held)
        self._show(
            2,
            f"agentls: the agent host (pid {dead}) stopped; attached to a new one (pid {attached.host_pid})",
        )
        self.attached = attached
        if recorder.initialize is not None:
            replayed = {**recorder.initialize, "id": REPLAY_ID}
            self.swallow.add(_key(REPLAY_ID))
            self._send_raw(frame(json.dumps(replayed).encode()))
            for body in recorder.after_initialize():
                self._send_raw(frame(body))
        for body in held:
            self._from_editor_body(body)
        return None

    def _fallback(self, held: list[bytes]) -> Fallback | int:
        recorder = self.recorder
        if recorder.initialize is None or recorder.answer is None:
            return 1  # nothing to rebuild from: the editor starts a new server
        rest = b"".join(frame(body) for body in recorder.after_initialize() + held)
        return Fallback(
            json.dumps(recorder.initialize).encode(),
            recorder.initialize["id"],
            recorder.answer,
            rest + self._from_editor.buffer,
        )


def _loads(body: bytes) -> dict[str, Any] | None:
    try:
        message = json.loads(body)
    except ValueError:
        return None
    return message if isinstance(message, dict) else None


def _key(msg_id: Any) -> str:
    return json.dumps(msg_id)


async def serve(kind: str, mode: str, client: str) -> int | Fallback | Unrelayed | None:
    """Attach and relay; None (nothing read from the editor) when no host can be used at start;
    a Fallback when the host died and no other could be reached; an Unrelayed when the host will
    not serve this editor (it has not trusted the project)."""
    from core.config.paths import data_dir

    data = data_dir()
    try:
        attached = await attach(kind, mode, data, client)
    except AttachError as exc:
        log.info("not relaying to the host: %s", exc)
        return None

    async def reconnect() -> Attached | str:
        if mode.startswith("tcp://"):
            return f"a host at {mode} is not started from this machine"
        try:
            return await attach(kind, mode, data, client)  # auto: a new host; attach: one running
        except AttachError as exc:
            return str(exc)

    loop = asyncio.get_running_loop()
    editor_gone = asyncio.Event()
    _watch_parent(loop, editor_gone)
    out = sys.stdout.buffer

    def write_out(data: bytes) -> None:
        out.write(data)
        out.flush()

    return await Relay(attached, write_out, reconnect).run(sys.stdin.fileno(), editor_gone)


def _watch_parent(loop: asyncio.AbstractEventLoop, gone: asyncio.Event) -> None:
    """Set ``gone`` when the editor (our parent) exits: its pidfd, else a poll of our parent."""
    parent = os.getppid()
    try:
        fd = os.pidfd_open(parent)
    except (AttributeError, OSError):
        fd = None
    if fd is not None:
        loop.add_reader(fd, gone.set)
        return

    async def poll() -> None:
        while os.getppid() == parent:
            await asyncio.sleep(1.0)
        gone.set()

    loop.create_task(poll())
