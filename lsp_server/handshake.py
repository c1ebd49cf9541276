"""``initialize`` answered before pygls and lsprotocol are imported (issue #14), by the same rules
the full server answers it with (issue 24). The methods it lists are ``lsp_server.wire_methods``,
which ``scripts/gen_protocol`` writes from the table the full server registers its handlers by.

Importing pygls builds lsprotocol's ~550 attrs classes, which takes most of a second on a busy
machine; an editor waits for the ``initialize`` answer before it does anything else. So ``agentls
serve`` on stdio reads the first frame itself: when it is an ``initialize`` request, the answer
below goes out at once, then the full server is built and handed the same request, and its own
answer to it is dropped (compared first: a difference is logged as the bug it is).

One source for both paths: ``read_params`` decides which params are accepted (the full server's
``AgentProtocol`` calls it too), and ``result`` is the answer both send; the full server checks
``CAPABILITIES`` against what pygls builds from the registered features (tests/lsp/test_handshake.py
runs that check for every client profile and odd shape).

Only the standard library is imported here.
"""

from __future__ import annotations

import json
import logging
import os
from typing import Any, Protocol

from core import __version__
from lsp_server import wire_methods
from lsp_server.editor_process import EditorProcess
from lsp_server.framing import FramingError, Headers

log = logging.getLogger(__name__)

# The full server's answer minus positionEncoding (see ``result``); the order is pygls'.
CAPABILITIES: dict[str, Any] = {
    "textDocumentSync": {"openClose": True, "change": 1, "save": True},
    "codeActionProvider": {"codeActionKinds": ["quickfix", ""]},
    "codeLensProvider": {"resolveProvider": False},
    "executeCommandProvider": {
        "commands": [
            "agentls.nextEditApplied",
            "agentls.prompt",
            "agentls.abort",
            "agentls.newSession",
            "agentls.compact",
            "agentls.review",
            "agentls.keep",
            "agentls.undo",
            "agentls.mode",
            "agentls.effort",
            "agentls.fix",
            "agentls.explain",
            "agentls.fixFinding",
            "agentls.dismissFinding",
            "agentls.codeReview",
        ]
    },
    "workspace": {"workspaceFolders": {"supported": True, "changeNotifications": True}, "fileOperations": {}},
    "experimental": {
        "agent": {
            "version": wire_methods.VERSION,
            "methods": list(wire_methods.METHODS),
            "events": True,
        }
    },
}
# Announced only when initializationOptions.nextEdits is true (see ``result``).
INLINE_COMPLETION = "inlineCompletionProvider"
# pygls' choice: the client's first listed encoding that it supports, else UTF-16.
_ENCODINGS = ("utf-8", "utf-16", "utf-32")
_MAX_HEADER = 8192
_MAX_BODY = 16 * 1024 * 1024


def position_encoding(params: dict[str, Any]) -> str:
    """The position encoding pygls picks for a client's ``initialize`` params."""
    general = params["capabilities"].get("general")
    offered = general.get("positionEncodings") if isinstance(general, dict) else None
    for encoding in offered if isinstance(offered, list) else []:
        if encoding in _ENCODINGS:
            return str(encoding)
    return "utf-16"


def _field(value: Any, *path: str) -> Any:
    for name in path:
        value = value.get(name) if isinstance(value, dict) else None
    return value


def result(params: dict[str, Any], process_id: int | None = None) -> dict[str, Any]:
    """The ``InitializeResult`` the full server gives for these params, as JSON; ``process_id``:
    the process the editor talks to, when not this one (a relay's, lsp_server/hosted.py)."""
    capabilities = {"positionEncoding": position_encoding(params), **CAPABILITIES}
    # pygls says "no" to willSave(WaitUntil) (no handler here) when the client names them at all.
    sync = _field(params, "capabilities", "textDocument", "synchronization")
    named = {key: False for key in ("willSave", "willSaveWaitUntil") if _field(sync, key) is not None}
    if named:
        capabilities["textDocumentSync"] = {**capabilities["textDocumentSync"], **named}
    # Next edits (lsp_server/next_edits.py) cost nothing unless asked for: no capability either.
    if _field(params, "initializationOptions", "nextEdits") is True:
        capabilities[INLINE_COMPLETION] = {}
    # The server's own process id: a client that starts it through a wrapper (or a library that keeps
    # the child to itself) still knows which process answers.
    agent = {**CAPABILITIES["experimental"]["agent"], "processId": process_id or os.getpid()}
    capabilities["experimental"] = {"agent": agent}
    return {"capabilities": capabilities, "serverInfo": {"name": "agentls", "version": __version__}}


class Refused(ValueError):
    """``initialize`` params the server cannot work with; the message names the field."""


# The largest process id a pid_t holds; anything else is not a process to watch.
PID_MAX = 2**31 - 1
_TRACE = (None, "off", "messages", "verbose")
_STRINGS = ("rootUri", "rootPath", "locale")


