"""One connection between a front end and the host: requests both ways, notifications, errors.

Both ends use it. Each incoming request runs as its own task (a prompt that waits for its turn
does not hold the others); a ``$/cancel`` notification cancels one, as an editor's
``$/cancelRequest`` cancels a handler. Errors of the core travel as their class name and text and
are raised again as the same class on the other side; anything else is the host's bug and says so.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import core.errors as errors
from core.remote.wire import AGENT_ERROR, WireError, encode, read_message

log = logging.getLogger(__name__)

RequestHandler = Callable[[str, dict[str, Any]], Awaitable[Any]]
NotificationHandler = Callable[[str, dict[str, Any]], None]

_INTERNAL = -32603
CANCEL_GRACE_S = 10.0  # how long a cancelled call waits for the other end to confirm it stopped


class RemoteError(errors.AgentError):
    """The other end answered a request with an error that is not one of the core's."""

    def __init__(self, code: int, message: str, data: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.data = data or {}


class ConnectionLost(errors.AgentError):
    """The connection closed before the answer came (the host stopped or was killed)."""


class Connection:
    """A JSON-RPC peer over a stream pair; ``run()`` reads until the stream ends."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        on_request: RequestHandler,
        on_notification: NotificationHandler,
    ) -> None:
        self._reader = reader
        self._writer = writer
        self._on_request = on_request
        self._on_notification = on_notification
        self._next_id = 0
        self._waiting: dict[int, asyncio.Future[Any]] = {}
        self._serving: dict[Any, asyncio.Task[None]] = {}
        self._unanswered: dict[Any, bool] = {}  # requests being served and not answered yet
        self.closed = asyncio.Event()
        self.close_reason = "the connection closed"
        self._reading: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Read and dispatch messages in the background (``run`` as a task kept here)."""
        self._reading = asyncio.create_task(self.run())

    async def request(self, method: str, params: dict[str, Any]) -> Any:
        """Send a request and wait for its result; a cancelled caller cancels it at the other end."""
        if self.closed.is_set():
            raise ConnectionLost(self.close_reason)
        self._next_id += 1
        request_id = self._next_id
        answer: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiting[request_id] = answer
        try:
            self._send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
            return await asyncio.shield(answer)  # a cancelled caller leaves the answer to wait for
        except asyncio.CancelledError:
            self.notify("$/cancel", {"id": request_id})
            # As in-process, a cancelled call returns once the other end has stopped it (a prompt:
            # its turn aborted, its tools' work killed), or it went away, or the grace ran out.
            await asyncio.wait([answer], timeout=CANCEL_GRACE_S)
            if answer.done() and not answer.cancelled():
                answer.exception()  # retrieved: the caller was cancelled, that is its answer
            raise
        finally:
            self._waiting.pop(request_id, None)

    def notify(self, method: str, params: dict[str, Any]) -> None:
        """Send a notification (dropped once the connection is closed)."""
        if not self.closed.is_set():
            self._send({"jsonrpc": "2.0", "method": method, "params": params})

    async def run(self, first: dict[str, Any] | None = None) -> None:
        """Read and dispatch messages until the stream ends or breaks the wire's rules; ``first``:
        a message already read (the TCP door reads the hello itself, to check its token)."""
        try:
            if first is not None:
                self._dispatch(first)
            while (message := await read_message(self._reader)) is not None:
                self._dispatch(message)
        except WireError as exc:
            self.close_reason = f"the other end broke the wire's rules: {exc}"
            log.warning("host connection: %s", exc)
        except (ConnectionError, OSError) as exc:
            self.close_reason = f"the connection broke: {exc}"
        finally:
            self.close()

    def close(self) -> None:
        """Close the stream; requests still waiting fail with ConnectionLost."""
        if self.closed.is_set():
            return
        self.closed.set()
        for answer in self._waiting.values():
            if not answer.done():
                answer.set_exception(ConnectionLost(self.close_reason))
        for task in self._serving.values():
            task.cancel()
        with contextlib.suppress(OSError, RuntimeError):
            self._writer.close()

    def _send(self, message: dict[str, Any]) -> None:
        try:
            self._writer.write(encode(message))
        except (OSError, RuntimeError) as exc:
            self.close_reason = f"the connection broke: {exc}"
            self.close()

    def _dispatch(self, message: dict[str, Any]) -> None:
        method = message.get("method")
        if isinstance(method, str):
            params = message.get("params")
            params = params if isinstance(params, dict) else {}
            if "id" not in message:
                if method == "$/cancel":
                    task = self._serving.get(params.get("id"))
                    if task is not None:
                        task.cancel()
                    return
                try:
                    self._on_notification(method, params)
                except Exception:  # one bad notification must not end the connection
                    log.exception("host connection: notification %s failed", method)
                return
            request_id = message["id"]
            task = asyncio.create_task(self._serve(request_id, method, params))
            self._serving[request_id] = task
            self._unanswered[request_id] = True
            task.add_done_callback(functools.partial(self._served, request_id))
            return
        answer = self._waiting.get(message.get("id"))  # type: ignore[arg-type]
        if answer is None or answer.done():
            return
        error = message.get("error")
        if isinstance(error, dict):
            answer.set_exception(raised(error))
        else:
            answer.set_result(message.get("result"))

    def _served(self, request_id: Any, task: asyncio.Task[None]) -> None:
        self._serving.pop(request_id, None)
        unanswered = self._unanswered.pop(request_id, False)
        # A cancelled request is answered here, also one cancelled before its task ran a step.
        if task.cancelled() and unanswered and not self.closed.is_set():
            self._send(
                {
                    "jsonrpc": "2.0",
                    "id": request_id,
                    "error": described(errors.AbortedError("the request was cancelled")),
                }
            )

    async def _serve(self, request_id: Any, method: str, params: dict[str, Any]) -> None:
        try:
            result = await self._on_request(method, params)
        except Exception as exc:
            if not isinstance(exc, (errors.AgentError, RemoteError)):
                log.exception("host connection: %s failed", method)
            self._unanswered.pop(request_id, None)
            self._send({"jsonrpc": "2.0", "id": request_id, "error": described(exc)})
        else:
            self._unanswered.pop(request_id, None)
            self._send({"jsonrpc": "2.0", "id": request_id, "result": result})


def described(exc: BaseException) -> dict[str, Any]:
    """An exception as a JSON-RPC error: the core's errors by class name (and a provider's details)."""
    if isinstance(exc, RemoteError):
        return {"code": exc.code, "message": str(exc), **({"data": exc.data} if exc.data else {})}
    if not isinstance(exc, errors.AgentError):
        return {"code": _INTERNAL, "message": f"the host failed: {type(exc).__name__}: {exc}"}
    data: dict[str, Any] = {"kind": type(exc).__name__}
    if isinstance(exc, errors.ProviderError):
        data.update(
            provider={
                "kind": exc.kind,
                "status": exc.status,
                "retryable": exc.retryable,
                "retry_after": exc.retry_after,
            }
        )
    return {"code": AGENT_ERROR, "message": str(exc), "data": data}


def raised(error: dict[str, Any]) -> Exception:
    """The exception an error answer stands for: the core's class of that name, else RemoteError."""
    message = str(error.get("message", "the host answered with an error"))
    data = error.get("data") if isinstance(error.get("data"), dict) else {}
    assert isinstance(data, dict)
    cls = getattr(errors, str(data.get("kind", "")), None)
    if not (isinstance(cls, type) and issubclass(cls, errors.AgentError)):
        return RemoteError(int(error.get("code", _INTERNAL)), message, data)
    provider = data.get("provider")
    if issubclass(cls, errors.ContextOverflowError):
        return errors.CompactionFailedError(message) if cls is errors.CompactionFailedError else cls(message)
    if issubclass(cls, errors.ProviderError) and isinstance(provider, dict):
        return cls(
            message,
            kind=str(provider.get("kind", "api")),
            status=provider.get("status"),
            retryable=bool(provider.get("retryable")),
            retry_after=provider.get("retry_after"),
        )
    try:
        return cls(message)
    except TypeError:  # a class whose constructor wants more: its text still says what happened
        return errors.AgentError(message)
