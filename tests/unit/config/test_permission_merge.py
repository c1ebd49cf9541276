"""Permission maps are ordered rule lists: merging keeps order and moves re-set keys to the end."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.config.loader import Layer, load_config, resolve


def test_order_within_one_layer_is_kept() -> None:
    permission = {
        "read": "allow",
        "bash": {"*": "ask", "git status *": "allow", "rm *": "deny"},
        "edit": "ask",
    }
    resolved = resolve([Layer("a", {"permission": permission})])
    assert resolved.config.permission == permission
    assert isinstance(resolved.config.permission, dict)
    assert list(resolved.config.permission) == ["read", "bash", "edit"]
    assert list(resolved.config.permission["bash"]) == ["*", "git status *", "rm *"]  # type: ignore[arg-type]


def test_later_layer_appends_and_moves_reset_keys_last() -> None:
    low = {"permission": {"bash": {"*": "ask", "git *": "allow"}, "edit": "deny", "read": "allow"}}
    high = {"permission": {"bash": {"*": "deny", "ls *": "allow"}, "edit": "ask"}}
    resolved = resolve([Layer("low", low), Layer("high", high)])
    assert resolved.config.permission == {
        "read": "allow",
        "bash": {"git *": "allow", "*": "deny", "ls *": "allow"},
        "edit": "ask",
    }
    assert list(resolved.config.permission) == ["read", "bash", "edit"]  # type: ignore[arg-type]
    assert list(resolved.config.permission["bash"]) == ["git *", "*", "ls *"]  # type: ignore[index]
    assert resolved.sources["permission.bash.git *"] == "low"
    assert resolved.sources["permission.bash.*"] == "high"
    assert resolved.sources["permission.read"] == "low"


def test_bare_action_under_a_pattern_map_becomes_wildcard_first() -> None:
    resolved = resolve(
        [
            Layer("a", {"permission": {"bash": "allow"}}),
            Layer("b", {"permission": {"bash": {"rm *": "deny"}}}),
        ]
    )
    assert resolved.config.permission == {"bash": {"*": "allow", "rm *": "deny"}}
    assert resolved.sources["permission.bash.*"] == "a"


def test_bare_top_level_action_merged_with_a_map() -> None:
    resolved = resolve([Layer("a", {"permission": "ask"}), Layer("b", {"permission": {"edit": "allow"}})])
    assert resolved.config.permission == {"*": "ask", "edit": "allow"}
    assert list(resolved.config.permission) == ["*", "edit"]  # type: ignore[arg-type]


def test_later_bare_action_replaces_the_map() -> None:
    resolved = resolve([Layer("a", {"permission": {"edit": "deny"}}), Layer("b", {"permission": "allow"})])
    assert resolved.config.permission == "allow"
    assert resolved.sources == {"permission": "b"}


def test_agent_permission_merges_the_same_way() -> None:
    low = {"agent": {"plan": {"permission": {"edit": {"*": "deny", "*.md": "allow"}}}}}
    high = {"agent": {"plan": {"permission": {"edit": {"*": "ask"}}, "description": "d"}}}
    agent = resolve([Layer("a", low), Layer("b", high)]).config.agent["plan"]
    assert agent.permission == {"edit": {"*.md": "allow", "*": "ask"}}
    assert list(agent.permission["edit"]) == ["*.md", "*"]  # type: ignore[index]
    assert agent.description == "d"


def test_agentls_permission_env_merges_last(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "agentls.json").write_text('{"permission": {"bash": {"*": "ask"}, "edit": "allow"}}')
    monkeypatch.setenv("AGENTLS_PERMISSION", '{"bash": {"*": "allow"}, "webfetch": "deny"}')
    resolved = load_config(tmp_path, tmp_path)
    assert resolved.config.permission == {"edit": "allow", "bash": {"*": "allow"}, "webfetch": "deny"}
    assert list(resolved.config.permission) == ["edit", "bash", "webfetch"]  # type: ignore[arg-type]
    assert resolved.sources["permission.bash.*"] == "environment"


def test_agentls_permission_bare_word(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "agentls.json").write_text('{"permission": {"edit": "deny"}}')
    monkeypatch.setenv("AGENTLS_PERMISSION", "allow")
    assert load_config(tmp_path, tmp_path).config.permission == "allow"