def read_params(params: Any) -> tuple[dict[str, Any], list[str]]:
    """``initialize`` params as both the early answer and the full server read them, and what in
    them is ignored (to log); ``Refused`` when a field the server uses has the wrong shape.

    This one function decides for both paths, so they cannot disagree about what is accepted.
    What the capabilities hold is not checked here: the full server ignores what lsprotocol cannot
    read in them (a newer client's enum value, a wrong type) rather than refusing the editor.
    """
    if not isinstance(params, dict):
        raise Refused("params: must be an object")
    if not isinstance(params.get("capabilities"), dict):
        raise Refused("capabilities: must be an object")
    for name in _STRINGS:
        if not isinstance(params.get(name), str | None):
            raise Refused(f"{name}: must be a string or null")
    folders = params.get("workspaceFolders")
    if folders is not None and not (
        isinstance(folders, list) and all(isinstance(f, dict) and _strings(f, "uri", "name") for f in folders)
    ):
        raise Refused("workspaceFolders: must be null or a list of {uri: string, name: string}")
    info = params.get("clientInfo")
    if info is not None and not (
        isinstance(info, dict) and _strings(info, "name") and isinstance(info.get("version"), str | None)
    ):
        raise Refused("clientInfo: must be null or {name: string, version?: string}")
    if params.get("trace") not in _TRACE:
        raise Refused('trace: must be "off", "messages" or "verbose"')
    notes = []
    pid = params.get("processId")
    if pid is not None and not (isinstance(pid, int) and not isinstance(pid, bool) and 0 < pid <= PID_MAX):
        notes.append(f"processId {json.dumps(pid)[:40]} is ignored: not a process id")
        pid = None
    return {**params, "processId": pid}, notes


def _strings(value: dict[str, Any], *names: str) -> bool:
    return all(isinstance(value.get(name), str) for name in names)


def valid_id(value: Any) -> bool:
    """Whether ``value`` may be a request id: a string or an integer (JSON-RPC: numbers without a
    fractional part), not a bool."""
    return isinstance(value, str | int) and not isinstance(value, bool)


def answerable(message: Any) -> bool:
    """Whether ``message`` is an ``initialize`` request the full server accepts (see ``read_params``).

    Anything else (another method, a bad id, a TCP reconnect) is left to the full server, which
    answers it (or rejects it) itself, just later.
    """
    if (
        not isinstance(message, dict)
        or message.get("jsonrpc") != "2.0"
        or message.get("method") != "initialize"
        or not valid_id(message.get("id"))
    ):
        return False
    try:
        read_params(message.get("params"))
    except Refused:
        return False
    return True


def frame(payload: dict[str, Any]) -> bytes:
    """``payload`` framed as pygls frames it."""
    body = json.dumps(payload).encode("utf-8")
    head = b"Content-Length: %d\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n" % len(
        body
    )
    return head + body


class Early:
    """What the early read took from stdin, and the answer it gave (if any).

    (A plain class: ``dataclasses`` imports ``inspect``, ~10 ms before the answer.)
    """

    def __init__(
        self,
        pending: bytes,
        body: bytes | None = None,
        msg_id: int | str | None = None,
        answer: dict[str, Any] | None = None,
    ) -> None:
        self.pending = pending  # read past the first frame (everything read, when nothing was answered)
        self.body = body  # the answered ``initialize`` frame's body, for the full server
        self.msg_id = msg_id
        self.answer = answer


def read_first_frame(fd: int) -> tuple[bytes | None, bytes, int]:
    """The first frame's body from ``fd`` (None if the stream does not start with a sane one), every
    byte read (so that nothing is lost for the full server's reader) and where the frame ends."""
    data, start, headers = b"", 0, Headers()
    while True:  # header lines by the rule the full server's reader applies (framing.Headers)
        if start > _MAX_HEADER:  # header lines without end: the full server's reader takes over
            return None, data, 0
        if (newline := data.find(b"\n", start)) < 0:
            if len(data) > _MAX_HEADER or not (chunk := os.read(fd, 65536)):
                return None, data, 0
            data += chunk
            continue
        try:
            ended = headers.feed(data[start : newline + 1])
        except FramingError:
            return None, data, 0  # the full server reads the same bytes and stops with the reason
        start = newline + 1
        if ended:
            break
    length = headers.length
    if length is None or length > _MAX_BODY:
        return None, data, 0
    while len(data) < start + length:
        if not (chunk := os.read(fd, max(65536, start + length - len(data)))):
            return None, data, 0
        data += chunk
    return data[start : start + length], data, start + length


def answer_early(fd: int, write: Any, editor: EditorProcess | None = None) -> Early:
    """Read the first frame from ``fd``; answer it with ``write(bytes)`` when it is a plain
    ``initialize``, pinning the ``processId`` it names in ``editor`` at once (the full server's
    handler runs only after pygls is imported). Never raises for what the client sent: the full
    server deals with that."""
    body, data, end = read_first_frame(fd)
    if body is None:
        return Early(pending=data)
    try:
        message = json.loads(body)
    except ValueError:
        return Early(pending=data)
    if not answerable(message):
        return Early(pending=data)
    params = read_params(message["params"])[0]
    if editor is not None and params["processId"] is not None:
        editor.pin(params["processId"])
    answer = result(params)
    write(frame({"id": message["id"], "jsonrpc": "2.0", "result": answer}))
    return Early(pending=data[end:], body=body, msg_id=message["id"], answer=answer)


class _Writer(Protocol):
    def write(self, data: bytes) -> None: ...

    def close(self) -> Any: ...


class AnsweredWriter:
    """pygls' writer, minus the full server's answer to the ``initialize`` already answered."""

    def __init__(self, inner: _Writer, early: Early) -> None:
        self._inner = inner
        self._early: Early | None = early

    def write(self, data: bytes) -> None:
        """Write ``data``, unless it is the answer already sent (which is then checked)."""
        early = self._early
        if early is not None:
            message = json.loads(data[data.index(b"\r\n\r\n") + 4 :])
            if "method" not in message and message.get("id") == early.msg_id:
                self._early = None
                if message.get("result") != early.answer:
                    log.error(
                        "initialize was answered early with %s, but the server answers %s",
                        json.dumps(early.answer),
                        json.dumps(message.get("result", message.get("error"))),
                    )
                return
        self._inner.write(data)

    def close(self) -> Any:
        """Close the underlying writer."""
        return self._inner.close()
