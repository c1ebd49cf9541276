"""HTTP for the lean decoders: one pooled client per event loop, SSE reading, prompt abort."""

from __future__ import annotations

import asyncio
import logging
import os
import ssl
import threading
import time
import weakref
from collections.abc import AsyncIterator, Awaitable, Coroutine
from typing import TypeVar

from core.errors import AbortedError, ProviderError
from core.llm import errors, http, netenv
from core.llm.sse import SSEDecoder

log = logging.getLogger(__name__)
T = TypeVar("T")

DEFAULT_READ_TIMEOUT = 600.0  # seconds between two chunks; a thinking model can be quiet a while
MAX_IDLE_CONNECTIONS = 8
PEEK_BYTES = 300  # of an answer that is not an event stream, quoted in the error
_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, http.Client] = weakref.WeakKeyDictionary()

# The TLS context every client of the process shares, made at the first HTTPS connection.
_tls: ssl.SSLContext | None = None
_tls_lock = threading.Lock()


def _new_tls() -> ssl.SSLContext:
    return netenv.tls_context(os.environ)


def shared_tls_context() -> ssl.SSLContext:
    """The process's TLS context for model connections (thread-safe: clients make it on a thread)."""
    global _tls
    with _tls_lock:
        if _tls is None:
            _tls = _new_tls()
        return _tls


def http_client() -> http.Client:
    """The running loop's shared client (connections belong to the loop they were made on)."""
    loop = asyncio.get_running_loop()
    client = _clients.get(loop)
    if client is None:
        client = http.Client(max_idle=MAX_IDLE_CONNECTIONS, tls=shared_tls_context)
        _clients[loop] = client
    return client


async def aclose_http_client() -> None:
    """Close the running loop's shared client (at shutdown)."""
    client = _clients.pop(asyncio.get_running_loop(), None)
    if client is not None:
        await client.aclose()


class AbortGuard:
    """Turns ``abort`` into a prompt ``AbortedError`` while the stream waits on the network.

    The consuming task is cancelled only while it is inside ``run`` (waiting for bytes), so the
    cancellation never lands in the caller's own code; between waits ``check`` sees the flag.
    """

    def __init__(self, abort: asyncio.Event) -> None:
        self._abort = abort
        task = asyncio.current_task()
        assert task is not None, "streams run inside a task"
        self._task = task
        self._waiting = False
        self._fired = False
        self._watcher = asyncio.ensure_future(abort.wait())
        self._watcher.add_done_callback(self._on_abort)

    def _on_abort(self, _: object) -> None:
        if self._waiting and not self._fired and self._abort.is_set():
            self._fired = True
            self._task.cancel()

    def check(self) -> None:
        """Raise ``AbortedError`` when abort is set."""
        if self._abort.is_set():
            raise AbortedError("the model request was aborted")

    async def run(self, awaitable: Awaitable[T], stall: StallWatch | None = None) -> T:
        """Await ``awaitable``, abandoning it at once when abort is set or ``stall`` runs out."""
        if self._abort.is_set():
            if isinstance(awaitable, Coroutine):
                awaitable.close()  # never started; closing it keeps "never awaited" warnings away
            self.check()
        self._waiting = True
        try:
            if stall is None:
                return await awaitable
            try:
                async with asyncio.timeout(stall.remaining()):
                    return await awaitable
            except TimeoutError:
                raise stall.error() from None
        except asyncio.CancelledError:
            if self._fired:
                self._fired = False
                self._task.uncancel()
                raise AbortedError("the model request was aborted") from None
            raise
        finally:
            self._waiting = False

    def close(self) -> None:
        """Stop watching."""
        self._watcher.cancel()


