"""A project's own config can make the sandbox stricter, never looser: a table of layers and keys."""

from __future__ import annotations

from typing import Any

import pytest

from core.config.loader import Layer, resolve
from core.sandbox.settings import sandbox_settings

PROJECT = "project /repo/agentls.json"
USER = "user /home/u/.config/agentls/agentls.json"
EDITOR = "AGENTLS_CONFIG_CONTENT"
LOOSE: dict[str, Any] = {
    "mode": "full",
    "writable": ["/"],
    "readable": ["~/.ssh"],
    "network": {"allow": ["*"]},
    "env": {"pass": ["GITHUB_TOKEN"]},
}


def settings(*layers: tuple[str, dict[str, Any]]) -> tuple[dict[str, Any], frozenset[str], list[str]]:
    resolved = resolve([Layer(name, data, None) for name, data in layers])
    config, confined_mcp, warnings = sandbox_settings(resolved)
    return config.model_dump(mode="json"), confined_mcp, warnings


@pytest.mark.parametrize("layer", [USER, EDITOR])
def test_the_user_may_loosen_it(layer: str) -> None:
    config, _, warnings = settings((layer, {"sandbox": LOOSE}))
    assert config == LOOSE and warnings == []


@pytest.mark.parametrize(
    ("key", "value", "said"),
    [
        ("mode", "full", '"mode": "full"'),
        ("writable", ["/", "~"], '"writable": ["/", "~"]'),
        ("writable", [".git"], '"writable": [".git"]'),
        ("readable", ["~/.aws"], '"readable": ["~/.aws"]'),
        ("network", {"allow": ["*"]}, '"network": {"allow": ["*"]}'),
        ("env", {"pass": ["AWS_*"]}, '"env": {"pass": ["AWS_*"]}'),
    ],
)
def test_a_project_may_not_loosen_it(key: str, value: Any, said: str) -> None:
    config, _, warnings = settings((USER, {}), (PROJECT, {"sandbox": {key: value}}))
    assert config == settings()[0]  # the defaults
    (warning,) = warnings
    assert warning.startswith(f"/repo/agentls.json: the sandbox setting {said} is not applied")
    assert "user config" in warning


@pytest.mark.parametrize("mode", ["read-only", "workspace-write"])
def test_a_project_may_tighten_it(mode: str) -> None:
    user, project = {"sandbox": {"mode": "full"}}, {"sandbox": {"mode": mode}}
    config, _, warnings = settings((USER, user), (PROJECT, project))
    assert config["mode"] == mode and warnings == []


def test_a_project_leaves_the_users_own_settings_alone() -> None:
    strict = {"sandbox": {"mode": "read-only"}}
    config, _, warnings = settings((USER, {"sandbox": LOOSE}), (PROJECT, strict))
    assert config == {**LOOSE, "mode": "read-only"} and warnings == []


def test_a_projects_mcp_server_cannot_opt_out_of_the_sandbox() -> None:
    server = {"type": "local", "command": ["srv"], "sandbox": False}
    _, confined, warnings = settings((PROJECT, {"mcp": {"srv": server}}))
    assert confined == {"srv"}
    assert '"mcp": {"srv": {"sandbox": false}}' in warnings[0]
    _, confined, warnings = settings((USER, {"mcp": {"srv": server}}))
    assert confined == frozenset() and warnings == []
