"""Invalid config: one plain-words message naming the file (or layer), the key path and the problem."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from core.config.loader import Layer, load_config, resolve
from core.errors import ConfigError


def error_of(data: dict[str, Any], name: str = "f.json") -> str:
    with pytest.raises(ConfigError) as info:
        resolve([Layer(name, data)])
    return str(info.value)


def test_bad_type_names_file_and_path(tmp_path: Path) -> None:
    config_file = tmp_path / ".agentls" / "agentls.json"
    config_file.parent.mkdir()
    config_file.write_text(
        '{"provider": {"local": {"models": {"m": {"limit": {"context": "big", "output": 1}}}}}}'
    )
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path, tmp_path)
    assert str(info.value) == (
        f"project {config_file}: provider.local.models.m.limit.context: must be a whole number (got 'big')"
    )


def test_error_blames_the_layer_that_set_the_value() -> None:
    with pytest.raises(ConfigError) as info:
        resolve(
            [
                Layer("user u.json", {"compaction": {"auto": "maybe"}}),
                Layer("project p.json", {"model": "a/b"}),
            ]
        )
    assert str(info.value) == "user u.json: compaction.auto: must be true or false (got 'maybe')"


def test_missing_required_key_blames_the_layer_that_set_its_siblings() -> None:
    message = error_of({"provider": {"p": {"models": {"m": {"limit": {"output": 5}}}}}})
    assert message == "f.json: provider.p.models.m.limit.context: is required"


def test_several_errors_are_listed() -> None:
    message = error_of({"compaction": {"tail_turns": -1}, "tool_output": {"max_lines": "x"}})
    assert message.splitlines() == [
        "invalid config:",
        "  f.json: compaction.tail_turns: must be at least 0 (got -1)",
        "  f.json: tool_output.max_lines: must be a whole number (got 'x')",
    ]


@pytest.mark.parametrize(
    ("permission", "expected"),
    [
        ("maybe", "f.json: permission: must be 'allow', 'ask' or 'deny', or an object (got 'maybe')"),
        (
            {"bash": "maybe"},
            "f.json: permission.bash: must be 'allow', 'ask' or 'deny', or an object (got 'maybe')",
        ),
        (
            {"bash": {"rm *": "never"}},
            "f.json: permission.bash.rm *: must be 'allow', 'ask' or 'deny' (got 'never')",
        ),
    ],
)
def test_permission_errors_point_at_the_bad_action(permission: Any, expected: str) -> None:
    assert error_of({"permission": permission}) == expected


def test_mcp_errors_name_the_type_key() -> None:
    assert (
        error_of({"mcp": {"s": {"type": "sse"}}})
        == "f.json: mcp.s.type: must be one of 'local', 'remote' (got 'sse')"
    )
    assert error_of({"mcp": {"s": {"command": ["x"]}}}) == "f.json: mcp.s.type: is required"
    assert (
        error_of({"mcp": {"s": {"type": "local", "command": "x"}}})
        == "f.json: mcp.s.command: must be a list (got 'x')"
    )


def test_bad_snapshot_and_agent_mode() -> None:
    assert error_of({"snapshot": "yes"}).startswith("f.json: snapshot: must be true, false or an object")
    assert error_of({"agent": {"a": {"mode": "boss"}}}) == (
        "f.json: agent.a.mode: must be 'primary', 'subagent' or 'all' (got 'boss')"
    )


def test_bad_json_has_file_line_and_column(tmp_path: Path) -> None:
    config_file = tmp_path / "agentls.jsonc"
    config_file.write_text('{\n  "model": "a/b"\n  "small_model": "c/d"\n}')
    with pytest.raises(ConfigError, match=rf"^{config_file}:3:3: invalid JSON"):
        load_config(tmp_path, tmp_path)


def test_top_level_must_be_an_object(tmp_path: Path) -> None:
    (tmp_path / "agentls.json").write_text("[1, 2]")
    with pytest.raises(ConfigError, match="must be a JSON object"):
        load_config(tmp_path, tmp_path)


def test_agentls_config_pointing_nowhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTLS_CONFIG", str(tmp_path / "missing.json"))
    with pytest.raises(ConfigError, match=r"AGENTLS_CONFIG .*missing\.json: file not found"):
        load_config(tmp_path, tmp_path)


def test_bad_inline_content(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTLS_CONFIG_CONTENT", '{"model": }')
    with pytest.raises(ConfigError, match=r"^AGENTLS_CONFIG_CONTENT:1:11: invalid JSON"):
        load_config(tmp_path, tmp_path)
    monkeypatch.setenv("AGENTLS_CONFIG_CONTENT", '"just a string"')
    with pytest.raises(ConfigError, match="AGENTLS_CONFIG_CONTENT: the config must be a JSON object"):
        load_config(tmp_path, tmp_path)


def test_bad_agentls_permission(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTLS_PERMISSION", "{bash: allow}")
    with pytest.raises(ConfigError, match=r"^AGENTLS_PERMISSION:1:2: invalid JSON"):
        load_config(tmp_path, tmp_path)
    monkeypatch.setenv("AGENTLS_PERMISSION", '{"bash": "sure"}')
    with pytest.raises(ConfigError, match=r"^environment: permission.bash: must be"):
        load_config(tmp_path, tmp_path)
