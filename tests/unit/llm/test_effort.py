"""Effort levels: which models offer which, how a level maps per provider, and Gemini's request as
litellm sends it (recorded at the fake server; the lean routes are covered in tests/lsp/test_effort.py)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from core.config.schema import Config
from core.errors import ConfigError, InvalidInputError, ProviderError
from core.llm import effort
from core.llm.litellm_route import load_litellm
from core.llm.model import resolve_model
from core.llm.request import LLMRequest
from core.llm.stream import stream
from demo import FakeModelServer

KEYS = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY", "gemini": "GEMINI_API_KEY"}


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (*KEYS.values(), "DEEPSEEK_API_KEY"):
        monkeypatch.setenv(name, "offline")


@pytest.mark.parametrize(
    ("ref", "levels"),
    [
        ("anthropic/claude-sonnet-4-5", ["off", "low", "medium", "high", "max"]),
        ("openai/gpt-5", ["low", "medium", "high"]),
        ("openai/o3-mini", ["low", "medium", "high"]),
        ("openai/gpt-4o", []),  # no reasoning: nothing to set
        ("gemini/gemini-2.5-flash", ["off", "low", "medium", "high", "max"]),
        ("gemini/gemini-2.5-pro", ["low", "medium", "high", "max"]),  # Pro cannot stop thinking
        ("deepseek/deepseek-chat", ["off", "on"]),
        ("deepseek/deepseek-reasoner", []),  # always thinks
        ("dashscope/qwen3-max", ["off", "low", "medium", "high", "max"]),
    ],
)
def test_levels_follow_the_model_map(ref: str, levels: list[str]) -> None:
    assert effort.levels(resolve_model(Config(), ref)) == levels


def test_a_model_option_names_the_style_of_an_unknown_model() -> None:
    def model(option: Any) -> Any:
        config = {
            "provider": {
                "local": {"litellm_provider": "openai", "options": {"api_base": "http://127.0.0.1:9"}}
            }
        }
        config["provider"]["local"]["models"] = {"m": {"options": {"agentls_thinking": option}}}
        return resolve_model(Config.model_validate(config), "local/m")

    assert effort.levels(model("qwen")) == ["off", "low", "medium", "high", "max"]
    assert effort.levels(model("none")) == []
    with pytest.raises(ConfigError, match="agentls_thinking must be one of anthropic, openai"):
        effort.levels(model("fast"))


def test_check_names_the_levels() -> None:
    gpt5 = resolve_model(Config(), "openai/gpt-5")
    assert effort.check(gpt5, "high") == "high"
    with pytest.raises(
        InvalidInputError, match="'off' is not offered by openai/gpt-5; its levels: low, medium, high"
    ):
        effort.check(gpt5, "off")
    with pytest.raises(InvalidInputError, match="openai/gpt-4o has no effort levels"):
        effort.check(resolve_model(Config(), "openai/gpt-4o"), "low")


@pytest.mark.parametrize(
    ("level", "offered", "fitted"),
    [
        ("max", ["low", "medium", "high"], "high"),
        ("off", ["low", "medium", "high"], "low"),
        ("medium", ["off", "on"], "on"),
        ("off", ["off", "on"], "off"),
        ("on", ["off", "low", "medium", "high", "max"], "high"),
        ("high", [], None),
    ],
)
def test_a_level_fits_another_model_nearest(level: str, offered: list[str], fitted: str | None) -> None:
    assert effort.fit(level, offered) == fitted


def test_an_anthropic_budget_needs_room_below_the_output_limit() -> None:
    claude = resolve_model(Config(), "anthropic/claude-sonnet-4-5")
    assert effort.request_options(claude, "high", 4_000, {}).options == {
        "thinking": {"type": "enabled", "budget_tokens": 2_976}
    }
    with pytest.raises(InvalidInputError, match="needs an output limit above 2048"):
        effort.request_options(claude, "low", 1_500, {})


def test_a_users_extra_body_is_kept() -> None:
    deepseek = resolve_model(Config(), "deepseek/deepseek-chat")
    out = effort.request_options(deepseek, "on", None, {"extra_body": {"user_id": "me"}})
    assert out.options == {"extra_body": {"user_id": "me", "thinking": {"type": "enabled"}}}
    assert effort.request_options(deepseek, None, None, {}).options == {}


@pytest.mark.parametrize(
    ("level", "budget"), [("off", 0), ("low", 1024), ("medium", 8192), ("high", 16384), ("max", 24576)]
)
async def test_gemini_receives_a_thinking_budget(level: str, budget: int) -> None:
    await load_litellm()
    async with FakeModelServer() as srv:
        provider = {"litellm_provider": "gemini", "options": {"api_base": srv.base_url, "api_key": "offline"}}
        model = resolve_model(Config.model_validate({"provider": {"gem": provider}}), "gem/gemini-2.5-flash")
        options = effort.request_options(model, level, 8_000, {}).options
        request = LLMRequest(
            model=model, system=["s"], messages=[{"role": "user", "content": "hi"}], options=options
        )
        with pytest.raises(
            ProviderError
        ):  # the fake server does not speak Gemini: the request is what counts
            async for _ in stream(request, asyncio.Event()):
                pass
        (sent,) = srv.requests
    assert sent.path.endswith(":streamGenerateContent")
    assert sent.body["generationConfig"]["thinkingConfig"]["thinkingBudget"] == budget
