"""{env:VAR} and {file:path} substitution in string values."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.config.loader import Layer, load_config, resolve
from core.errors import ConfigError


def test_env_substitution_inside_strings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_KEY", "secret")
    data = {
        "provider": {"p": {"options": {"api_key": "{env:MY_KEY}", "headers": {"X": "Bearer {env:MY_KEY}!"}}}}
    }
    options = resolve([Layer("a", data)]).config.provider["p"].options
    assert options.api_key == "secret"
    assert options.headers == {"X": "Bearer secret!"}


def test_missing_env_is_empty_string(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SURELY_NOT_SET_VAR", raising=False)
    assert resolve([Layer("a", {"model": "p/{env:SURELY_NOT_SET_VAR}m"})]).config.model == "p/m"


def test_file_substitution_relative_to_the_config_file(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    (project / ".agentls" / "secrets").mkdir(parents=True)
    (project / ".agentls" / "secrets" / "key").write_text("from-file\n")
    (project / ".agentls" / "agentls.json").write_text(
        '{"provider": {"p": {"options": {"api_key": "{file:secrets/key}"}}},'
        ' "instructions": ["{file:secrets/key}"]}'
    )
    config = load_config(project, project).config
    assert config.provider["p"].options.api_key == "from-file"
    assert config.instructions == ["from-file"]


def test_file_substitution_expands_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "prompt.txt").write_text("be brief")
    monkeypatch.setenv("HOME", str(home))
    agent = resolve([Layer("a", {"agent": {"x": {"prompt": "{file:~/prompt.txt}"}}})]).config.agent["x"]
    assert agent.prompt == "be brief"


def test_substituted_text_is_not_scanned_again(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OUTER", "{env:INNER}")
    monkeypatch.setenv("INNER", "no")
    assert resolve([Layer("a", {"model": "{env:OUTER}"})]).config.model == "{env:INNER}"


def test_keys_and_non_strings_are_untouched(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("K", "v")
    resolved = resolve([Layer("a", {"agent": {"{env:K}": {"steps": 3}}})])
    assert list(resolved.config.agent) == ["{env:K}"]


def test_missing_file_names_layer_key_and_file(tmp_path: Path) -> None:
    config_file = tmp_path / "agentls.json"
    config_file.write_text('{"provider": {"p": {"options": {"api_key": "{file:nope.txt}"}}}}')
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path, tmp_path)
    message = str(info.value)
    assert f"project {config_file}" in message
    assert "provider.p.options.api_key" in message
    assert str(tmp_path / "nope.txt") in message
    assert "does not exist" in message
