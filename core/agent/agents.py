"""The agents of a project (built-in, configured, Markdown files) and the rules their calls run under."""

from __future__ import annotations

import builtins
import logging
from dataclasses import replace
from pathlib import Path
from typing import Any

from core.agent.builtin import builtin_agents, subagent_defaults
from core.agent.files import agent_dirs, read_agent_files
from core.agent.info import AgentInfo
from core.config.paths import config_dir
from core.config.schema import AgentConfig, Config
from core.errors import NotFoundError
from core.permission.rules import Rule, Ruleset, as_floor, defaults, evaluate, from_config

log = logging.getLogger(__name__)

DEFAULT_AGENT = "build"
# Permissions a subagent loses unless its own rules grant them: no todo list of its own, no nesting,
# no questions to the user (nobody watches a subagent's turn).
_CHILD_DENIED = ("todowrite", "todoread", "task", "question")


class Agents:
    """The agents available in one project."""

    def __init__(self, agents: dict[str, AgentInfo], default_name: str, warnings: list[str]) -> None:
        self._agents = agents
        self._default = default_name
        self.warnings = warnings

    @classmethod
    def load(cls, config: Config, worktree: Path, user_config_dir: Path | None = None) -> Agents:
        """Built-ins, then Markdown agents (user, then project), then ``agent.<name>`` from config."""
        warnings: list[str] = []
        agents = {agent.name: agent for agent in builtin_agents()}
        files = read_agent_files(agent_dirs(worktree, user_config_dir or config_dir()), warnings)
        for file in files:
            agents[file.name] = _apply(agents.get(file.name), file.name, file.config, str(file.path))
            if file.config.disable:
                agents.pop(file.name, None)
        for name, agent_config in config.agent.items():
            agents[name] = _apply(agents.get(name), name, agent_config, None)
            if agent_config.disable:
                agents.pop(name, None)
        for name, agent in agents.items():
            if not agent.native and agent.mode == "subagent":
                agents[name] = replace(agent, permission=[*subagent_defaults(), *agent.permission])
        default_name = _pick_default(config.default_agent, agents, warnings)
        return cls(agents, default_name, warnings)

    def get(self, name: str) -> AgentInfo:
        """The agent called ``name``."""
        agent = self._agents.get(name)
        if agent is None:
            known = ", ".join(sorted(a.name for a in self.list() if not a.hidden))
            raise NotFoundError(f"no agent named {name!r} (available: {known})")
        return agent

    def list(self) -> list[AgentInfo]:
        """Every agent, hidden ones included, in load order."""
        return list(self._agents.values())

    def default(self) -> AgentInfo:
        """The agent new sessions use."""
        return self._agents[self._default]

    def primary(self) -> builtins.list[AgentInfo]:
        """Agents the user can pick for a session."""
        return [a for a in self._agents.values() if a.is_primary]

    def subagents(self) -> builtins.list[AgentInfo]:
        """Agents the ``task`` tool can run."""
        return [a for a in self._agents.values() if a.is_subagent]


def _apply(base: AgentInfo | None, name: str, config: AgentConfig, source: str | None) -> AgentInfo:
    """``config`` laid over ``base`` (or over a new custom agent)."""
    agent = base if base is not None else AgentInfo(name=name, mode="all")
    updates: dict[str, Any] = {
        key: value
        for key in ("description", "mode", "hidden", "model", "temperature", "top_p", "prompt", "steps")
        if (value := getattr(config, key)) is not None
    }
    if config.options:
        updates["options"] = {**agent.options, **config.options}
    if config.permission is not None:
        updates["config_permission"] = [*agent.config_permission, *from_config(config.permission)]
    if source is not None:
        updates["source"] = source
    return replace(agent, **updates)


def _pick_default(wanted: str | None, agents: dict[str, AgentInfo], warnings: list[str]) -> str:
    if wanted is None:
        return DEFAULT_AGENT
    agent = agents.get(wanted)
    if agent is not None and agent.is_primary:
        return wanted
    reason = "does not exist" if agent is None else "is not a primary agent"
    message = f"default_agent {wanted!r} {reason}; using {DEFAULT_AGENT!r}"
    log.warning("%s", message)
    warnings.append(message)
    return DEFAULT_AGENT


def effective_ruleset(agent: AgentInfo, config: Config, session_rules: Ruleset | None = None) -> Ruleset:
    """Built-in defaults → agent defaults → user config → agent config → session rules.

    The agent's own rules are floors: where they deny, no config layer, session rule or "always"
    approval (which the permission service adds after all of these) can allow. For a built-in
    agent they are the rules it ships with (plan's "no edits"), which ``agent.<name>.permission``
    can tighten but not lift; for an agent the user defined, its definition's rules.
    """
    own = f"agent {agent.name}"
    configured = agent.config_permission if agent.native else as_floor(agent.config_permission, own)
    return [
        *defaults(),
        *as_floor(agent.permission, own),
        *from_config(config.permission),
        *configured,
        *(session_rules or []),
    ]


def derive_child_rules(parent_ruleset: Ruleset, child: AgentInfo) -> Ruleset:
    """Session rules for a subagent's child session, derived from the parent's effective ruleset.

    The parent's deny rules and external-directory rules carry over (a subagent never gets more
    than its parent); todo, nested task and question are denied unless the subagent's own rules
    allow them.
    """
    own = [*child.permission, *child.config_permission]
    rules: Ruleset = [
        Rule(permission, "*", "deny", floor=True, origin="subagent")
        for permission in _CHILD_DENIED
        if evaluate(permission, "*", own).action != "allow"
    ]
    rules.extend(
        rule for rule in parent_ruleset if rule.action == "deny" or rule.permission == "external_directory"
    )
    return rules
