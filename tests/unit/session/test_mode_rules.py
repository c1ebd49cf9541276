"""How a session's mode changes the rules an edit is judged by (table-driven: auto must never lift a
deny, nor let anything but edits through)."""

from __future__ import annotations

import pytest

from core.agent.builtin import PLAN_FILES, builtin_agents
from core.config.schema import Config
from core.permission.rules import Action, Ruleset, as_floor, defaults, evaluate, from_config
from core.session.mode import Mode, mode_rules

PLAN = next(a.permission for a in builtin_agents() if a.name == "plan")


def _decide(
    mode: Mode, config: object, permission: str, pattern: str, agent: Ruleset | None = None
) -> Action:
    configured = Config.model_validate({"permission": config}).permission
    rules = [*defaults(), *(agent or []), *from_config(configured)]
    return evaluate(permission, pattern, mode_rules(mode, rules, PLAN)).action


@pytest.mark.parametrize(
    ("mode", "config", "permission", "pattern", "action"),
    [
        # ask: the rules as they are
        ("ask", {}, "edit", "a.py", "ask"),
        ("ask", {"edit": "allow"}, "edit", "a.py", "allow"),
        # auto: an edit the rules would ask about runs; nothing else changes
        ("auto", {}, "edit", "a.py", "allow"),
        ("auto", {"edit": "ask"}, "edit", "a.py", "allow"),
        ("auto", "ask", "edit", "a.py", "allow"),
        ("auto", "ask", "bash", "rm -rf x", "ask"),
        ("auto", {}, "bash", "touch x", "ask"),
        ("auto", {}, "external_directory", "/etc/*", "ask"),
        ("auto", {}, "webfetch", "https://example.com", "ask"),
        # auto: a deny holds, wherever it is
        ("auto", {"edit": "deny"}, "edit", "a.py", "deny"),
        ("auto", {"edit": {"*": "ask", "secret/*": "deny"}}, "edit", "secret/k", "deny"),
        ("auto", {"edit": {"*": "ask", "secret/*": "deny"}}, "edit", "src/a.py", "allow"),
        ("auto", {"edit": {"secret/*": "deny", "secret/ok": "ask"}}, "edit", "secret/ok", "allow"),
        ("auto", "deny", "edit", "a.py", "deny"),
        # plan: read-only except plan files, whatever the config allows
        ("plan", {"edit": "allow"}, "edit", "a.py", "deny"),
        ("plan", "allow", "edit", "src/a.py", "deny"),
        ("plan", {}, "edit", PLAN_FILES.replace("*", "p.md"), "allow"),
        ("plan", {}, "read", "a.py", "allow"),
    ],
)
def test_mode_rules(mode: Mode, config: object, permission: str, pattern: str, action: Action) -> None:
    assert _decide(mode, config, permission, pattern) == action


def test_auto_never_lifts_an_agents_own_denial() -> None:
    # The plan agent's floors still deny under auto (a config or mode cannot lift them).
    assert _decide("auto", {}, "edit", "a.py", as_floor(PLAN)) == "deny"
