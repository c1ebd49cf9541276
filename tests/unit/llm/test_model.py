"""resolve_model / resolve_small_model: config providers, litellm passthrough, keys, limits, prices."""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path

import pytest

from core.config.schema import Config
from core.errors import ConfigError, ProviderError
from core.llm.model import resolve_model, resolve_small_model

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(autouse=True)
def _no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "OPENROUTER_API_KEY"):
        monkeypatch.delenv(name, raising=False)


def test_a_config_provider_maps_to_its_litellm_provider_and_endpoint(
    caplog: pytest.LogCaptureFixture,
) -> None:
    config = Config.model_validate(
        {
            "provider": {
                "local": {"litellm_provider": "openai", "options": {"api_base": "http://127.0.0.1:9/v1"}}
            }
        }
    )
    with caplog.at_level(logging.WARNING, logger="core.llm.model"):
        model = resolve_model(config, "local/m")
    assert (model.api_model, model.route, model.api_base, model.wire_model) == (
        "openai/m",
        "openai",
        "http://127.0.0.1:9/v1",
        "m",
    )
    assert model.api_key is None  # a local endpoint needs no key
    assert (model.limit.context, model.limit.output) == (128_000, 8_192)
    assert "no token limits known for local/m" in caplog.text
    assert not model.supports_cache_control and not model.supports_media_in_tool_results


def test_config_limits_and_prices_per_million_become_per_token() -> None:
    config = Config.model_validate(
        {
            "provider": {
                "p": {
                    "litellm_provider": "anthropic",
                    "options": {
                        "api_base": "http://x",
                        "api_key": "k",
                        "headers": {"x-team": "a"},
                        "timeout": 5,
                    },
                    "models": {
                        "claude-x": {
                            "limit": {"context": 1000, "input": 800, "output": 100},
                            "cost": {"input": 3, "output": 15},
                            "options": {"thinking": {"type": "enabled", "budget_tokens": 1024}},
                        }
                    },
                }
            }
        }
    )
    model = resolve_model(config, "p/claude-x")
    assert (model.limit.context, model.limit.input, model.limit.output) == (1000, 800, 100)
    assert model.cost.input == pytest.approx(3e-6) and model.cost.output == pytest.approx(15e-6)
    assert model.cost.cache_read == pytest.approx(3e-6)  # unpriced cache reads cost what input costs
    assert model.route == "anthropic" and model.api_key == "k" and model.headers == {"x-team": "a"}
    assert model.timeout == 5 and model.options["thinking"]["budget_tokens"] == 1024
    assert model.supports_cache_control and model.family == "anthropic"
    assert "api_key" not in repr(model)  # keys stay out of logs


def test_litellm_passthrough_takes_limits_and_prices_from_the_model_map(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant")
    model = resolve_model(Config(), "anthropic/claude-sonnet-4-5")
    assert (model.route, model.api_base, model.api_key) == (
        "anthropic",
        "https://api.anthropic.com",
        "sk-ant",
    )
    assert (model.limit.context, model.limit.output) == (200_000, 64_000)
    assert model.cost.input == pytest.approx(3e-6) and model.cost.cache_read == pytest.approx(3e-7)
    assert model.supports_cache_control and model.supports_media_in_tool_results


@pytest.mark.parametrize(
    ("ref", "env", "route", "family"),
    [
        ("openai/gpt-4o-mini", "OPENAI_API_KEY", "openai", "openai"),
        ("openai/gpt-5", "OPENAI_API_KEY", "openai", "openai-reasoning"),
        ("gemini/gemini-2.5-flash", "GEMINI_API_KEY", "litellm", "gemini"),
        ("openrouter/anthropic/claude-sonnet-4.5", "OPENROUTER_API_KEY", "litellm", "anthropic"),
    ],
)
def test_routes_and_families(
    monkeypatch: pytest.MonkeyPatch, ref: str, env: str, route: str, family: str
) -> None:
    monkeypatch.setenv(env, "key")
    model = resolve_model(Config(), ref)
    assert (model.route, model.family) == (route, family)
    assert model.supports_cache_control == (family == "anthropic")


@pytest.mark.parametrize(
    ("ref", "variable"),
    [("anthropic/claude-sonnet-4-5", "ANTHROPIC_API_KEY"), ("gemini/gemini-2.5-flash", "GEMINI_API_KEY")],
)
def test_a_missing_key_names_the_variable_to_set(ref: str, variable: str) -> None:
    with pytest.raises(ProviderError) as caught:
        resolve_model(Config(), ref)
    assert caught.value.kind == "auth" and variable in str(caught.value)


def test_bad_references_and_routes_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="provider/model"):
        resolve_model(Config(), "gpt-4o")
    config = Config.model_validate(
        {"provider": {"p": {"options": {"api_base": "http://x", "agentls_route": "x"}}}}
    )
    with pytest.raises(ConfigError, match="agentls_route"):
        resolve_model(config, "p/m")


def test_small_model_prefers_config_then_a_cheap_sibling_then_the_main_model(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    main = resolve_model(Config(), "anthropic/claude-sonnet-4-5")
    assert resolve_small_model(Config(), main).model_id == "claude-haiku-4-5"
    gpt = resolve_model(Config(), "openai/gpt-5")
    assert resolve_small_model(Config(), gpt).model_id == "gpt-5-mini"
    configured = Config(small_model="openai/gpt-4o-mini")
    assert resolve_small_model(configured, main).api_model == "openai/gpt-4o-mini"
    local = Config.model_validate(
        {"provider": {"local": {"litellm_provider": "openai", "options": {"api_base": "http://x"}}}}
    )
    local_main = resolve_model(local, "local/big")
    assert resolve_small_model(local, local_main) is local_main  # a custom endpoint may not serve siblings
    listed = Config.model_validate(
        {
            "provider": {
                "local": {
                    "litellm_provider": "openai",
                    "options": {"api_base": "http://x"},
                    "models": {"big": {}, "gpt-4o-mini": {}},
                }
            }
        }
    )
    assert resolve_small_model(listed, resolve_model(listed, "local/big")).model_id == "gpt-4o-mini"


def test_resolving_and_streaming_modules_do_not_import_litellm_or_openai() -> None:
    script = (
        "import sys\n"
        "from core.config.schema import Config\n"
        "import core.llm.stream, core.llm.lean, core.llm.model\n"
        "m = core.llm.model.resolve_model(Config(provider={'anthropic': {'options': {'api_key': 'k'}}}),"
        " 'anthropic/claude-sonnet-4-5')\n"
        "assert m.limit.context == 200000\n"
        "print(sorted(n for n in ('litellm', 'openai') if n in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
