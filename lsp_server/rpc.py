"""The JSON-RPC layer under the server: every request answered, one log line per bad message.

pygls' protocol is kept, with four changes a real editor needs:
- a message whose params do not fit the method is answered with InvalidParams (pygls raised while
  decoding and never answered), and a body that is not JSON with ParseError;
- errors the client caused are logged in one line at INFO, not as a traceback at ERROR;
- ``workspace/executeCommand`` runs the command in the request's own task, so ``$/cancelRequest``
  stops it (pygls ran it as a second task that a cancel never reached);
- ``exit`` asks the server's lifetime to stop instead of raising SystemExit inside a handler.

pygls has no supported hook for these, so private members of its protocol are overridden and
called; pyproject.toml pins pygls' minor version and tests/lsp/test_pygls_pin.py names each one.
"""

from __future__ import annotations

import asyncio
import copy
import inspect
import json
import logging
import re
import sys
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any

import cattrs
from cattrs.errors import ClassValidationError
from lsprotocol import types as lsp
from lsprotocol.types import ResponseErrorMessage
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInternalError,
    JsonRpcInvalidParams,
    JsonRpcInvalidRequest,
    JsonRpcParseError,
    JsonRpcRequestCancelled,
)
from pygls.protocol import LanguageServerProtocol, lsp_method
from pygls.protocol.json_rpc import (
    JsonRPCNotification,
    JsonRPCRequestMessage,
    JsonRPCResponseMessage,
)
from pygls.protocol.language_server import _prepare_command_arguments

from lsp_server import handshake

if TYPE_CHECKING:
    from lsp_server.server import AgentServer

log = logging.getLogger(__name__)


class MalformedMessage(Exception):
    """A JSON message that does not fit its method; carries the JSON-RPC error to answer with."""

    def __init__(self, error: JsonRpcException) -> None:
        super().__init__(error.message)
        self.error = error