class StallWatch:
    """How long a stream may stay silent: ``first_byte`` seconds from the request, then ``between``
    seconds after each chunk. a read timeout cannot say this: it restarts on every byte of
    the headers and knows nothing of the time spent before the request reached the socket."""

    def __init__(self, first_byte: float, between: float, provider: str) -> None:
        self._first_byte = first_byte
        self._between = between
        self._provider = provider
        self._flowing = False
        self._deadline = time.monotonic() + first_byte

    def remaining(self) -> float:
        """Seconds left before the stream counts as stalled."""
        return max(0.0, self._deadline - time.monotonic())

    def got_bytes(self) -> None:
        """A body chunk arrived: the next wait gets the between-chunks budget.

        Headers do not count: a server may answer them at once and then think for a long while.
        """
        self._flowing = True
        self._deadline = time.monotonic() + self._between

    def error(self) -> ProviderError:
        """The retryable timeout for a stall at this point of the stream."""
        if self._flowing:
            what = f"sent nothing for {self._between:g} s in the middle of its answer"
        else:
            what = f"sent no first byte within {self._first_byte:g} s"
        return ProviderError(
            f"{self._provider} timed out: it {what} (chunk_timeout / first_byte_timeout in the "
            "provider's options set these limits)",
            kind="api",
            retryable=True,
        )


async def open_sse(
    url: str,
    headers: dict[str, str],
    body: bytes,
    *,
    timeout: float | None,
    guard: AbortGuard,
    provider: str,
    stall: StallWatch | None = None,
) -> http.Response:
    """POST ``body`` and return the streaming response, or raise the classified failure."""
    read = timeout or DEFAULT_READ_TIMEOUT
    sending = http_client().send(
        "POST",
        url,
        headers={"content-type": "application/json", "accept": "text/event-stream", **headers},
        body=body,
        connect_timeout=min(read, 30.0),
        read_timeout=read,
    )
    try:
        response = await guard.run(sending, stall)
    except http.HTTPError as exc:
        raise errors.from_transport(exc, provider=provider) from exc
    if response.status_code < 300 and _is_event_stream(response.headers):
        return response
    if response.status_code < 400:
        raise await _not_a_stream(response, guard, provider)
    try:
        text = (await guard.run(response.aread())).decode("utf-8", "replace")
    except http.HTTPError as exc:
        text = f"(body unreadable: {exc})"
    finally:
        await response.aclose()
    log.info("%s answered HTTP %d: %s", provider, response.status_code, text[:300])
    message = errors.error_message(text)
    raise errors.from_status(response.status_code, message, response.headers, provider=provider)


def _is_event_stream(headers: http.Headers) -> bool:
    """Whether the answer says it is an event stream (one that says nothing is taken as one)."""
    kind = headers.get("content-type")
    return kind is None or kind.partition(";")[0].strip().lower() == "text/event-stream"


async def _not_a_stream(response: http.Response, guard: AbortGuard, provider: str) -> ProviderError:
    """The failure for a redirect or a 2xx that is not an event stream (a captive portal's login
    page, an api_base pointing at a web site): what came back, not worth another attempt."""
    head = b""
    try:
        chunks = response.aiter_bytes()
        while len(head) < PEEK_BYTES:
            head += await guard.run(anext(chunks))
    except (StopAsyncIteration, http.HTTPError):
        pass
    finally:
        await response.aclose()
    status, kind = response.status_code, response.headers.get("content-type", "no content-type")
    if 300 <= status < 400:
        what = f"a redirect (HTTP {status}) to {response.headers.get('location', 'nowhere named')}"
    else:
        what = f"HTTP {status} with {kind}"
    text = head[:PEEK_BYTES].decode("utf-8", "replace").strip()
    log.info("%s answered %s: %r", provider, what, text)
    return ProviderError(
        f"{provider} answered {what} instead of an event stream"
        + (f", beginning {text[:200]!r}" if text else "")
        + ": check the provider's api_base, or whether the network wants a login first (a captive portal)",
        kind="api",
        status=status,
        retryable=False,
    )


async def sse_batches(
    response: http.Response, guard: AbortGuard, provider: str, stall: StallWatch | None = None
) -> AsyncIterator[list[tuple[str, str]]]:
    """The ``(event, data)`` pairs of the body, one batch per network read."""
    decoder = SSEDecoder()
    chunks = response.aiter_bytes()
    try:
        while True:
            try:
                chunk = await guard.run(anext(chunks), stall)
            except StopAsyncIteration:
                break
            if stall is not None:
                stall.got_bytes()
            if batch := decoder.feed(chunk):
                yield batch
    except http.HTTPError as exc:
        raise errors.from_transport(exc, provider=provider) from exc
    if tail := decoder.close():
        yield tail
