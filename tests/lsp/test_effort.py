"""agent/session/effort through the real server: the levels a model offers, and what each provider's
request carries for each level (recorded at the fake model server)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pygls.exceptions import JsonRpcException

from demo.config import fake_model_config
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.lsp.conftest import Connected, connect
from tests.lsp.editor import PLUGIN

# What the body of the request carries for each level (None: the key is absent).
EXPECTED: dict[str, dict[str, dict[str, Any]]] = {
    "openai": {
        "low": {"reasoning_effort": "low"},
        "medium": {"reasoning_effort": "medium"},
        "high": {"reasoning_effort": "high"},
    },
    "anthropic": {
        "off": {"thinking": {"type": "disabled"}, "temperature": 0.3},
        "low": {"thinking": {"type": "enabled", "budget_tokens": 2048}, "temperature": None},
        "medium": {"thinking": {"type": "enabled", "budget_tokens": 8192}, "temperature": None},
        "high": {"thinking": {"type": "enabled", "budget_tokens": 16384}, "temperature": None},
        # The budget stays below max_tokens (32,000 here) with room for the answer.
        "max": {"thinking": {"type": "enabled", "budget_tokens": 30976}, "temperature": None},
    },
    "deepseek": {
        "off": {"thinking": {"type": "disabled"}},
        "on": {"thinking": {"type": "enabled"}},
    },
    "qwen": {
        "off": {"enable_thinking": False, "thinking_budget": None},
        "low": {"enable_thinking": True, "thinking_budget": 1024},
        "medium": {"enable_thinking": True, "thinking_budget": 4096},
        "high": {"enable_thinking": True, "thinking_budget": 16384},
        "max": {"enable_thinking": True, "thinking_budget": 38912},
    },
}


def _config(model: FakeModelServer, titles: FakeModelServer, thinking: str | None) -> dict[str, Any]:
    route = "anthropic" if thinking == "anthropic" else "openai"
    config = fake_model_config(model, titles, route=route, output=40_000)
    entry = config["provider"]["fake"]["models"]["m"]
    if thinking is not None:
        entry["options"] = {"agentls_thinking": thinking}
    config["agent"] = {"build": {"temperature": 0.3}}  # thinking drops it for Anthropic
    return config


async def _prompt(server: Connected, sid: str) -> None:
    params = {"sessionID": sid, "parts": [{"type": "text", "text": "think"}]}
    await server.call("agent/session/prompt", params, timeout=60)


@pytest.mark.parametrize("style", list(EXPECTED))
async def test_each_level_reaches_the_provider_as_its_own_switch(
    tmp_path: Path, project: Path, model: FakeModelServer, title_model: FakeModelServer, style: str
) -> None:
    options = {"config": _config(model, title_model, style)}
    async for server in connect(tmp_path, project, PLUGIN, options):
        sid = str((await server.call("agent/session/create", {}))["id"])
        state = await server.call("agent/session/effort", {"sessionId": sid})
        assert state["effort"] == "default" and state["levels"] == list(EXPECTED[style])
        model.script(Turn.text("plain"))
        await _prompt(server, sid)  # never chosen: nothing is added
        body = model.requests[-1].body
        assert not {"reasoning_effort", "thinking", "enable_thinking"} & set(body)
        for level, expected in EXPECTED[style].items():
            state = await server.call("agent/session/effort", {"sessionID": sid, "effort": level})
            assert (state["sessionID"], state["effort"]) == (sid, level)
            model.script(Turn.text(f"thought {level}"))
            await _prompt(server, sid)
            body = model.requests[-1].body
            assert {key: body.get(key) for key in expected} == expected, level
        events = [e["properties"] for e in server.events("session.effort")]
        assert events[-1] == {"sessionID": sid, "effort": level, "levels": list(EXPECTED[style])}


async def test_an_unsupported_level_names_the_levels(
    tmp_path: Path, project: Path, model: FakeModelServer, title_model: FakeModelServer
) -> None:
    async for server in connect(tmp_path, project, PLUGIN, {"config": _config(model, title_model, "openai")}):
        sid = str((await server.call("agent/session/create", {}))["id"])
        with pytest.raises(JsonRpcException) as caught:
            await server.call("agent/session/effort", {"sessionID": sid, "effort": "max"})
        assert caught.value.code == -32602
        assert "'max' is not offered by fake/m; its levels: low, medium, high" in caught.value.message
        assert (await server.call("agent/session/effort", {"sessionID": sid}))["effort"] == "default"
        assert server.events("session.effort") == []


async def test_a_model_without_thinking_control_has_no_levels(
    tmp_path: Path, project: Path, model: FakeModelServer, title_model: FakeModelServer
) -> None:
    async for server in connect(tmp_path, project, PLUGIN, {"config": _config(model, title_model, None)}):
        sid = str((await server.call("agent/session/create", {}))["id"])
        assert (await server.call("agent/session/effort", {"sessionID": sid}))["levels"] == []
        with pytest.raises(JsonRpcException) as caught:
            await server.call("agent/session/effort", {"sessionID": sid, "effort": "high"})
        assert caught.value.code == -32602 and "fake/m has no effort levels" in caught.value.message


async def test_the_levels_follow_the_model_the_client_names_for_the_next_prompt(
    tmp_path: Path, project: Path, model: FakeModelServer, title_model: FakeModelServer
) -> None:
    async for server in connect(tmp_path, project, PLUGIN, {"config": _config(model, title_model, "openai")}):
        sid = str((await server.call("agent/session/create", {}))["id"])
        model.script(Turn.text("plain"))
        await _prompt(server, sid)  # the last prompt went to fake/m, which has levels
        state = await server.call("agent/session/effort", {"sessionID": sid, "model": "titles/t"})
        assert (state["model"], state["levels"]) == ("titles/t", [])
        with pytest.raises(JsonRpcException) as caught:
            await server.call(
                "agent/session/effort", {"sessionID": sid, "effort": "high", "model": "titles/t"}
            )
        assert "titles/t has no effort levels" in caught.value.message
        state = await server.call("agent/session/effort", {"sessionID": sid})
        assert (state["model"], state["levels"]) == ("fake/m", ["low", "medium", "high"])
