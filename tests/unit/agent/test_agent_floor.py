"""An agent's own denials hold over every config layer, session rule and stored approval."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from core.agent import Agents, effective_ruleset
from core.bus import Bus
from core.config.schema import Config
from core.errors import PermissionDeniedError
from core.events import PermissionAsked
from core.permission.request import PermissionAsk
from core.permission.rules import Rule, decide, disabled
from core.permission.service import Permissions
from core.storage import Store

HELLO = ("edit", "hello.py")
PLAN_FILE = ("edit", ".agentls/plans/step.md")


def approval(permission: str, pattern: str) -> Rule:
    return Rule(permission, pattern, "allow")


# agent, config (may hold "permission" and "agent"), stored approvals, (permission, pattern), decision
CASES: list[tuple[str, dict[str, Any], list[Rule], tuple[str, str], str]] = [
    # the issue: a project's "edit": "ask" asked plan instead of denying, then an approval let it edit
    ("plan", {"permission": {"edit": "ask"}}, [], HELLO, "deny"),
    ("plan", {"permission": {"edit": "ask"}}, [approval(*HELLO)], HELLO, "deny"),
    ("plan", {}, [approval(*HELLO)], HELLO, "deny"),
    ("plan", {}, [approval("edit", "*")], HELLO, "deny"),
    ("plan", {"permission": {"edit": "allow"}}, [], HELLO, "deny"),
    ("plan", {"permission": {"edit": {"hello.py": "allow"}}}, [], HELLO, "deny"),
    ("plan", {"permission": "allow"}, [], HELLO, "deny"),
    ("plan", {"permission": {"*": "allow"}}, [], HELLO, "deny"),
    # what the agent itself allows stays open to config, which may tighten it
    ("plan", {"permission": {"edit": "ask"}}, [], PLAN_FILE, "ask"),
    ("plan", {"permission": {"edit": "deny"}}, [], PLAN_FILE, "deny"),
    ("plan", {"permission": {"edit": "ask"}}, [approval(*PLAN_FILE)], PLAN_FILE, "allow"),
    # not even the agent's own config entry lifts a built-in agent's denial; it may tighten
    ("plan", {"agent": {"plan": {"permission": {"edit": "allow"}}}}, [], HELLO, "deny"),
    ("plan", {"agent": {"plan": {"permission": {"edit": {"*.md": "deny"}}}}}, [], PLAN_FILE, "deny"),
    # an agent the user defines has its definition as its floor
    (
        "docs",
        {
            "agent": {"docs": {"mode": "primary", "permission": {"edit": {"*": "deny", "docs/*": "allow"}}}},
            "permission": {"edit": "allow"},
        },
        [approval("edit", "src/a.py")],
        ("edit", "src/a.py"),
        "deny",
    ),
    (
        "docs",
        {
            "agent": {"docs": {"mode": "primary", "permission": {"edit": {"*": "deny", "docs/*": "allow"}}}},
            "permission": {"edit": "allow"},
        },
        [],
        ("edit", "docs/a.md"),
        "allow",
    ),
    # a configured agent's denials are floors too
    ("build", {"agent": {"build": {"permission": {"bash": {"rm *": "deny"}}}}}, [], ("bash", "rm x"), "deny"),
    (
        "build",
        {"permission": {"bash": "allow"}, "agent": {"build": {"permission": {"bash": {"rm *": "deny"}}}}},
        [approval("bash", "rm *")],
        ("bash", "rm x"),
        "deny",
    ),
    # explore denies everything but reading
    ("explore", {"permission": {"bash": "allow", "edit": "allow"}}, [], ("bash", "ls"), "deny"),
    ("explore", {}, [approval("bash", "ls *")], ("bash", "ls"), "deny"),
    ("explore", {"permission": "allow"}, [], HELLO, "deny"),
    # subagents never ask questions, whatever the config
    (
        "general",
        {"permission": {"question": "allow"}},
        [approval("question", "*")],
        ("question", "*"),
        "deny",
    ),
    # an approval answers an ask but never lifts a configured denial
    (
        "build",
        {"permission": {"bash": {"git push *": "deny"}}},
        [approval("bash", "git push *")],
        ("bash", "git push"),
        "deny",
    ),
    (
        "build",
        {"permission": {"bash": "ask"}},
        [approval("bash", "git push *")],
        ("bash", "git push"),
        "allow",
    ),
]


@pytest.mark.parametrize(("agent", "config", "approvals", "call", "expected"), CASES)
def test_agent_denials_are_a_floor(
    tmp_path: Path,
    agent: str,
    config: dict[str, Any],
    approvals: list[Rule],
    call: tuple[str, str],
    expected: str,
) -> None:
    loaded = Config.model_validate(config)
    agents = Agents.load(loaded, tmp_path, user_config_dir=tmp_path / "user")
    ruleset = effective_ruleset(agents.get(agent), loaded)
    assert decide(*call, ruleset, approvals).action == expected


def test_session_rules_cannot_lift_an_agent_denial(tmp_path: Path) -> None:
    agents = Agents.load(Config(), tmp_path, user_config_dir=tmp_path / "user")
    ruleset = effective_ruleset(agents.get("plan"), Config(), [Rule("edit", "*", "allow")])
    assert decide("edit", "hello.py", ruleset, []).action == "deny"


def test_explore_keeps_its_tools_hidden_under_an_allow_everything_config(tmp_path: Path) -> None:
    config = Config.model_validate({"permission": "allow"})
    agents = Agents.load(config, tmp_path, user_config_dir=tmp_path / "user")
    ruleset = effective_ruleset(agents.get("explore"), config)
    tools = ["read", "grep", "glob", "list", "edit", "write", "bash", "webfetch"]
    assert set(tools) - disabled(tools, ruleset) == {"read", "grep", "glob", "list"}


async def test_the_service_denies_plan_an_approved_edit_without_a_dialog(tmp_path: Path) -> None:
    config = Config.model_validate({"permission": {"edit": "ask"}})
    agents = Agents.load(config, tmp_path, user_config_dir=tmp_path / "user")
    ruleset = effective_ruleset(agents.get("plan"), config)
    bus = Bus()
    async with await Store.open(tmp_path / "agentls.db") as store:
        project = await store.ensure_project(tmp_path)
        await store.add_approval(project.id, "edit", "hello.py")
        service = await Permissions.open(bus, store, project.id)
        with bus.subscribe(PermissionAsked) as sub:
            with pytest.raises(PermissionDeniedError, match="denied"):
                await service.ask("ses_1", None, None, PermissionAsk("edit", ["hello.py"]), ruleset)
            assert sub.pending() == 0
