"""Config that would make every prompt fail is refused at load, with a message naming the key."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from core.app_config import check_model_refs
from core.config.loader import Layer, resolve
from core.errors import ConfigError

BASE = "provider.p.options.api_base"
LOCAL = {"litellm_provider": "openai", "options": {"api_base": "http://127.0.0.1:9/v1"}}


@pytest.mark.parametrize(
    ("data", "named", "says"),
    [
        ({"provider": {"p": {"options": {"timeout": 0}}}}, "provider.p.options.timeout", "greater than 0"),
        ({"provider": {"p": {"options": {"timeout": -5}}}}, "provider.p.options.timeout", "greater than 0"),
        (
            {"provider": {"p": {"options": {"api_base": "localhost:8000"}}}},
            "provider.p.options.api_base",
            "http",
        ),
        ({"provider": {"p": {"options": {"api_base": "ftp://h/v1"}}}}, BASE, "http"),
        ({"provider": {"p": {"options": {"api_base": "http://"}}}}, BASE, "host"),
        (
            {"provider": {"p": {"options": {"api_base": "http://h:99999"}}}},
            "provider.p.options.api_base",
            "port",
        ),
        ({"model": "p/m\ud800"}, "model", "surrogate"),
        ({"small_model": "\udfffp/m"}, "small_model", "surrogate"),
        ({"agent": {"a": {"prompt": "x\ud83d"}}}, "agent.a.prompt", "surrogate"),
        ({"provider": {"p\ud800": LOCAL}}, "provider", "surrogate"),
    ],
)
def test_refused_at_load_naming_the_key(data: dict[str, Any], named: str, says: str) -> None:
    with pytest.raises(ConfigError) as info:
        resolve([Layer("f.json", data)])
    message = str(info.value)
    assert message.startswith(f"f.json: {named}: ") and says in message, message


@pytest.mark.parametrize(
    ("data", "named"),
    [
        ({"model": "nope/m"}, "model"),
        ({"model": "local/m", "small_model": "nosuch/t", "provider": {"local": LOCAL}}, "small_model"),
        ({"agent": {"a": {"model": "madeup/x"}}}, "agent.a.model"),
    ],
)
def test_a_model_on_an_unknown_provider_is_refused(data: dict[str, Any], named: str) -> None:
    with pytest.raises(ConfigError) as info:
        check_model_refs(resolve([Layer("f.json", data)]))
    message = str(info.value)
    assert message.startswith(f"f.json: {named}: ") and "unknown provider" in message, message


@pytest.mark.parametrize(
    "data",
    [
        {"model": "anthropic/claude-sonnet-4-5"},
        {"model": "ollama/llama3", "small_model": "openrouter/x/y"},
        {"model": "local/anything", "provider": {"local": LOCAL}},
        {"provider": {"p": {"options": {"api_base": "https://proxy.example/v1", "timeout": 0.5}}}},
    ],
)
def test_good_model_refs_and_options_pass(data: dict[str, Any]) -> None:
    check_model_refs(resolve([Layer("f.json", data)]))


def test_a_surrogate_in_a_file_is_refused_naming_the_file(tmp_path: Path) -> None:
    from core.config.loader import load_config

    (tmp_path / "agentls.json").write_text('{"model": "a/\\ud800b"}')
    with pytest.raises(ConfigError, match=r"agentls\.json: model: .*surrogate"):
        load_config(tmp_path, tmp_path)
