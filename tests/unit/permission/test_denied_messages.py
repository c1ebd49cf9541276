"""What the model reads when a call is denied: who denied it and how the user lifts it (table-driven
over the rules as a session builds them: the agent's own, the config, the session's mode)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from core.agent.agents import derive_child_rules, effective_ruleset
from core.agent.builtin import builtin_agents
from core.bus import Bus
from core.config.schema import Config
from core.errors import PermissionDeniedError
from core.permission.request import PermissionAsk
from core.permission.rules import Rule, Ruleset
from core.permission.service import Permissions
from core.session.mode import Mode, mode_rules
from core.storage import Store

AGENTS = {a.name: a for a in builtin_agents()}
PLAN = list(AGENTS["plan"].permission)
PLAN_MODE = [
    "read-only mode is on",
    "read-only planning",
    "/mode ask",
    ":AgentlsMode",
    "Mode picker",
    '"Edits"',
]
PLAN_AGENT = ['"plan" agent', "build agent", "/agent build", ":AgentlsAgent", "session mode"]
CONFIG = ["denied by the configuration", "change the rule"]


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[Permissions]:
    store = await Store.open(tmp_path / "agentls.db")
    (tmp_path / "p").mkdir()
    project = await store.ensure_project(tmp_path / "p")
    yield await Permissions.open(Bus(), store, project.id)
    await store.close()


def _rules(agent: str, mode: Mode, config: object) -> Ruleset:
    configured = Config.model_validate({"permission": config})
    return mode_rules(mode, effective_ruleset(AGENTS[agent], configured), PLAN)


async def _denial(service: Permissions, ask: PermissionAsk, rules: Ruleset) -> str:
    with pytest.raises(PermissionDeniedError) as info:
        await service.ask("ses_1", None, None, ask, rules)
    return str(info.value)


@pytest.mark.parametrize(
    ("agent", "mode", "config", "permission", "pattern", "says", "never"),
    [
        # plan mode names itself and how to leave it, whatever else the config allows
        ("build", "plan", {}, "edit", "src/a.py", PLAN_MODE, CONFIG),
        ("build", "plan", {"edit": "allow"}, "edit", "src/a.py", PLAN_MODE, CONFIG),
        ("build", "plan", "allow", "edit", "a.py", PLAN_MODE, CONFIG),
        # a config deny under plan mode: the mode still explains (it would refuse the edit anyway)
        ("build", "plan", {"edit": {"secret.txt": "deny"}}, "edit", "secret.txt", PLAN_MODE, CONFIG),
        # the plan agent (the ACP session mode, the agent picker) names the agent, not the config
        ("plan", "ask", {}, "edit", "src/a.py", PLAN_AGENT, CONFIG),
        ("plan", "auto", {"edit": "allow"}, "edit", "src/a.py", PLAN_AGENT, CONFIG),
        # a rule the user wrote is theirs to change, in every mode
        ("build", "ask", {"edit": "deny"}, "edit", "a.py", CONFIG, ["plan mode"]),
        ("build", "auto", {"edit": {"*": "ask", "secret/*": "deny"}}, "edit", "secret/k", CONFIG, ["plan"]),
        ("build", "plan", {"bash": {"rm *": "deny"}}, "bash", "rm -rf x", CONFIG, ["plan mode"]),
    ],
)
async def test_a_denial_says_who_denied_and_how_to_lift_it(
    service: Permissions,
    agent: str,
    mode: Mode,
    config: object,
    permission: str,
    pattern: str,
    says: list[str],
    never: list[str],
) -> None:
    text = await _denial(service, PermissionAsk(permission, [pattern]), _rules(agent, mode, config))
    assert pattern in text
    for words in says:
        assert words.lower() in text.lower(), (words, text)
    for words in never:
        assert words.lower() not in text.lower(), (words, text)


async def test_a_subagent_under_plan_mode_is_told_about_plan_mode(service: Permissions) -> None:
    parent = _rules("build", "plan", {})
    child = effective_ruleset(AGENTS["general"], Config(), derive_child_rules(parent, AGENTS["general"]))
    text = await _denial(service, PermissionAsk("edit", ["a.py"]), child)
    assert "read-only mode is on" in text


async def test_a_subagent_denial_sends_it_back_to_its_parent(service: Permissions) -> None:
    derived = derive_child_rules(_rules("build", "ask", {}), AGENTS["general"])
    rules = effective_ruleset(AGENTS["general"], Config(), derived)
    text = await _denial(service, PermissionAsk("task", ["explore"]), rules)
    assert "subagent" in text and "change the rule" not in text


async def test_a_reject_for_this_session_is_the_users_not_the_configs(service: Permissions) -> None:
    rejected = [Rule("edit", "a.py", "deny", origin="user session")]
    rules = effective_ruleset(AGENTS["build"], Config(), rejected)
    text = await _denial(service, PermissionAsk("edit", ["a.py"]), rules)
    assert '"Reject for this session"' in text and "change the rule" not in text
