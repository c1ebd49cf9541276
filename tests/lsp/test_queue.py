"""The prompt queue through the real server: queue, list, edit and remove over the agent protocol,
``queue.*`` events, and a stock client's second ``agentls.prompt`` waiting for its own turn."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException

from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from lsp_server import errors
from tests.lsp.conftest import Connected, agent_config


@pytest.fixture
def options(model: FakeModelServer, title_model: FakeModelServer) -> Any:
    return {"config": agent_config(model, title_model)}


def _text(result: dict[str, Any]) -> str:
    return "".join(p["text"] for p in result["parts"] if p["type"] == "text")


def _prompt(plugin: Connected, sid: str, text: str, mode: str | None = None) -> asyncio.Future[Any]:
    params: dict[str, Any] = {"sessionID": sid, "parts": [{"type": "text", "text": text}]}
    if mode is not None:
        params["mode"] = mode
    return asyncio.ensure_future(plugin.client.protocol.send_request_async("agent/session/prompt", params))


async def test_queue_list_edit_and_remove_over_the_agent_protocol(
    plugin: Connected, model: FakeModelServer
) -> None:
    release = asyncio.Event()
    model.script(
        Turn.text("the long first answer", chunks=6).stall(after=2, until=release),
        Turn.text("answer one"),
        Turn.text("answer two"),
    )
    sid = str((await plugin.call("agent/session/create", {}))["id"])
    first = _prompt(plugin, sid, "go")
    await plugin.editor.wait_for(lambda: plugin.events("message.part.delta"))
    one = _prompt(plugin, sid, "tpyo", mode="queue")
    dropped = _prompt(plugin, sid, "never mind", mode="queue")
    two = _prompt(plugin, sid, "then two", mode="queue")
    await plugin.editor.wait_for(lambda: len(plugin.events("queue.added")) == 3)

    items = (await plugin.call("agent/session/queue/list", {"sessionID": sid}))["items"]
    assert [i["parts"] for i in items] == [
        [{"type": "text", "text": t}] for t in ("tpyo", "never mind", "then two")
    ]
    fixed = await plugin.call(
        "agent/session/queue/update",
        {"sessionID": sid, "queueID": items[0]["id"], "parts": [{"type": "text", "text": "then one"}]},
    )
    assert fixed["parts"] == [{"type": "text", "text": "then one"}]
    assert (
        await plugin.call("agent/session/queue/remove", {"sessionID": sid, "queueID": items[1]["id"]}) is None
    )
    with pytest.raises(JsonRpcException) as caught:
        await asyncio.wait_for(dropped, 10)
    assert caught.value.code == errors.UNQUEUED
    release.set()

    results = await asyncio.wait_for(asyncio.gather(first, one, two), 30)
    assert [_text(r) for r in results] == ["the long first answer", "answer one", "answer two"]
    assert len(model.requests) == 3
    assert "then one" in str(model.requests[1].messages) and "tpyo" not in str(model.requests[1].messages)
    assert "never mind" not in str([r.messages for r in model.requests])
    kinds = [e["type"] for e in plugin.events() if e["type"].startswith("queue.")]
    assert kinds == ["queue.added"] * 3 + ["queue.updated", "queue.removed", "queue.started", "queue.started"]
    assert (await plugin.call("agent/session/queue/list", {"sessionID": sid}))["items"] == []


async def test_stop_and_send_over_the_agent_protocol(plugin: Connected, model: FakeModelServer) -> None:
    model.script(Turn.text("a long answer that never ends", chunks=8).stall(after=2), Turn.text("right away"))
    sid = str((await plugin.call("agent/session/create", {}))["id"])
    first = _prompt(plugin, sid, "go")
    await plugin.editor.wait_for(lambda: plugin.events("message.part.delta"))
    now = _prompt(plugin, sid, "stop, do this", mode="interrupt")
    one, two = await asyncio.wait_for(asyncio.gather(first, now), 30)
    assert one["info"]["error"]["name"] == "aborted"
    assert _text(two) == "right away"


@pytest.mark.parametrize(
    ("method", "params", "code"),
    [
        ("agent/session/prompt", {"parts": [{"type": "text", "text": "x"}], "mode": "later"}, -32602),
        (
            "agent/session/queue/update",
            {"queueID": "qpr_nope", "parts": [{"type": "text", "text": "x"}]},
            -32010,
        ),
        ("agent/session/queue/update", {"queueID": "qpr_nope", "parts": []}, -32602),
        ("agent/session/queue/remove", {"queueID": "qpr_nope"}, -32010),
        ("agent/session/queue/remove", {}, -32602),
    ],
)
async def test_bad_queue_requests_get_clear_errors(
    plugin: Connected, method: str, params: dict[str, Any], code: int
) -> None:
    sid = str((await plugin.call("agent/session/create", {}))["id"])
    with pytest.raises(JsonRpcException) as caught:
        await plugin.call(method, {"sessionID": sid, **params})
    assert caught.value.code == code


async def test_queue_list_of_an_unknown_session_is_not_found(plugin: Connected) -> None:
    with pytest.raises(JsonRpcException) as caught:
        await plugin.call("agent/session/queue/list", {"sessionID": "ses_nope"})
    assert caught.value.code == errors.NOT_FOUND


async def test_a_stock_clients_second_prompt_waits_for_its_own_turn(
    vscode: Connected, model: FakeModelServer
) -> None:
    release = asyncio.Event()
    model.script(
        Turn.text("first answer", chunks=4).stall(after=2, until=release),
        Turn.text("second answer"),
    )

    def command(text: str) -> asyncio.Future[Any]:
        params = lsp.ExecuteCommandParams(command="agentls.prompt", arguments=[text])
        return asyncio.ensure_future(vscode.client.workspace_execute_command_async(params))

    first = command("go")
    await model.wait_for_requests(1, timeout=60)  # attached, a cold host starts first
    second = command("and then this")
    # The second prompt has its own progress; its turn has not started while the first streams.
    await vscode.editor.wait_for(lambda: len(vscode.client.progress_reports) == 2)
    release.set()
    one, two = await asyncio.wait_for(asyncio.gather(first, second), 30)
    assert (one["text"], two["text"]) == ("first answer", "second answer")
    assert one["sessionID"] == two["sessionID"] and one["messageID"] != two["messageID"]
    assert len(model.requests) == 2
    assert "and then this" not in str(model.requests[0].messages)
    assert "and then this" in str(model.requests[1].messages)
    shown = [m.message for m in vscode.client.messages]
    assert "first answer" in shown and "second answer" in shown
