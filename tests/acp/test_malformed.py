"""Malformed input is answered with JSON-RPC errors, and the agent keeps serving.

A client library never sends such bytes, so this test writes them itself to the real
``agentls acp`` process, then checks that well-formed requests after them are answered.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.acp.conftest import AGENT

GARBAGE = [
    b"this is not json\n",
    b"[1, 2, 3]\n",
    b'"a string"\n',
    b'{"jsonrpc": "2.0", "id": 5}\n',
    b'{"jsonrpc": "1.0", "id": 6, "method": "initialize", "params": {"protocolVersion": 1}}\n',
    b'{"jsonrpc": "2.0", "id": 7, "method": "no/such/method", "params": {}}\n',
    b'{"jsonrpc": "2.0", "id": 8, "method": "session/new", "params": {"cwd": 5, "mcpServers": []}}\n',
    b'{"jsonrpc": "2.0", "id": 9, "method": "session/prompt",'
    b' "params": {"sessionId": "ses_x", "prompt": []}}\n',
    b'{"jsonrpc": "2.0", "id": 10, "method": "session/new",'
    b' "params": {"cwd": "relative/dir", "mcpServers": []}}\n',
    b'{"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "ses_unknown"}}\n',
    b'{"jsonrpc": "2.0", "id": 11, "method": "initialize", "params": {"protocolVersion": 1}}\n',
]


async def read_answers(stdout: asyncio.StreamReader, count: int) -> list[dict[str, Any]]:
    answers = []
    async with asyncio.timeout(30):
        while len(answers) < count:
            line = await stdout.readline()
            assert line, "the agent closed its output"
            answers.append(json.loads(line))
    return answers


async def test_malformed_messages_get_errors_and_the_agent_keeps_serving(tmp_path: Path) -> None:
    proc = await asyncio.create_subprocess_exec(
        *AGENT,
        "--data-dir",
        str(tmp_path / "data"),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        cwd=tmp_path,
        env={**os.environ, "AGENTLS_CONFIG_DIR": str(tmp_path / "config")},
    )
    assert proc.stdin is not None and proc.stdout is not None
    for line in GARBAGE:
        proc.stdin.write(line)
    await proc.stdin.drain()
    answers = await read_answers(proc.stdout, 10)  # every line but the notification is answered
    by_id: dict[Any, list[dict[str, Any]]] = {}
    for answer in answers:
        by_id.setdefault(answer["id"], []).append(answer)
    nulls = [a["error"]["code"] for a in by_id.pop(None)]
    assert sorted(nulls) == [-32700, -32600, -32600]  # not JSON, a batch, a bare string
    assert by_id[5][0]["error"]["code"] == -32600  # neither a request nor a response
    assert by_id[6][0]["error"]["code"] == -32600  # wrong jsonrpc version
    assert by_id[7][0]["error"]["code"] == -32601
    assert by_id[8][0]["error"]["code"] == -32602  # the schema's check
    assert by_id[9][0]["error"]["code"] == -32002  # unknown session
    assert by_id[10][0]["error"]["code"] == -32602
    assert "absolute" in by_id[10][0]["error"]["message"]
    assert by_id[11][0]["result"]["protocolVersion"] == 1  # still serving
    # A client asking for a newer protocol is answered with the version the agent speaks.
    proc.stdin.write(
        b'{"jsonrpc": "2.0", "id": 12, "method": "initialize", "params": {"protocolVersion": 7}}\n'
    )
    await proc.stdin.drain()
    (answer,) = await read_answers(proc.stdout, 1)
    assert answer == {"jsonrpc": "2.0", "id": 12, "result": answer["result"]}
    assert answer["result"]["protocolVersion"] == 1
    proc.stdin.close()
    assert await asyncio.wait_for(proc.wait(), 30) == 0


async def start_agent(tmp_path: Path) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        *AGENT,
        "--data-dir",
        str(tmp_path / "data"),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        cwd=tmp_path,
        env={**os.environ, "AGENTLS_CONFIG_DIR": str(tmp_path / "config")},
        limit=1024 * 1024,
    )


@pytest.mark.parametrize("depth", [1_000, 5_000, 100_000])
@pytest.mark.parametrize("first", [True, False], ids=["first-line", "after-initialize"])
async def test_a_deeply_nested_line_is_answered_and_the_agent_goes_on(
    tmp_path: Path, depth: int, first: bool
) -> None:
    proc = await start_agent(tmp_path)
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    init = b'{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}\n'
    deep = b'{"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {"x": '
    deep += b"[" * depth + b"]" * depth + b"}}\n"
    proc.stdin.write(deep + init if first else init + deep)
    await proc.stdin.drain()
    answers = {a["id"]: a for a in await read_answers(proc.stdout, 2)}
    assert answers[None]["error"]["code"] == -32700, answers
    assert "nest" in answers[None]["error"]["data"]["details"], answers
    assert answers[1]["result"]["protocolVersion"] == 1
    proc.stdin.write(b'{"jsonrpc": "2.0", "id": 3, "method": "session/list", "params": {}}\n')
    await proc.stdin.drain()
    (listed,) = await read_answers(proc.stdout, 1)
    assert listed["id"] == 3 and "result" in listed, listed
    proc.stdin.close()
    assert await asyncio.wait_for(proc.wait(), 30) == 0
    assert b"Traceback" not in await proc.stderr.read()
