"""Reading hooks: agentls config's ``hooks`` and a trusted project's Claude Code settings files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from core import trust
from core.hooks.settings import HookEntry, claude_settings, parse

DENY_RM = {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./no-rm.sh"}]}]}


def test_the_claude_code_shape_reads_as_entries_with_defaults() -> None:
    entries, warnings = parse(DENY_RM, "agentls config")
    assert warnings == []
    assert [(e.event, e.matcher, e.command.command, e.command.timeout, e.source) for e in entries] == [
        ("PreToolUse", "Bash", "./no-rm.sh", 60.0, "agentls config")
    ]


@pytest.mark.parametrize(
    ("value", "warning"),
    [
        ([], "hooks must be an object of events"),
        ({"BeforeEverything": []}, "hooks.BeforeEverything is not an event agentls runs"),
        ({"Stop": {"hooks": []}}, "hooks.Stop must be a list of matchers"),
        ({"Stop": [{"hooks": [{"type": "command"}]}]}, "hooks.Stop[0].hooks.0.command: Field required"),
        ({"Stop": [{"hooks": [{"command": "x", "timeout": 0}]}]}, "hooks.Stop[0].hooks.0.timeout"),
        ({"Stop": [{"hooks": [{"command": "x", "type": "prompt"}]}]}, "hooks.Stop[0].hooks.0.type"),
        ({"PreToolUse": [{"matcher": "Bash(", "hooks": []}]}, "is not a regular expression"),
    ],
)
def test_what_cannot_be_used_is_a_warning_naming_where(value: Any, warning: str) -> None:
    _, warnings = parse(value, "agentls config")
    assert any(warning in w and w.startswith("agentls config: ") for w in warnings), warnings


@pytest.mark.parametrize(
    ("matcher", "names", "matches"),
    [
        ("", ("bash", "Bash"), True),
        ("*", ("edit", "Edit"), True),
        ("Bash", ("bash", "Bash"), True),
        ("bash", ("bash", "Bash"), True),
        ("Edit|Write", ("write", "Write"), True),
        ("Edit|Write", ("read", "Read"), False),
        ("Bas", ("bash", "Bash"), False),  # matched whole, not as a prefix
        ("mcp__.*", ("mcp__files__list", "mcp__files__list"), True),
        ("Bash(", ("Bash(",), True),  # not a pattern: the exact name
    ],
)
def test_a_matcher_matches_agentls_or_claude_code_names_whole(
    matcher: str, names: tuple[str, ...], matches: bool
) -> None:
    entry = HookEntry.model_validate(
        {"event": "PreToolUse", "matcher": matcher, "command": {"command": "x"}, "source": "s"}
    )
    assert entry.matches(names) is matches


def test_events_without_tools_ignore_the_matcher() -> None:
    entry = HookEntry.model_validate(
        {"event": "Stop", "matcher": "Bash", "command": {"command": "x"}, "source": "s"}
    )
    assert entry.matches(()) is True


def test_claude_settings_of_a_trusted_project_are_read_in_order(tmp_path: Path) -> None:
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude/settings.json").write_text(json.dumps({"hooks": DENY_RM, "permissions": {}}))
    local = {"hooks": {"Stop": [{"hooks": [{"command": "./more.sh"}]}]}}
    (tmp_path / ".claude/settings.local.json").write_text(json.dumps(local))
    entries, warnings = claude_settings(tmp_path)
    assert warnings == []
    assert [(e.source, e.command.command) for e in entries] == [
        (".claude/settings.json", "./no-rm.sh"),
        (".claude/settings.local.json", "./more.sh"),
    ]


def test_a_broken_settings_file_is_a_warning_and_runs_nothing(tmp_path: Path) -> None:
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude/settings.json").write_text('{"hooks": ')
    entries, warnings = claude_settings(tmp_path)
    assert entries == [] and warnings == [
        ".claude/settings.json: not valid JSON (line 1): its hooks are not run"
    ]


def test_an_untrusted_project_s_settings_are_never_read(tmp_path: Path) -> None:
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude/settings.json").write_text(json.dumps({"hooks": DENY_RM}))
    trust.distrust(tmp_path)
    try:
        assert claude_settings(tmp_path) == ([], [])
    finally:
        trust.forget(tmp_path)