class AgentProtocol(LanguageServerProtocol):
    """pygls' protocol, answering ``initialize`` from ``handshake`` and with the changes above."""

    _server: AgentServer
    # The initialize params as ``handshake.read_params`` gave them, for the answer.
    initialize_json: dict[str, Any] | None = None
    shut_down = False  # ``shutdown`` was answered: only ``exit`` is accepted now

    @lsp_method(lsp.INITIALIZE)
    def lsp_initialize(self, params: lsp.InitializeParams) -> Any:
        """The answer ``handshake.result`` gives (the early path's too), checked against pygls'."""
        built = yield from super().lsp_initialize(params)
        answer = handshake.result(self.initialize_json or {"capabilities": {}}, self._server.relay_pid)
        pygls_view = self._converter.unstructure(built.capabilities)
        pygls_view["experimental"] = {"agent": self._server.agent_capability()}
        if handshake.INLINE_COMPLETION not in answer["capabilities"]:  # next edits are off
            pygls_view.pop(handshake.INLINE_COMPLETION, None)
        if pygls_view != answer["capabilities"]:
            # A feature registered without its capability in handshake.CAPABILITIES (or the reverse).
            log.error(
                "lsp_server/handshake.py CAPABILITIES differ from the registered features: %s",
                json.dumps(pygls_view),
            )
        return answer

    @lsp_method(lsp.SHUTDOWN)
    def lsp_shutdown(self, *args: Any) -> Any:
        """pygls' shutdown, remembered so that later requests are answered InvalidRequest.

        Remembered when it arrives, not when it is answered: a client may send ``exit`` before the
        answer (closing the agent takes a moment), and that exit still follows a shutdown."""
        self.shut_down = True
        yield from super().lsp_shutdown(*args)

    @lsp_method(lsp.WORKSPACE_EXECUTE_COMMAND)
    async def lsp_workspace__execute_command(self, params: lsp.ExecuteCommandParams) -> Any:  # type: ignore[override]
        handler = self.fm.commands.get(params.command)
        if handler is None:
            raise JsonRpcInvalidParams(message=f"invalid params: command: no command {params.command!r}")
        try:
            args, kwargs = _prepare_command_arguments(handler, params, self._converter)
        except Exception as exc:
            raise JsonRpcInvalidParams(message=f"invalid params: arguments: {exc}") from exc
        result = handler(*args, **kwargs)
        return await result if inspect.isawaitable(result) else result

    @lsp_method(lsp.EXIT)
    def lsp_exit(self, *args: Any) -> None:  # type: ignore[override]
        code = 0 if self.shut_down else 1  # LSP: exit without shutdown is an error exit
        self._server.lifetime.stop("the client sent exit", code)

    def structure_message(self, data: dict[str, Any]) -> Any:
        """Decode one JSON object into its message type; MalformedMessage names what is wrong."""
        if "jsonrpc" not in data:
            return data  # a nested object: the message itself is structured by its own call
        if "id" in data and data["id"] is not None and not handshake.valid_id(data["id"]):
            raise MalformedMessage(
                JsonRpcInvalidRequest(message="invalid request: id must be a string or an integer")
            )
        if data["jsonrpc"] != "2.0":
            raise MalformedMessage(JsonRpcInvalidRequest(message='invalid request: jsonrpc must be "2.0"'))
        method = data.get("method")
        if self.shut_down and method is not None and method != lsp.EXIT:
            # LSP: after shutdown, requests are answered InvalidRequest (pygls dropped them unanswered).
            message = f"invalid request: {method} after shutdown (only exit is accepted)"
            raise MalformedMessage(JsonRpcInvalidRequest(message=message))
        if "method" in data and "params" not in data:
            data = {**data, "params": None}  # JSON-RPC allows leaving params out
        if method == lsp.INITIALIZE and "id" in data:
            return self._structure_initialize(data)
        try:
            if "id" in data and "method" in data:
                kind = self.get_message_type(data["method"]) or JsonRPCRequestMessage
            elif "id" in data and "error" in data:
                kind = ResponseErrorMessage
            elif "id" in data:
                kind = self._result_types.pop(data["id"], None) or JsonRPCResponseMessage
            else:
                kind = self.get_message_type(data.get("method", "")) or JsonRPCNotification
            return self._converter.structure(data, kind)
        except Exception as exc:
            raise MalformedMessage(
                JsonRpcInvalidParams(message=f"invalid params: {_first_line(exc)}")
            ) from exc

    def _structure_initialize(self, data: dict[str, Any]) -> Any:
        """``initialize``: accepted exactly when ``handshake.read_params`` accepts it (as the early
        answer is); what lsprotocol cannot read in the capabilities is ignored, with a log line."""
        try:
            params, notes = handshake.read_params(data["params"])
        except handshake.Refused as exc:
            raise MalformedMessage(JsonRpcInvalidParams(message=f"invalid params: {exc}")) from exc
        for note in notes:
            log.info("initialize: %s", note)
        data = {**data, "params": params}
        for _ in range(_MAX_PRUNES):
            try:
                message = self._converter.structure(data, lsp.InitializeRequest)
            except ClassValidationError as exc:
                data = _without_unreadable(data, exc)
                continue
            self.initialize_json = data["params"]
            return message
        raise MalformedMessage(JsonRpcInvalidParams(message="invalid params: capabilities could not be read"))

    def _handle_request(self, msg_id: Any, method_name: str, params: Any) -> None:
        try:
            handler = self._get_handler(method_name)
        except JsonRpcException as error:
            log.info("request %s: unknown method %r", msg_id, method_name)
            self._send_response(msg_id, None, error.to_response_error())
            return
        self._ctx_msg_id.set(msg_id)
        try:
            self._execute_handler(msg_id, handler, self._send_handler_result_of(msg_id), (params,))
        except Exception as error:  # a synchronous handler raised before a future existed
            self._answer_error(msg_id, method_name, error)

    def _send_handler_result_of(self, msg_id: Any) -> Any:
        def done(future: Future[Any] | asyncio.Future[Any]) -> None:
            self._request_futures.pop(msg_id, None)
            if future.cancelled():
                error = JsonRpcRequestCancelled(message=f"request {msg_id} was cancelled")
                self._send_response(msg_id, error=error.to_response_error())
                return
            exc = future.exception()
            if exc is None:
                self._send_response(msg_id, result=future.result())
            else:
                self._answer_error(msg_id, None, exc)

        return done

    def _answer_error(self, msg_id: Any, method: str | None, error: BaseException) -> None:
        if isinstance(error, JsonRpcException):
            log.info("request %s%s failed: %s", msg_id, f" {method}" if method else "", error.message)
            self._send_response(msg_id, error=error.to_response_error())
            return
        # Not the client's fault: a bug worth a traceback, once.
        log.error("request %s failed", msg_id, exc_info=error)
        internal = JsonRpcInternalError(message=f"{type(error).__name__}: {error}")
        self._send_response(msg_id, error=internal.to_response_error())

    def _check_handler_result(self, future: Future[Any] | asyncio.Future[Any]) -> None:
        if future.cancelled() or (exc := future.exception()) is None:
            return
        if isinstance(exc, JsonRpcException):
            log.info("notification failed: %s", exc.message)
        else:
            log.error("notification handler failed", exc_info=exc)


