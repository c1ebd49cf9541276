"""The server over stdio without a model: capabilities, validation, sessions, config."""

from __future__ import annotations

from typing import Any

import pytest
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException

from lsp_server import errors, methods
from tests.lsp.conftest import Connected
from tests.lsp.editor import PLUGIN

# One malformed params object per request, and the field the error must name.
MALFORMED: list[tuple[str, Any, str]] = [
    ("agent/session/create", {"title": 5}, "title"),
    ("agent/session/list", {"limit": "many"}, "limit"),
    ("agent/session/get", {}, "sessionID"),
    ("agent/session/delete", {"sessionID": 1}, "sessionID"),
    ("agent/session/fork", {"sessionID": "ses_x", "messageID": []}, "messageID"),
    ("agent/session/messages", {"sessionID": "ses_x", "limit": 0}, "limit"),
    ("agent/session/prompt", {"sessionID": "ses_x", "parts": [{"type": "text"}]}, "parts.0.text"),
    ("agent/session/prompt", {"sessionID": "ses_x", "parts": [{"type": "video"}]}, "parts.0"),
    ("agent/session/prompt", {"sessionID": "ses_x", "parts": []}, "parts"),
    ("agent/session/abort", [], "params"),
    ("agent/session/compact", {"sessionID": ""}, "sessionID"),
    ("agent/session/command", {"sessionID": "ses_x"}, "command"),
    ("agent/session/command", {"sessionID": "ses_x", "command": "x", "arguments": 3}, "arguments"),
    ("agent/session/revert", {"sessionID": "ses_x"}, "messageID"),
    ("agent/session/unrevert", None, "sessionID"),
    ("agent/session/diff", {"sessionID": "ses_x", "messageID": 3}, "messageID"),
    ("agent/session/todo", {"session": "ses_x"}, "sessionID"),
    ("agent/session/search", {"query": ""}, "query"),
    ("agent/session/search", {"query": "x", "limit": 500}, "limit"),
    ("agent/session/export", {"sessionID": "ses_x", "format": "pdf"}, "format"),
    ("agent/permission/reply", {"requestID": "per_x", "reply": "maybe"}, "reply"),
    ("agent/permission/list", "all", "params"),
    ("agent/question/reply", {"requestID": "que_x", "answers": "yes"}, "answers"),
    ("agent/question/reject", {}, "requestID"),
    ("agent/question/list", 3, "params"),
    ("agent/config", [1], "params"),
    ("agent/review/list", {}, "sessionID"),
    ("agent/review/keep", {"sessionID": "ses_x", "hunkIDs": "all"}, "hunkIDs"),
    ("agent/review/undo", {"sessionID": "ses_x", "uri": 7}, "uri"),
]


async def test_initialize_announces_the_agent_protocol(server: Connected) -> None:
    caps = server.result.capabilities
    assert caps.experimental["agent"]["version"] == 1
    assert caps.experimental["agent"]["events"] is True
    # The full server lists the handlers it registered; every one is a line of the table.
    assert caps.experimental["agent"]["methods"] == methods.announced()
    assert caps.execute_command_provider is not None
    assert set(caps.execute_command_provider.commands) >= {
        "agentls.prompt",
        "agentls.abort",
        "agentls.newSession",
        "agentls.compact",
    }
    assert caps.code_action_provider
    sync = caps.text_document_sync
    assert sync is not None and getattr(sync, "change", sync) == 1  # Full
    assert server.result.server_info is not None and server.result.server_info.name == "agentls"


# A refused request changes nothing the server holds: every case asks the same server.
@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize(("method", "params", "field"), MALFORMED, ids=[f"{m}-{f}" for m, _, f in MALFORMED])
async def test_malformed_params_are_invalid_params_naming_the_field(
    shared_plugin: Connected, method: str, params: Any, field: str
) -> None:
    with pytest.raises(JsonRpcException) as caught:
        await shared_plugin.call(method, params)
    assert caught.value.code == errors.INVALID_PARAMS
    assert field in caught.value.message
    # ...and the server keeps serving, with nothing created.
    assert await shared_plugin.call("agent/session/list", {}) == {"sessions": []}


