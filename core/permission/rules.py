"""Permission rules: ordered {permission, pattern, action} triples where the last match wins.

Rules marked ``floor`` are an agent's own rules (what makes ``plan`` read-only). They take part in the
last-match-wins order like any rule, and in addition their own last match, when it denies, holds over
everything after it: a config layer (``"edit": "ask"``), a session rule or a stored "always" approval
can tighten an agent's rules but never lift its denials.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterable
from dataclasses import field, replace
from typing import Literal, TypeAlias, cast

from core.config.schema import PermissionConfig
from core.permission.defaults import DEFAULT_RULES
from core.record import record

Action: TypeAlias = Literal["allow", "ask", "deny"]

# Tools that change files all answer to the one "edit" permission.
EDIT_TOOLS = frozenset(
    {"edit", "write", "multiedit", "patch", "apply_patch"}
    | {"rename", "code_actions", "organize_imports", "format"}  # edits the editor computes
)


@record
class Rule:
    """Whether calls of ``permission`` whose pattern matches ``pattern`` are allowed, asked or denied."""

    permission: str
    pattern: str
    action: Action
    floor: bool = False
    # Who set the rule, for the text a denial gives the model: "" (defaults or the config),
    # "mode <mode>" (a session's mode), "agent <name>" (an agent's own rules), "subagent", or
    # "user session" (the user's "reject for this session").
    origin: str = field(default="", compare=False)


Ruleset: TypeAlias = list[Rule]

DEFAULTS: tuple[Rule, ...] = tuple(
    Rule(permission, pattern, cast(Action, action)) for permission, pattern, action in DEFAULT_RULES
)


def defaults() -> Ruleset:
    """The built-in rules every ruleset starts from."""
    return list(DEFAULTS)


def from_config(config: PermissionConfig | None) -> Ruleset:
    """Rules from a config ``permission`` value: a bare action, or per permission an action or a map."""
    if config is None:
        return []
    if isinstance(config, str):
        return [Rule("*", "*", config)]
    rules: Ruleset = []
    for permission, value in config.items():
        if isinstance(value, str):
            rules.append(Rule(permission, "*", value))
        else:
            rules.extend(Rule(permission, pattern, action) for pattern, action in value.items())
    return rules


def permission_of(tool_id: str) -> str:
    """The permission a tool answers to (file-changing tools share ``edit``)."""
    return "edit" if tool_id in EDIT_TOOLS else tool_id


def as_floor(ruleset: Iterable[Rule], origin: str = "") -> Ruleset:
    """The rules marked as an agent's own: their denials cannot be lifted by later rules.
    ``origin``: who they come from (see ``Rule.origin``; kept as it was when empty)."""
    return [replace(rule, floor=True, origin=origin or rule.origin) for rule in ruleset]


def evaluate(permission: str, pattern: str, *rulesets: Iterable[Rule]) -> Rule:
    """The last rule matching both ``permission`` and ``pattern`` (nothing matches → ask), unless the
    last matching floor rule denies: then that denial."""
    found: Rule | None = None
    floor: Rule | None = None
    for ruleset in rulesets:
        for rule in ruleset:
            if wildcard_match(rule.permission, permission) and wildcard_match(rule.pattern, pattern):
                found = rule
                if rule.floor:
                    floor = rule
    if floor is not None and floor.action == "deny":
        return floor
    return found if found is not None else Rule(permission, "*", "ask")


def decide(permission: str, pattern: str, ruleset: Iterable[Rule], approvals: Iterable[Rule]) -> Rule:
    """What the rules say, where a stored "always" approval turns an ask into an allow.

    Approvals answer questions the rules would ask; they never lift a denial.
    """
    rule = evaluate(permission, pattern, ruleset)
    if rule.action != "ask":
        return rule
    approved = evaluate(permission, pattern, approvals)
    return approved if approved.action == "allow" else rule


def disabled(tool_ids: Iterable[str], ruleset: Iterable[Rule]) -> set[str]:
    """Tools whose permission's last rule (or last floor rule) denies every pattern: the model never
    sees them."""
    rules = list(ruleset)
    floors = [r for r in rules if r.floor]
    out: set[str] = set()
    for tool_id in tool_ids:
        permission = permission_of(tool_id)
        for candidates in (rules, floors):
            last = next((r for r in reversed(candidates) if wildcard_match(r.permission, permission)), None)
            if last is not None and last.pattern == "*" and last.action == "deny":
                out.add(tool_id)
    return out


def wildcard_match(pattern: str, text: str) -> bool:
    """``*`` any run (``/`` included), ``?`` one character; a trailing `` *`` may match nothing."""
    return _compile(_expand_home(pattern)).fullmatch(text) is not None


def _expand_home(pattern: str) -> str:
    # Most patterns name no home (tool names, commands): they skip the environment lookup, which
    # a request's tool list otherwise pays for every rule of every tool.
    if pattern[:1] not in ("~", "$"):
        return pattern
    home = os.path.expanduser("~")
    if pattern == "~" or pattern.startswith("~/"):
        return home + pattern[1:]
    for var in ("${HOME}", "$HOME"):
        if pattern == var or pattern.startswith(var + "/"):
            return home + pattern[len(var) :]
    return pattern


@functools.lru_cache(maxsize=1024)
def _compile(pattern: str) -> re.Pattern[str]:
    optional_tail = pattern.endswith(" *")
    body = pattern[:-2] if optional_tail else pattern
    regex = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in body)
    if optional_tail:
        regex += "(?: .*)?"
    return re.compile(regex, re.DOTALL)
