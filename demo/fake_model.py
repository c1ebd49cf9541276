"""A scripted fake model server on 127.0.0.1 speaking OpenAI and Anthropic streaming HTTP.

Tests and ``agentls demo`` script it turn by turn and read back what the agent sent::

    async with FakeModelServer() as srv:
        srv.script(Turn.text("Hello", chunks=5).usage(input=10, output=3))
        ...  # point a model at srv.openai_base (OpenAI) or srv.base_url (Anthropic)
        assert srv.requests[0].messages[-1]["content"] == "hi"

Each request takes the next scripted turn; with none left it gets a 500 that says so.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import http
import json
import logging
import ssl
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from demo import fake_wire
from demo.fake_script import Delay, Turn

log = logging.getLogger(__name__)

OPENAI_PATHS = ("/v1/chat/completions", "/chat/completions")
ANTHROPIC_PATHS = ("/v1/messages", "/messages")
_MALFORMED = 'data: {"choices": [{"delta": {"content": "cut\n\n'


@dataclass(frozen=True, slots=True)
class RecordedRequest:
    """One request as the server received it; header names are lower-case."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The ``messages`` of the JSON body."""
        return list(self.body.get("messages", [])) if isinstance(self.body, dict) else []

    @property
    def tools(self) -> list[dict[str, Any]]:
        """The ``tools`` of the JSON body."""
        return list(self.body.get("tools", [])) if isinstance(self.body, dict) else []

    @property
    def first_user_text(self) -> str:
        """The text of the conversation's first user message (which session asks, in a test)."""
        for message in self.messages:
            if message.get("role") == "user":
                content = message.get("content")
                if isinstance(content, str):
                    return content
                if isinstance(content, list):
                    return " ".join(str(c.get("text", "")) for c in content if isinstance(c, dict))
        return ""

    @property
    def system(self) -> Any:
        """Anthropic's top-level ``system``, or the OpenAI system messages."""
        if isinstance(self.body, dict) and "system" in self.body:
            return self.body["system"]
        return [m for m in self.messages if m.get("role") == "system"]


async def _wait(delay: Delay) -> None:
    if isinstance(delay, asyncio.Event):
        await delay.wait()
    else:
        await asyncio.sleep(delay)


def _status_line(status: int) -> str:
    try:
        phrase = http.HTTPStatus(status).phrase
    except ValueError:
        phrase = "Overloaded" if status == 529 else "Error"
    return f"HTTP/1.1 {status} {phrase}\r\n"


