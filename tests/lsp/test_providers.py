"""A first run over the real ``agentls serve``: no model, ``agent/providers``, then a key from the settings.

The key reaches the server only in the settings layer (``workspace/didChangeConfiguration``,
``provider.<id>.options.api_key``): it is used for the model's requests, never answered back, and
written nowhere under the data dir.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from core.llm.catalog import chat_models
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.lsp.conftest import Connected
from tests.lsp.test_settings import change_settings, errors, prompt

KEY = "sk-first-run-3f9a"


@pytest.fixture
def options(model: FakeModelServer, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    # No model at all, and no key in the environment the server inherits: a first run.
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    return {"config": {"provider": {"openai": {"options": {"api_base": model.openai_base}}}}}


async def test_first_run_lists_providers_and_takes_the_key_from_the_settings(
    vscode: Connected, model: FakeModelServer, tmp_path: Path
) -> None:
    assert (await vscode.call("agent/config", {}))["defaultModel"] in ("", None)
    listed = {p["id"]: p for p in (await vscode.call("agent/providers", {}))["providers"]}
    openai = listed["openai"]
    assert openai["configured"] is True and openai["hasKey"] is False
    assert openai["keyEnv"] == "OPENAI_API_KEY" and "gpt-4o-mini" in openai["models"]
    assert "anthropic" in listed and any(m.startswith("claude") for m in listed["anthropic"]["models"])
    assert all("/" not in m for p in listed.values() for m in p["models"])

    options = {"api_base": model.openai_base, "api_key": KEY}
    config = {"model": "openai/gpt-4o-mini", "provider": {"openai": {"options": options}}}
    change_settings(vscode, {"config": config})
    assert (await vscode.call("agent/config", {}))["defaultModel"] == "openai/gpt-4o-mini"
    after = {p["id"]: p for p in (await vscode.call("agent/providers", {}))["providers"]}
    assert after["openai"]["hasKey"] is True and KEY not in str(after)

    model.script(Turn.text("Hello, first run."))
    assert (await prompt(vscode, "hi"))["text"] == "Hello, first run."
    assert model.requests[0].headers["authorization"] == f"Bearer {KEY}"
    assert errors(vscode) == []
    stored = [f for f in (tmp_path / "data").rglob("*") if f.is_file() and KEY.encode() in f.read_bytes()]
    assert stored == []


def test_chat_models_are_named_as_a_reference_names_them() -> None:
    model_map = {
        "gpt-4o": {"mode": "chat", "litellm_provider": "openai"},
        "text-embedding-3": {"mode": "embedding", "litellm_provider": "openai"},
        "gemini/gemini-2.5-flash": {"mode": "chat", "litellm_provider": "gemini"},
        "openrouter/anthropic/claude": {"mode": "chat", "litellm_provider": "openrouter"},
        "sample_spec": "not a model",
    }
    assert chat_models(model_map) == {"openai": ["gpt-4o"], "gemini": ["gemini-2.5-flash"]}
