"""``initialize`` answered before the ACP library is imported (issue #15).

``acp.schema`` builds several hundred pydantic models: importing it takes 0.8 s or more, and an ACP
client waits for the ``initialize`` answer before it shows anything. So ``agentls acp`` reads the
first message itself: when it is a plain ``initialize`` request, the answer below goes out at once;
then the library is imported, the full agent is handed the same request (its own state, such as
the client's file-system and terminal capabilities, comes from it), and the agent's answer to it is
dropped after a comparison (a difference is logged as the bug it is). tests/acp/test_handshake.py
checks that this answer is the agent's for every kind of client.

Only the standard library and ``acp_server.transport`` are imported here.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from acp_server.auth_methods import auth_methods
from acp_server.transport import StdioLines
from core import __version__

log = logging.getLogger(__name__)

PROTOCOL_VERSION = 1  # acp.PROTOCOL_VERSION (checked by the tests)
# The range the schema allows for the client's protocolVersion (a uint16; checked by the tests).
VERSION_RANGE = range(0, 65536)
AGENT_CAPABILITIES: dict[str, Any] = {
    "loadSession": True,
    "mcpCapabilities": {"http": True, "sse": True},
    "promptCapabilities": {"audio": False, "embeddedContext": True, "image": True},
    "sessionCapabilities": {"close": {}, "delete": {}, "fork": {}, "list": {}, "resume": {}},
}


def result(params: dict[str, Any]) -> dict[str, Any]:
    """The agent's ``initialize`` answer for these params, as JSON."""
    asked = params["protocolVersion"]
    # The client's version when we speak it, else the newest we speak (the client decides).
    version = min(asked, PROTOCOL_VERSION) if asked >= 1 else PROTOCOL_VERSION
    return {
        "protocolVersion": version,
        "agentCapabilities": AGENT_CAPABILITIES,
        "agentInfo": {"name": "agentls", "title": "agentls", "version": __version__},
        "authMethods": auth_methods(params.get("clientCapabilities")),
    }


def _bool_or_absent(value: Any, *names: str) -> bool:
    return isinstance(value, dict) and all(value.get(n) is None or isinstance(value[n], bool) for n in names)


def answerable(message: Any) -> bool:
    """Whether ``message`` is an ``initialize`` request the agent surely accepts; anything unusual
    is left to the agent, which answers (or rejects) it itself, just later."""
    if message.get("method") != "initialize" or "id" not in message:
        return False
    params = message.get("params")
    if not isinstance(params, dict):
        return False
    version = params.get("protocolVersion")
    caps = params.get("clientCapabilities")
    info = params.get("clientInfo")
    return (
        isinstance(version, int)
        and not isinstance(version, bool)
        and version in VERSION_RANGE
        and (
            caps is None
            or (
                _bool_or_absent(caps, "terminal")
                and _fs_ok(caps.get("fs"))
                and (caps.get("auth") is None or _bool_or_absent(caps["auth"], "terminal"))
            )
        )
        and (
            info is None
            or (
                isinstance(info, dict)
                and isinstance(info.get("name"), str)
                and isinstance(info.get("version"), str)
                and (info.get("title") is None or isinstance(info["title"], str))
            )
        )
    )


def _fs_ok(fs: Any) -> bool:
    return fs is None or _bool_or_absent(fs, "readTextFile", "writeTextFile")


class Answered:
    """The transport the ACP connection gets after an early answer: it receives the answered
    request first, and the agent's answer to it is checked and dropped."""

    def __init__(self, inner: StdioLines, request: dict[str, Any], answer: dict[str, Any] | None) -> None:
        self._inner = inner
        self._request: dict[str, Any] | None = request
        self._answer: dict[str, Any] | None = answer

    async def receive(self) -> dict[str, Any] | None:
        """The answered request once, then the client's messages."""
        if (request := self._request) is not None:
            self._request = None
            return request
        return await self._inner.receive()

    async def send(self, message: dict[str, Any]) -> None:
        """Send ``message``, unless it is the answer already given."""
        answer = self._answer
        if answer is not None and "method" not in message and message.get("id") == answer["id"]:
            self._answer = None
            if message != answer:
                log.error(
                    "initialize was answered early with %s, but the agent answers %s",
                    json.dumps(answer),
                    json.dumps(message),
                )
            return
        await self._inner.send(message)

    async def close(self) -> None:
        """Close the underlying transport."""
        await self._inner.close()


async def answer_early(transport: StdioLines) -> Answered | StdioLines:
    """Read the first message and answer it when it is a plain ``initialize``; the transport the
    connection should use from then on."""
    first = await transport.receive()
    if first is None:
        return transport  # the client left at once: the connection sees the same end of input
    if not answerable(first):
        return Answered(transport, first, None)  # the agent reads (and answers) it as usual
    answer = {"jsonrpc": "2.0", "id": first["id"], "result": result(first["params"])}
    await transport.send(answer)
    return Answered(transport, first, answer)
