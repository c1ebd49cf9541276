"""Which commands run at which event: agentls config's ``hooks`` and Claude Code's settings files.

The shape (Claude Code's): ``{"PreToolUse": [{"matcher": "Edit|Write", "hooks": [{"type":
"command", "command": "...", "timeout": 30}]}]}``. A matcher is a regular expression matched
whole against the tool's name (agentls' id, ``bash``, or Claude Code's, ``Bash``); empty or ``*``
matches every tool; events without tools ignore it. Claude Code's files are read from the
project (``.claude/settings.json``, then ``.claude/settings.local.json``) only when the project is
trusted; agentls' own ``hooks`` come through the config layers, which already leave out an
untrusted project's files.
"""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from core.trust import is_trusted

log = logging.getLogger(__name__)

Event = Literal[
    "PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "SubagentStop", "Notification", "SessionStart"
]
EVENTS: tuple[Event, ...] = (
    "PreToolUse",
    "PostToolUse",
    "UserPromptSubmit",
    "Stop",
    "SubagentStop",
    "Notification",
    "SessionStart",
)
TOOL_EVENTS = frozenset({"PreToolUse", "PostToolUse"})
DEFAULT_TIMEOUT = 60.0
CLAUDE_FILES = (".claude/settings.json", ".claude/settings.local.json")


class HookCommand(BaseModel):
    """One command: run with ``sh -c`` in the project folder, the event's JSON on stdin."""

    model_config = ConfigDict(extra="allow")

    type: Literal["command"] = "command"
    command: str = Field(min_length=1)
    timeout: float = Field(default=DEFAULT_TIMEOUT, gt=0, le=3600)


class HookMatcher(BaseModel):
    """The commands an event runs for the tools ``matcher`` names."""

    model_config = ConfigDict(extra="allow")

    matcher: str = ""
    hooks: list[HookCommand] = []


class HookEntry(BaseModel):
    """One command with where it was configured (shown with every run)."""

    event: str
    matcher: str
    command: HookCommand
    source: str

    def matches(self, names: tuple[str, ...]) -> bool:
        """Whether the entry applies to a tool known by any of ``names`` (always for tool-less events)."""
        if self.event not in TOOL_EVENTS or self.matcher in ("", "*"):
            return True
        try:
            pattern = re.compile(self.matcher)
        except re.error:
            return self.matcher in names
        return any(pattern.fullmatch(name) for name in names)


def parse(value: Any, source: str) -> tuple[list[HookEntry], list[str]]:
    """The entries of one ``hooks`` mapping, and a warning for each part that is not usable."""
    entries: list[HookEntry] = []
    warnings: list[str] = []
    if value is None:
        return entries, warnings
    if not isinstance(value, dict):
        return entries, [f"{source}: hooks must be an object of events, not {type(value).__name__}"]
    for event, matchers in value.items():
        if event not in EVENTS:
            warnings.append(f"{source}: hooks.{event} is not an event agentls runs ({', '.join(EVENTS)})")
            continue
        if not isinstance(matchers, list):
            warnings.append(f"{source}: hooks.{event} must be a list of matchers")
            continue
        for index, raw in enumerate(matchers):
            try:
                matcher = HookMatcher.model_validate(raw)
            except ValidationError as exc:
                first = exc.errors()[0]
                where = ".".join(str(p) for p in first["loc"])
                warnings.append(f"{source}: hooks.{event}[{index}].{where}: {first['msg']}")
                continue
            if matcher.matcher not in ("", "*") and _bad_pattern(matcher.matcher):
                warnings.append(
                    f"{source}: hooks.{event}[{index}].matcher {matcher.matcher!r} is not a regular "
                    "expression; it matches that exact tool name"
                )
            entries.extend(
                HookEntry(event=event, matcher=matcher.matcher, command=c, source=source)
                for c in matcher.hooks
            )
    return entries, warnings


def claude_settings(worktree: Path) -> tuple[list[HookEntry], list[str]]:
    """The hooks of the project's Claude Code settings files (none when the project is untrusted)."""
    if not is_trusted(worktree):
        return [], []
    entries: list[HookEntry] = []
    warnings: list[str] = []
    for name in CLAUDE_FILES:
        path = worktree / name
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            continue
        except OSError as exc:
            warnings.append(f"{name}: cannot be read ({exc.strerror or exc})")
            continue
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            warnings.append(f"{name}: not valid JSON (line {exc.lineno}): its hooks are not run")
            continue
        if isinstance(data, dict) and "hooks" in data:
            found, problems = parse(data["hooks"], name)
            entries += found
            warnings += problems
    return entries, warnings


def _bad_pattern(text: str) -> bool:
    try:
        re.compile(text)
    except re.error:
        return True
    return False
