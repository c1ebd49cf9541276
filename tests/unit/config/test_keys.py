"""``agentls auth``'s key store: owner-only files, nothing lost, bad input refused with a reason."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from core.config.keys import store_key, user_config_file
from core.config.loader import load_config
from core.errors import ConfigError, InvalidInputError

AGENTLS = Path(sys.executable).parent / "agentls"


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_key_goes_into_a_new_owner_only_file(isolated_env: Path) -> None:
    stored = store_key("anthropic", key="  sk-ant-123\n")
    assert stored.path == isolated_env / "agentls.json"
    assert json.loads(stored.path.read_text()) == {
        "provider": {"anthropic": {"options": {"api_key": "sk-ant-123"}}}
    }
    assert mode(stored.path) == 0o600
    assert not [p for p in isolated_env.iterdir() if p.name.startswith(".agentls-")]  # no temp file left


def test_an_open_file_becomes_owner_only_and_keeps_its_settings(isolated_env: Path) -> None:
    path = isolated_env / "agentls.json"
    path.write_text(
        json.dumps({"model": "openai/gpt-5", "provider": {"openai": {"options": {"timeout": 30}}}})
    )
    os.chmod(path, 0o644)
    store_key("openai", key="sk-1")
    data = json.loads(path.read_text())
    assert data["model"] == "openai/gpt-5"
    assert data["provider"]["openai"]["options"] == {"timeout": 30, "api_key": "sk-1"}
    assert mode(path) == 0o600


def test_a_named_variable_is_read_when_the_config_loads(
    isolated_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store_key("anthropic", env="MY_CLAUDE_KEY")
    assert "{env:MY_CLAUDE_KEY}" in (isolated_env / "agentls.json").read_text()
    monkeypatch.setenv("MY_CLAUDE_KEY", "sk-from-env")
    resolved = load_config(tmp_path, tmp_path)
    assert resolved.config.provider["anthropic"].options.api_key == "sk-from-env"


def test_an_existing_jsonc_file_is_the_one_written(isolated_env: Path) -> None:
    (isolated_env / "agentls.jsonc").write_text('{"model": "a/b"}')
    assert user_config_file() == isolated_env / "agentls.jsonc"
    store_key("openai", key="sk-2")
    assert json.loads((isolated_env / "agentls.jsonc").read_text())["model"] == "a/b"
    assert not (isolated_env / "agentls.json").exists()


@pytest.mark.parametrize(
    ("provider", "kwargs", "error"),
    [
        ("anthropic", {"key": ""}, "empty"),
        ("anthropic", {"key": "sk 1"}, "spaces"),
        ("anthropic", {"key": "{env:X}"}, "--env"),
        ("anthropic", {"env": "1BAD"}, "not an environment variable name"),
        ("anthropic", {"env": "A;rm -rf"}, "not an environment variable name"),
        ("anthropic", {"key": "k", "env": "K"}, "not both"),
        ("anthropic", {}, "not both"),
        ("../etc", {"key": "k"}, "not a provider id"),
        ("", {"key": "k"}, "not a provider id"),
    ],
)
def test_bad_input_is_refused_and_nothing_is_written(
    isolated_env: Path, provider: str, kwargs: dict[str, str], error: str
) -> None:
    with pytest.raises(InvalidInputError, match=error):
        store_key(provider, **kwargs)
    assert list(isolated_env.iterdir()) == []


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ('{"model": "a/b", // mine\n}', "not plain JSON"),
        ("[1, 2]", "not hold a JSON object"),
        ('{"provider": {"openai": "x"}}', "openai is not an object"),
    ],
    ids=["comments", "a list", "a provider that is a string"],
)
def test_a_file_it_cannot_rewrite_safely_is_left_as_it_was(isolated_env: Path, text: str, error: str) -> None:
    path = isolated_env / "agentls.json"
    path.write_text(text)
    with pytest.raises(ConfigError, match=error):
        store_key("openai", key="sk-3")
    assert path.read_text() == text


def _auth(tmp_path: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AGENTLS_", "XDG_"))}
    env |= {"HOME": str(tmp_path / "home"), "AGENTLS_CONFIG_DIR": str(tmp_path / "user-config")}
    return subprocess.run(
        [str(AGENTLS), "auth", *args], input=stdin, env=env, capture_output=True, text=True, timeout=60
    )


def test_the_command_reads_the_key_from_a_pipe(tmp_path: Path) -> None:
    done = _auth(tmp_path, "openai", stdin="sk-piped\n")
    assert done.returncode == 0, done.stderr
    path = tmp_path / "user-config" / "agentls.json"
    assert json.loads(path.read_text())["provider"]["openai"]["options"]["api_key"] == "sk-piped"
    assert mode(path) == 0o600
    assert "sk-piped" not in done.stderr + done.stdout  # the key is never echoed


def test_the_command_reads_provider_and_key_from_a_pipe(tmp_path: Path) -> None:
    done = _auth(tmp_path, stdin="anthropic\nsk-ant-piped\n")
    assert done.returncode == 0, done.stderr
    text = (tmp_path / "user-config" / "agentls.json").read_text()
    assert json.loads(text)["provider"]["anthropic"]["options"]["api_key"] == "sk-ant-piped"


def test_the_command_names_a_variable(tmp_path: Path) -> None:
    done = _auth(tmp_path, "anthropic", "--env", "WORK_ANTHROPIC_KEY")
    assert done.returncode == 0, done.stderr
    assert "WORK_ANTHROPIC_KEY is not set" in done.stderr
    text = (tmp_path / "user-config" / "agentls.json").read_text()
    assert "{env:WORK_ANTHROPIC_KEY}" in text


@pytest.mark.parametrize(
    ("args", "stdin", "error"),
    [
        ((), "", "no provider given"),
        (("openai",), "", "no key was given"),
        (("openai",), "two words\n", "spaces"),
    ],
)
def test_the_command_refuses_with_a_reason(
    tmp_path: Path, args: tuple[str, ...], stdin: str, error: str
) -> None:
    done = _auth(tmp_path, *args, stdin=stdin)
    assert done.returncode != 0
    assert error in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "user-config" / "agentls.json").exists()