class FakeModelServer:
    """The server; use it as an async context manager, or ``threaded()`` from synchronous code."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0, *, tls: ssl.SSLContext | None = None) -> None:
        self._host, self._port = host, port
        self._tls = tls  # a server context: the endpoints are https://
        self._turns: collections.deque[Turn] = collections.deque()
        # Turns kept for the conversations whose first user message contains a key (script_for).
        self._routes: dict[str, collections.deque[Turn]] = {}
        self._server: asyncio.Server | None = None
        self._handlers: set[asyncio.Task[None]] = set()
        self._arrived: asyncio.Condition | None = None
        self._loop: asyncio.AbstractEventLoop | None = None  # the loop it runs on, once started
        self._next_call = 1
        self._stopping = False
        self.requests: list[RecordedRequest] = []

    # --- scripting ---------------------------------------------------------------------------

    def script(self, *turns: Turn) -> None:
        """Queue turns; each request takes the next one."""
        self._turns.extend(turns)

    def script_for(self, key: str, *turns: Turn) -> None:
        """Queue turns for the requests whose first user message contains ``key``: sessions that
        run at once (background sub-agents) each take their own, whatever order they ask in."""
        self._routes.setdefault(key, collections.deque()).extend(turns)

    @property
    def pending(self) -> int:
        """How many scripted turns no request has taken yet."""
        return len(self._turns) + sum(len(turns) for turns in self._routes.values())

    async def wait_for_requests(self, count: int, timeout: float = 30.0) -> None:
        """Wait until at least ``count`` requests have arrived."""
        assert self._arrived is not None, "server not started"
        async with asyncio.timeout(timeout), self._arrived:
            await self._arrived.wait_for(lambda: len(self.requests) >= count)

    def wait_for_requests_from_thread(self, count: int, timeout: float = 30.0) -> None:
        """``wait_for_requests`` for a thread other than the server's loop (a ``threaded()``
        server): blocks; TimeoutError after ``timeout`` seconds."""
        assert self._loop is not None, "server not started"
        waiting = asyncio.run_coroutine_threadsafe(self.wait_for_requests(count, timeout), self._loop)
        waiting.result(timeout + 5)  # also if the loop stopped meanwhile

    # --- lifecycle ---------------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT`` (``https://`` with ``tls``) — the Anthropic api_base."""
        return f"{'https' if self._tls else 'http'}://{self._host}:{self._port}"

    @property
    def openai_base(self) -> str:
        """``http://127.0.0.1:PORT/v1`` — the OpenAI api_base."""
        return f"{self.base_url}/v1"

    async def start(self) -> None:
        """Listen on the host and a free port."""
        self._arrived = asyncio.Condition()
        self._loop = asyncio.get_running_loop()
        self._server = await asyncio.start_server(self._connection, self._host, self._port, ssl=self._tls)
        self._port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        """Stop listening and end every open connection."""
        self._stopping = True
        if self._server is not None:
            self._server.close()
        for task in list(self._handlers):
            task.cancel()
        await asyncio.gather(*self._handlers, return_exceptions=True)
        if self._server is not None:
            await self._server.wait_closed()
            self._server = None

    async def __aenter__(self) -> FakeModelServer:
        await self.start()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.stop()

    @classmethod
    @contextlib.contextmanager
    def threaded(cls) -> Iterator[FakeModelServer]:
        """Run a server on its own event loop in a daemon thread (for synchronous callers)."""
        srv = cls()
        loop = asyncio.new_event_loop()
        thread = threading.Thread(target=loop.run_forever, name="fake-model", daemon=True)
        thread.start()
        try:
            asyncio.run_coroutine_threadsafe(srv.start(), loop).result(timeout=10)
            yield srv
        finally:
            asyncio.run_coroutine_threadsafe(srv.stop(), loop).result(timeout=10)
            loop.call_soon_threadsafe(loop.stop)
            thread.join(timeout=10)
            loop.close()

    # --- HTTP ----------------------------------------------------------------------------------

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._handlers.add(task)
        try:
            while await self._one_request(reader, writer):
                pass
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass  # the client went away; nothing to answer
        except asyncio.CancelledError:
            # stop() cancels handlers that are stalled or idle; asyncio's stream callback would
            # otherwise log the cancellation as an unhandled error.
            if not self._stopping:
                raise
        finally:
            self._handlers.discard(task)
            writer.close()

    async def _one_request(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        """Answer one request; False when the connection must close."""
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except asyncio.IncompleteReadError:
            return False
        request_line, *header_lines = head.decode("latin-1").split("\r\n")
        method, path, _ = request_line.split(" ", 2)
        headers: dict[str, str] = {}
        for line in header_lines:
            if ":" in line:
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
        raw = await self._read_body(reader, headers)
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode("utf-8", "replace")
        self.requests.append(RecordedRequest(method, path.split("?", 1)[0], headers, body))
        assert self._arrived is not None
        async with self._arrived:
            self._arrived.notify_all()
        keep = headers.get("connection", "").lower() != "close"
        return await self._answer(self.requests[-1], writer) and keep

    @staticmethod
    async def _read_body(reader: asyncio.StreamReader, headers: dict[str, str]) -> bytes:
        if "content-length" in headers:
            return await reader.readexactly(int(headers["content-length"]))
        if headers.get("transfer-encoding", "").lower() == "chunked":
            parts = []
            while size := int((await reader.readuntil(b"\r\n")).strip().split(b";")[0], 16):
                parts.append(await reader.readexactly(size))
                await reader.readexactly(2)
            await reader.readuntil(b"\r\n")
            return b"".join(parts)
        return b""

    async def _send(
        self, writer: asyncio.StreamWriter, status: int, body: str, headers: dict[str, str] | None = None
    ) -> None:
        data = body.encode()
        extra = "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
        head = (
            f"{_status_line(status)}content-type: application/json\r\n"
            f"content-length: {len(data)}\r\n{extra}\r\n"
        )
        writer.write(head.encode() + data)
        await writer.drain()

    async def _answer(self, req: RecordedRequest, writer: asyncio.StreamWriter) -> bool:
        is_openai, is_anthropic = req.path in OPENAI_PATHS, req.path in ANTHROPIC_PATHS
        if req.method != "POST" or not (is_openai or is_anthropic):
            await self._send(
                writer, 404, json.dumps({"error": {"message": f"no route {req.method} {req.path}"}})
            )
            return True
        first = req.first_user_text
        queue = next((turns for key, turns in self._routes.items() if key in first), self._turns)
        if not queue:
            message = f"fake model server: no scripted turn left for {req.method} {req.path}"
            log.warning("%s", message)
            await self._send(
                writer, 500, json.dumps({"error": {"message": message, "type": "fake_unscripted"}})
            )
            return True
        turn = queue.popleft()
        if turn.first_byte is not None:
            await _wait(turn.first_byte)
        if turn.fault_ is not None:
            error = fake_wire.error_body(turn.fault_, anthropic=is_anthropic)
            await self._send(writer, turn.fault_.status, error, turn.fault_.headers)
            return True
        body: dict[str, Any] = req.body if isinstance(req.body, dict) else {}
        model = str(body.get("model", "fake"))
        ids = fake_wire.call_ids(turn, self._next_call)
        self._next_call += len(ids)
        if not body.get("stream"):
            whole = fake_wire.anthropic_json if is_anthropic else fake_wire.openai_json
            await self._send(writer, 200, json.dumps(whole(turn, model, ids)))
            return True
        if is_anthropic:
            events = [f"event: {e}\ndata: {d}\n\n" for e, d in fake_wire.anthropic_stream(turn, model, ids)]
        else:
            include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
            events = [f"data: {d}\n\n" for d in fake_wire.openai_stream(turn, model, ids, include_usage)]
        return await self._stream(writer, turn, events)

    async def _stream(self, writer: asyncio.StreamWriter, turn: Turn, events: list[str]) -> bool:
        writer.write(
            (
                f"{_status_line(200)}content-type: text/event-stream\r\ncache-control: no-cache\r\n"
                "transfer-encoding: chunked\r\n\r\n"
            ).encode()
        )
        for i, event in enumerate(events):
            if i == turn.error_after:
                event = fake_wire.stream_error(turn.error_kind, anthropic=events[0].startswith("event:"))
                writer.write(b"%x\r\n%b\r\n" % (len(event.encode()), event.encode()))
                break
            if i == turn.drop_after:
                await writer.drain()
                writer.transport.abort()  # no terminating chunk: the client sees a broken body
                return False
            if i == turn.stall_after:
                await writer.drain()
                await _wait(turn.stall_until if turn.stall_until is not None else asyncio.Event())
            if i == turn.malformed_after:
                event = _MALFORMED + event
            data = event.encode()
            writer.write(b"%x\r\n%b\r\n" % (len(data), data))
            if i % 64 == 63:
                await writer.drain()
        writer.write(b"0\r\n\r\n")
        await writer.drain()
        return True
