"""HTTP for the lean decoders: one pooled httpx client per event loop, SSE reading, prompt abort."""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import AsyncIterator, Awaitable, Coroutine
from typing import TypeVar

import httpx

from core.errors import AbortedError
from core.llm import errors
from core.llm.sse import SSEDecoder

log = logging.getLogger(__name__)
T = TypeVar("T")

DEFAULT_READ_TIMEOUT = 600.0  # seconds between two chunks; a thinking model can be quiet a while
_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, httpx.AsyncClient] = (
    weakref.WeakKeyDictionary()
)


def http_client() -> httpx.AsyncClient:
    """The running loop's shared client: connections (and TLS sessions) are reused across steps."""
    loop = asyncio.get_running_loop()
    client = _clients.get(loop)
    if client is None or client.is_closed:
        client = httpx.AsyncClient(timeout=None, limits=httpx.Limits(max_keepalive_connections=8))
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

    async def run(self, awaitable: Awaitable[T]) -> T:
        """Await ``awaitable``, abandoning it at once when abort is set."""
        if self._abort.is_set():
            if isinstance(awaitable, Coroutine):
                awaitable.close()  # never started; closing it keeps "never awaited" warnings away
            self.check()
        self._waiting = True
        try:
            return await awaitable
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


async def open_sse(
    url: str,
    headers: dict[str, str],
    body: bytes,
    *,
    timeout: float | None,
    guard: AbortGuard,
    provider: str,
) -> httpx.Response:
    """POST ``body`` and return the streaming response, or raise the classified failure."""
    read = timeout or DEFAULT_READ_TIMEOUT
    request = http_client().build_request(
        "POST",
        url,
        headers={"content-type": "application/json", "accept": "text/event-stream", **headers},
        content=body,
        timeout=httpx.Timeout(read, connect=min(read, 30.0)),
    )
    try:
        response = await guard.run(http_client().send(request, stream=True))
    except httpx.HTTPError as exc:
        raise errors.from_transport(exc, provider=provider) from exc
    if response.status_code < 400:
        return response
    try:
        text = (await guard.run(response.aread())).decode("utf-8", "replace")
    except httpx.HTTPError as exc:
        text = f"(body unreadable: {exc})"
    finally:
        await response.aclose()
    log.info("%s answered HTTP %d: %s", provider, response.status_code, text[:300])
    message = errors.error_message(text)
    raise errors.from_status(response.status_code, message, response.headers, provider=provider)


async def sse_batches(
    response: httpx.Response, guard: AbortGuard, provider: str
) -> AsyncIterator[list[tuple[str, str]]]:
    """The ``(event, data)`` pairs of the body, one batch per network read."""
    decoder = SSEDecoder()
    chunks = response.aiter_bytes()
    try:
        while True:
            try:
                chunk = await guard.run(anext(chunks))
            except StopAsyncIteration:
                break
            if batch := decoder.feed(chunk):
                yield batch
    except httpx.HTTPError as exc:
        raise errors.from_transport(exc, provider=provider) from exc
    if tail := decoder.close():
        yield tail
