"""A prompt sent the moment a rejected turn ends: each prompt gets an assistant answer of its own."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.lsp.conftest import Connected, agent_config


@pytest.fixture
def options(model: FakeModelServer, title_model: FakeModelServer) -> Any:
    return {"config": agent_config(model, title_model, permission={"bash": "ask"})}


def _text(result: dict[str, Any]) -> str:
    return "".join(p["text"] for p in result["parts"] if p["type"] == "text")


@pytest.mark.parametrize("attempt", range(3))
async def test_a_prompt_sent_as_a_rejected_turn_ends_gets_its_own_answer(
    plugin: Connected, model: FakeModelServer, attempt: int
) -> None:
    model.script(Turn.tool_call("bash", {"command": "echo hi", "description": "say hi"}), Turn.text("second"))
    sid = str((await plugin.call("agent/session/create", {}))["id"])
    protocol = plugin.client.protocol

    def prompt(text: str) -> asyncio.Future[Any]:
        params = {"sessionID": sid, "parts": [{"type": "text", "text": text}]}
        return asyncio.ensure_future(protocol.send_request_async("agent/session/prompt", params))

    first = prompt("run it")
    (asked,) = await plugin.editor.wait_for(lambda: plugin.events("permission.asked"))
    reply = {"requestID": asked["properties"]["request"]["id"], "reply": "reject"}
    # Both frames leave in the same write: the second prompt arrives as the rejected turn ends.
    rejected = asyncio.ensure_future(protocol.send_request_async("agent/permission/reply", reply))
    second = prompt("then this")
    one, two, _ = await asyncio.wait_for(asyncio.gather(first, second, rejected), 30)

    assert one["info"]["role"] == "assistant", one
    assert two["info"]["role"] == "assistant", two
    assert one["info"]["id"] != two["info"]["id"]
    assert _text(two) == "second"
    assert len(model.requests) == 2  # the second prompt reached the model
    assert "then this" in str(model.requests[1].messages)
