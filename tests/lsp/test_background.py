"""``agent/background/*`` over the real server: the roster and the shells a client lists, a message
queued into a running sub-agent, stopping a shell and a sub-agent, the events on the way, every
answer checked against the generated schema, and clear errors for ids that do not exist."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pygls.exceptions import JsonRpcException

from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.e2e.test_background_agents import sleeper, wait_for_file
from tests.e2e.test_background_shells import running
from tests.lsp.conftest import Connected, agent_config
from tests.lsp.test_protocol_results import SCHEMA, problems


@pytest.fixture
def options(model: FakeModelServer, title_model: FakeModelServer) -> Any:
    return {"config": agent_config(model, title_model)}


def result_problems(method: str, answer: Any) -> list[str]:
    return problems(SCHEMA["methods"][method]["result"], answer)


async def test_a_client_lists_messages_and_stops_background_work(
    plugin: Connected, model: FakeModelServer, tmp_path: Path
) -> None:
    gate = plugin.root / "gate"
    marker = f"lspbg{abs(hash(str(tmp_path))) % 10**8}"
    job = {"description": "long job", "prompt": "JOB-L: work", "subagent_type": "general", "background": True}
    model.script(Turn.tool_call("task", job), Turn.text("Started it."), Turn.text("Noted."))
    model.script_for(
        "JOB-L",
        Turn.tool_call("bash", {"command": sleeper(marker), "background": True, "description": "serve"}),
        Turn.tool_call("bash", {"command": wait_for_file(gate), "description": "wait"}),
        Turn.text("L is done."),
    )
    sid = (await plugin.call("agent/session/create", {}))["id"]
    await plugin.call("agent/session/prompt", {"sessionID": sid, "parts": [{"type": "text", "text": "go"}]})

    def waiting() -> Any:
        updates = plugin.events("background.agent.updated")
        return next((e for e in updates if e["properties"]["agent"].get("step") == 1), None)

    child = (await plugin.editor.wait_for(waiting))["properties"]["agent"]["sessionID"]
    listed = await plugin.call("agent/background/list", {"sessionID": sid})
    assert not result_problems("agent/background/list", listed)
    assert [(a["sessionID"], a["status"]) for a in listed["agents"]] == [(child, "running")]
    assert listed["shells"] == []  # the shell is the sub-agent's, listed with its own session
    everything = await plugin.call("agent/background/list", {})
    [shell] = everything["shells"]
    assert shell["sessionID"] == child and shell["status"] == "running" and marker in shell["command"]

    stopped = await plugin.call("agent/background/shell/stop", {"shellID": shell["id"]})
    assert not result_problems("agent/background/shell/stop", stopped)
    assert stopped["status"] == "stopped" and running(marker) == []

    # A message queued into the running sub-agent: its next step (after the gate) sees it.
    await plugin.call("agent/background/message", {"sessionID": child, "text": "MSG-7: also check B"})
    gate.write_text("open")
    await plugin.editor.wait_for(lambda: plugin.events("background.agent.ended"))
    assert any("MSG-7" in json.dumps(r.messages) for r in model.requests if "JOB-L" in r.first_user_text)
    [ended] = plugin.events("background.agent.ended")
    assert ended["properties"]["summary"] == "L is done." and ended["properties"]["sessionID"] == sid

    # Ended: a message is refused with the reason; stopping again answers its state.
    with pytest.raises(JsonRpcException) as caught:
        await plugin.call("agent/background/message", {"sessionID": child, "text": "more"})
    assert caught.value.code == -32602 and "has ended (completed)" in caught.value.message
    again = await plugin.call("agent/background/stop", {"sessionID": child})
    assert not result_problems("agent/background/stop", again) and again["status"] == "completed"
    for event in plugin.events():
        assert not problems({"$ref": "#/$defs/AgentEvent"}, event), event


@pytest.mark.parametrize(
    ("method", "params", "message"),
    [
        ("agent/background/stop", {"sessionID": "ses_nope"}, "there is no background sub-agent ses_nope"),
        ("agent/background/message", {"sessionID": "ses_nope", "text": "hi"}, "no background sub-agent"),
        ("agent/background/shell/stop", {"shellID": "shell_99"}, "there is no background shell 'shell_99'"),
        ("agent/background/list", {"sessionID": "ses_nope"}, "ses_nope"),
    ],
)
async def test_unknown_ids_are_not_found(
    plugin: Connected, method: str, params: dict[str, Any], message: str
) -> None:
    with pytest.raises(JsonRpcException) as caught:
        await plugin.call(method, params)
    assert caught.value.code == -32010 and message in caught.value.message


async def test_an_empty_message_is_invalid_params(plugin: Connected) -> None:
    with pytest.raises(JsonRpcException) as caught:
        await plugin.call("agent/background/message", {"sessionID": "ses_x", "text": ""})
    assert caught.value.code == -32602 and "text" in caught.value.message
