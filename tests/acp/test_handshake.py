"""The early ``initialize`` answer (acp_server/handshake.py) is the agent's own answer, and the
agent still reads the request (the client's capabilities) after it."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import acp
import pytest
from acp.agent.router import build_agent_router
from pydantic import BaseModel, ValidationError

from acp_server import handshake
from acp_server.agent import AcpAgent
from acp_server.front import Front
from acp_server.transport import StdioLines

PARAMS: dict[str, dict[str, Any]] = {
    "bare": {"protocolVersion": 1},
    "an older version": {"protocolVersion": 0},
    "a newer version": {"protocolVersion": 7},
    "zed-like": {
        "protocolVersion": 1,
        "clientCapabilities": {"fs": {"readTextFile": True, "writeTextFile": True}, "terminal": True},
        "clientInfo": {"name": "zed", "title": "Zed", "version": "0.200.0"},
    },
    "no fs": {"protocolVersion": 1, "clientCapabilities": {"fs": None, "terminal": False}},
    "meta": {"protocolVersion": 1, "clientCapabilities": {"_meta": {"x": 1}}, "_meta": {"y": 2}},
    "terminal auth": {"protocolVersion": 1, "clientCapabilities": {"auth": {"terminal": True}}},
    "no terminal auth": {"protocolVersion": 1, "clientCapabilities": {"auth": {"terminal": False}}},
    "empty auth": {"protocolVersion": 1, "clientCapabilities": {"auth": {}}},
}


async def agent_answer(params: dict[str, Any]) -> tuple[Any, Front]:
    """What the agent answers through the library's router, serialised as the connection does."""
    front = Front(None)
    router = build_agent_router(AcpAgent(front), use_unstable_protocol=True)  # type: ignore[arg-type]
    result = await router("initialize", params, False)
    assert isinstance(result, BaseModel)
    return result.model_dump(mode="json", by_alias=True, exclude_none=True, exclude_unset=True), front


def test_the_protocol_version_is_the_librarys() -> None:
    assert handshake.PROTOCOL_VERSION == acp.PROTOCOL_VERSION


@pytest.mark.parametrize("params", list(PARAMS.values()), ids=list(PARAMS))
async def test_the_early_answer_is_the_agents(params: dict[str, Any]) -> None:
    assert handshake.answerable({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params})
    expected, _ = await agent_answer(params)
    assert handshake.result(params) == expected, (
        f"acp_server/handshake.py no longer matches AcpAgent.initialize: {json.dumps(expected)}"
    )


def test_the_version_range_is_the_schemas() -> None:
    field = acp.schema.InitializeRequest.model_fields["protocol_version"]
    bounds = {type(m).__name__: m for m in field.metadata}
    assert range(bounds["Ge"].ge, bounds["Le"].le + 1) == handshake.VERSION_RANGE


VERSIONS = [-(2**31), -1, 0, 1, 2, 65535, 65536, 2**31 - 1, 2**31, 2**63, "1", True, None, 1.5]


@pytest.mark.parametrize("version", VERSIONS, ids=[repr(v) for v in VERSIONS])
async def test_the_early_path_never_accepts_a_version_the_agent_refuses(version: Any) -> None:
    # Declining is always safe (the agent answers it itself, later); a success it refuses is not.
    params = {"protocolVersion": version}
    early = handshake.answerable({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params})
    try:
        expected, _ = await agent_answer(params)
    except ValidationError as exc:  # the connection answers it -32602
        assert not early, f"answered early, but the agent refuses it: {exc}"
        return
    if early:
        assert handshake.result(params) == expected


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"protocolVersion": "1"},
        {"protocolVersion": True},
        {"protocolVersion": 1, "clientCapabilities": {"terminal": "yes"}},
        {"protocolVersion": 1, "clientCapabilities": {"fs": {"readTextFile": 1}}},
        {"protocolVersion": 1, "clientInfo": {"name": "x"}},
        {"protocolVersion": 1, "clientCapabilities": {"auth": {"terminal": "yes"}}},
        {"protocolVersion": 1, "clientCapabilities": {"auth": True}},
    ],
    ids=[
        "no version",
        "string version",
        "bool version",
        "odd terminal",
        "odd fs",
        "info without version",
        "odd terminal auth",
        "odd auth",
    ],
)
def test_anything_unusual_is_left_to_the_agent(params: dict[str, Any]) -> None:
    assert not handshake.answerable({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params})


class Wire:
    """The transport's two ends in memory: lines in, messages out."""

    def __init__(self) -> None:
        self.reader = asyncio.StreamReader()
        self.sent: list[dict[str, Any]] = []

    def lines(self, *messages: dict[str, Any]) -> None:
        for message in messages:
            self.reader.feed_data(json.dumps(message).encode() + b"\n")
        self.reader.feed_eof()

    def transport(self) -> StdioLines:
        wire = self

        class Writer:
            def write(self, data: bytes) -> None:
                wire.sent.extend(json.loads(line) for line in data.splitlines())

            async def drain(self) -> None:
                pass

            def is_closing(self) -> bool:
                return False

            def close(self) -> None:
                pass

        return StdioLines(self.reader, Writer())  # type: ignore[arg-type]


async def test_answered_once_and_the_agent_still_reads_the_request(caplog: pytest.LogCaptureFixture) -> None:
    params = PARAMS["zed-like"]
    wire = Wire()
    wire.lines({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params})
    transport = await handshake.answer_early(wire.transport())
    assert [m["id"] for m in wire.sent] == [0]
    request = await transport.receive()
    assert request is not None and request["method"] == "initialize"  # replayed to the agent
    answer, front = await agent_answer(request["params"])
    assert front.terminal and front.access.read and front.access.write
    with caplog.at_level(logging.ERROR):
        await transport.send({"jsonrpc": "2.0", "id": 0, "result": answer})  # the same: dropped
        await transport.send({"jsonrpc": "2.0", "id": 0, "result": None})  # a later id 0 goes out
    assert [m.get("result") for m in wire.sent[1:]] == [None]
    assert caplog.text == ""
    assert await transport.receive() is None


async def test_a_different_agent_answer_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    wire = Wire()
    wire.lines({"jsonrpc": "2.0", "id": 3, "method": "initialize", "params": {"protocolVersion": 1}})
    transport = await handshake.answer_early(wire.transport())
    with caplog.at_level(logging.ERROR):
        await transport.send({"jsonrpc": "2.0", "id": 3, "result": {"protocolVersion": 2}})
    assert len(wire.sent) == 1 and "answered early" in caplog.text


async def test_an_unusual_first_message_is_left_unanswered() -> None:
    wire = Wire()
    wire.lines({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "1"}})
    transport = await handshake.answer_early(wire.transport())
    assert wire.sent == []
    assert (await transport.receive() or {}).get("id") == 1  # the agent gets it and answers it


@pytest.mark.parametrize(
    ("caps", "methods"),
    [
        ({}, ["agentls-config"]),
        ({"auth": {"terminal": False}}, ["agentls-config"]),
        ({"auth": {"terminal": True}}, ["agentls-config", "agentls-auth"]),
    ],
    ids=["no auth capability", "no terminal auth", "terminal auth"],
)
async def test_auth_methods_offer_a_terminal_only_to_clients_that_run_one(
    caps: dict[str, Any], methods: list[str]
) -> None:
    answer, _ = await agent_answer({"protocolVersion": 1, "clientCapabilities": caps})
    assert [m["id"] for m in answer["authMethods"]] == methods
    terminal = [m for m in answer["authMethods"] if m.get("type") == "terminal"]
    assert all(m["args"] == ["--auth"] for m in terminal)
