"""Newline-delimited JSON-RPC over stdio that answers malformed input instead of dropping it.

The ACP library's own framing logs a line that is not JSON and moves on, and a JSON array or a
bare value reaches its dispatcher as something it cannot read. ACP is JSON-RPC 2.0, whose rule is
that such input is answered (parse error, invalid request, with ``id: null`` when the id is
unknowable), so a client that sent garbage learns why instead of waiting forever. Only well-formed
messages go on to the connection; the agent keeps serving.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from typing import Any

log = logging.getLogger(__name__)

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
MAX_LINE = 50 * 1024 * 1024  # prompts can embed whole files


def error_response(request_id: Any, code: int, message: str, data: Any = None) -> dict[str, Any]:
    """A JSON-RPC error answer."""
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": "2.0", "id": request_id, "error": error}


def problem(message: Any) -> tuple[Any, str] | None:
    """Why ``message`` is not a JSON-RPC 2.0 message (with the id to answer to), or None."""
    if isinstance(message, list):
        return None, "batches are not part of ACP: send one JSON-RPC message per line"
    if not isinstance(message, dict):
        return None, "a JSON-RPC message must be a JSON object"
    request_id = message.get("id")
    if "id" in message and not (request_id is None or isinstance(request_id, str | int)):
        return None, "id must be a string, a number or null"
    if message.get("jsonrpc") != "2.0":
        return request_id, 'jsonrpc must be "2.0"'
    if "method" in message:
        if not isinstance(message["method"], str) or not message["method"]:
            return request_id, "method must be a non-empty string"
        params = message.get("params")
        if params is not None and not isinstance(params, dict | list):
            return request_id, "params must be an object"
        return None
    if "id" not in message or not ("result" in message or "error" in message):
        return request_id, "a message needs a method (request, notification) or a result/error (response)"
    return None


class StdioLines:
    """The ``acp`` Transport protocol over a reader and writer of newline-delimited JSON."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader = reader
        self._writer = writer
        self._lock = asyncio.Lock()
        self.rejected = 0

    async def send(self, message: dict[str, Any]) -> None:
        data = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"
        async with self._lock:
            self._writer.write(data)
            await self._writer.drain()

    async def receive(self) -> dict[str, Any] | None:
        while True:
            line = await self._read_line()
            if line is None:
                return None
            if not line.strip():
                continue
            try:
                message = json.loads(line)
            except ValueError as exc:
                await self._reject(None, PARSE_ERROR, "Parse error", f"not JSON: {exc}")
                continue
            except RecursionError:  # JSON, perhaps, but nested past what the decoder follows
                reason = f"the message nests deeper than {sys.getrecursionlimit()} levels"
                await self._reject(None, PARSE_ERROR, "Parse error", reason)
                continue
            found = problem(message)
            if found is None:
                return message  # type: ignore[no-any-return]
            request_id, reason = found
            await self._reject(request_id, INVALID_REQUEST, "Invalid request", reason)

    async def close(self) -> None:
        async with self._lock:
            if not self._writer.is_closing():
                self._writer.close()

    async def _reject(self, request_id: Any, code: int, message: str, reason: str) -> None:
        self.rejected += 1
        log.warning("malformed message from the client: %s", reason)
        await self.send(error_response(request_id, code, message, {"details": reason}))

    async def _read_line(self) -> bytes | None:
        try:
            line = await self._reader.readuntil(b"\n")
        except asyncio.IncompleteReadError as exc:
            return exc.partial or None  # the last line may lack its newline
        except asyncio.LimitOverrunError:
            # Drop the oversized line entirely and tell the client; the stream stays in sync.
            while True:
                try:
                    await self._reader.readuntil(b"\n")
                    break
                except asyncio.LimitOverrunError as exc:
                    await self._reader.readexactly(exc.consumed)
                except asyncio.IncompleteReadError:
                    return None
            await self._reject(
                None, INVALID_REQUEST, "Invalid request", f"a line longer than {MAX_LINE} bytes"
            )
            return b""
        return line


async def stdio() -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """Streams over this process's stdin and stdout (pipes, as every ACP client starts agents)."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=MAX_LINE)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    transport, protocol = await loop.connect_write_pipe(
        lambda: asyncio.streams.FlowControlMixin(), sys.stdout
    )
    writer = asyncio.StreamWriter(transport, protocol, None, loop)
    return reader, writer