_MAX_PRUNES = 64
_SEGMENT = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)|\[[^\]]*\]")


def _without_unreadable(data: dict[str, Any], exc: ClassValidationError) -> dict[str, Any]:
    """``data`` without the fields cattrs could not structure, each dropped at its innermost object
    key (``$.params.capabilities.text_document.hover.content_format`` drops ``contentFormat``).
    Only what ``handshake.read_params`` does not check can fail here, so nothing the server uses is
    lost; a path that cannot be found stops the pruning (MalformedMessage)."""
    data = copy.deepcopy(data)
    dropped = []
    for text in cattrs.transform_error(exc, path="$"):
        _, _, path = text.rpartition(" @ ")
        keys = [_camel(m.group(1)) for m in _SEGMENT.finditer(path) if m.group(1)]
        parent: Any = data
        for key in keys[:-1]:
            parent = parent.get(key) if isinstance(parent, dict) else None
        if len(keys) < 3 or keys[:2] != ["params", "capabilities"] or not isinstance(parent, dict):
            raise MalformedMessage(JsonRpcInvalidParams(message=f"invalid params: {text}"))
        if parent.pop(keys[-1], None) is not None:
            dropped.append(".".join(keys[1:]))
    if not dropped:
        raise MalformedMessage(JsonRpcInvalidParams(message="invalid params: capabilities could not be read"))
    log.info("initialize: ignoring capabilities the server cannot read: %s", ", ".join(dropped))
    return data


def _camel(name: str) -> str:
    """lsprotocol's attribute name as the JSON key it stands for."""
    head, *rest = name.rstrip("_").split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:200] if text else type(exc).__name__


def dispatch(protocol: AgentProtocol, body: bytes) -> None:
    """Decode one frame and hand it to the protocol; a bad one is answered (if it has an id) and logged."""
    try:
        message = json.loads(body, object_hook=protocol.structure_message)
    except MalformedMessage as exc:
        _reject(protocol, body, exc.error)
        return
    except ValueError as exc:  # not JSON (json.JSONDecodeError, or bad UTF-8)
        _parse_error(protocol, f"parse error: {exc}")
        return
    except RecursionError:  # valid JSON, perhaps, but nested past what the decoder can follow
        _parse_error(protocol, f"parse error: the message nests deeper than {sys.getrecursionlimit()} levels")
        return
    if not hasattr(message, "jsonrpc"):
        error = JsonRpcInvalidRequest(message="invalid request: not a JSON-RPC 2.0 message (an object)")
        _reject(protocol, body, error)
        return
    try:
        protocol.handle_message(message)
    except Exception:
        log.error("handling %s failed", getattr(message, "method", "a message"), exc_info=sys.exc_info())


def _parse_error(protocol: AgentProtocol, message: str) -> None:
    """Answer a body that could not be decoded: ParseError with ``id: null`` (its id is unknowable)."""
    log.info("a message that could not be decoded: %s", _first_line(ValueError(message)))
    _send_null_id(protocol, JsonRpcParseError(message=message))


def _reject(protocol: AgentProtocol, body: bytes, error: JsonRpcException) -> None:
    try:
        raw = json.loads(body)
    except (ValueError, RecursionError):
        raw = None
    if not isinstance(raw, dict):  # a batch (not part of LSP) or a bare value: id unknowable
        log.info("malformed message: %s", error.message)
        _send_null_id(protocol, error)
        return
    method, msg_id = raw.get("method"), raw.get("id")
    log.info(
        "malformed %s%s: %s",
        method if isinstance(method, str) else "message",
        f" (id {json.dumps(msg_id)[:40]})" if msg_id is not None else "",
        error.message,
    )
    if msg_id is None or "result" in raw or "error" in raw:
        return  # a notification, or the client's answer to a request of ours: nothing to answer
    if handshake.valid_id(msg_id):
        protocol._send_response(msg_id, error=error.to_response_error())
    else:  # JSON-RPC: an id that cannot be an id is answered with id null
        _send_null_id(protocol, error)


def _send_null_id(protocol: AgentProtocol, error: JsonRpcException) -> None:
    """An error answer with ``"id": null``, which JSON-RPC requires when the id is unknowable
    (lsprotocol's response type leaves a None id out, so the frame is written here)."""
    if protocol.writer is None:
        return
    answer = {"jsonrpc": "2.0", "id": None, "error": {"code": error.code, "message": error.message}}
    protocol.writer.write(handshake.frame(answer))
