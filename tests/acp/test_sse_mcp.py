"""SSE MCP servers under the official ACP SDK client: passed in ``session/new`` (type ``sse``) or
configured in the project's ``agentls.json`` (``type: "remote"``, ``transport: "sse"``), and the
model calls one of their tools. The server is the tests' echo MCP server on 127.0.0.1 over HTTP+SSE.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest

from demo.fake_script import Turn
from tests.acp.conftest import Acp
from tests.unit.tools.test_mcp import serving


@pytest.fixture
async def sse_url() -> AsyncIterator[str]:
    async with serving("--sse", "/sse") as url:
        yield url


def _script(acp: Acp) -> None:
    acp.model.script(
        Turn.tool_call("sse_echo", {"text": "over sse", "times": 2}),
        Turn.text("It echoed twice."),
    )


def _check(acp: Acp, run_results: dict[str, object], tool_output: str) -> None:
    assert run_results["prompt"] == {"stopReason": "end_turn"}
    assert "over sse over sse" in tool_output
    # The tool's answer went back to the model.
    second = json.dumps(acp.model.requests[1].messages)
    assert "over sse over sse" in second


async def test_the_client_passes_an_sse_server_and_the_model_calls_its_tool(acp: Acp, sse_url: str) -> None:
    _script(acp)
    servers = [{"type": "sse", "name": "sse", "url": sse_url, "headers": [{"name": "X-Test", "value": "1"}]}]
    run = await acp.run("turn", PROMPT="echo it", MCP_SERVERS=json.dumps(servers))
    assert run.failure is None, run.failure
    assert run.results["initialize"]["agentCapabilities"]["mcpCapabilities"] == {"http": True, "sse": True}
    done = [u for u in run.updates("tool_call_update") if u.get("status") == "completed"]
    assert done, run.stderr[-4000:]
    _check(acp, run.results, json.dumps(done[-1]))
    assert run.text() == "It echoed twice."


async def test_an_sse_server_in_the_project_config_is_used_too(acp: Acp, sse_url: str) -> None:
    config = json.loads((acp.project / "agentls.json").read_text())
    config["mcp"] = {"sse": {"type": "remote", "url": sse_url, "transport": "sse"}}
    (acp.project / "agentls.json").write_text(json.dumps(config))
    _script(acp)
    run = await acp.run("turn", PROMPT="echo it")
    assert run.failure is None, run.failure
    done = [u for u in run.updates("tool_call_update") if u.get("status") == "completed"]
    assert done, run.stderr[-4000:]
    _check(acp, run.results, json.dumps(done[-1]))