async def test_malformed_command_arguments(plugin: Connected) -> None:
    bad = [("agentls.prompt", []), ("agentls.prompt", [{"text": ""}]), ("agentls.fix", [{}])]
    for command, arguments in bad:
        with pytest.raises(JsonRpcException) as caught:
            await plugin.client.workspace_execute_command_async(
                lsp.ExecuteCommandParams(command=command, arguments=arguments)
            )
        assert caught.value.code == errors.INVALID_PARAMS
    assert "sessions" in await plugin.call("agent/session/list", {})


async def test_session_lifecycle(server: Connected) -> None:
    created = await server.call("agent/session/create", {"title": "first"})
    assert created["title"] == "first" and created["id"].startswith("ses")
    assert await server.call("agent/session/get", {"sessionID": created["id"]}) == created
    listed = await server.call("agent/session/list", {"limit": 10})
    assert [s["id"] for s in listed["sessions"]] == [created["id"]]
    assert await server.call("agent/session/messages", {"sessionID": created["id"]}) == {"messages": []}
    assert await server.call("agent/session/todo", {"sessionID": created["id"]}) == {"todos": []}
    forked = await server.call("agent/session/fork", {"sessionID": created["id"]})
    assert forked["id"] != created["id"]
    assert await server.call("agent/session/delete", {"sessionID": created["id"]}) is None
    with pytest.raises(JsonRpcException) as caught:
        await server.call("agent/session/get", {"sessionID": created["id"]})
    assert caught.value.code == errors.NOT_FOUND
    assert caught.value.data["name"] == "NotFoundError"
    if server.profile == PLUGIN:
        types = [e["type"] for e in server.events()]
        assert "session.created" in types and "session.deleted" in types
    else:
        assert server.events() == []  # plain clients are not sent the custom notification


async def test_unknown_ids_are_not_found(plugin: Connected) -> None:
    for method, params in [
        ("agent/session/messages", {"sessionID": "ses_missing"}),
        ("agent/session/abort", {"sessionID": "ses_missing"}),
        ("agent/permission/reply", {"requestID": "per_missing", "reply": "once"}),
        ("agent/question/reply", {"requestID": "que_missing", "answers": [["a"]]}),
        ("agent/question/reject", {"requestID": "que_missing"}),
    ]:
        with pytest.raises(JsonRpcException) as caught:
            await plugin.call(method, params)
        assert caught.value.code == errors.NOT_FOUND, method


async def test_config_and_pending_lists(plugin: Connected) -> None:
    config = await plugin.call("agent/config", {})
    assert {"agents", "models", "defaultAgent", "defaultModel"} <= set(config)
    assert any(agent["name"] == config["defaultAgent"] for agent in config["agents"])
    assert await plugin.call("agent/permission/list") == {"requests": []}
    assert await plugin.call("agent/question/list", {}) == {"requests": []}


@pytest.mark.parametrize(
    "options",
    [
        {
            "config": {
                "model": "fake/m",
                "provider": {"fake": {}},
                "agent": {"x": {"mode": "primary", "model": "fake/other"}},
            }
        }
    ],
)
async def test_initialization_options_are_the_top_config_layer(plugin: Connected) -> None:
    config = await plugin.call("agent/config", {})
    assert config["defaultModel"] == "fake/m"
    agents = {agent["name"]: agent for agent in config["agents"]}
    assert agents["x"]["model"] == "fake/other"  # an agent's own model, which its prompts use
    assert agents["build"]["model"] is None


@pytest.mark.parametrize("options", [{"config": {"model": 42}}])
async def test_a_bad_config_is_reported_on_every_request(plugin: Connected) -> None:
    with pytest.raises(JsonRpcException) as caught:
        await plugin.call("agent/session/list", {})
    assert caught.value.code == errors.INVALID_PARAMS
    assert "model" in caught.value.message
    assert "sessions" not in str(caught.value.data)
