"""Agents: built-in and custom agents and the permission rules their tool calls run under."""

from core.agent.agents import Agents, derive_child_rules, effective_ruleset
from core.agent.info import AgentInfo, Mode

__all__ = ["AgentInfo", "Agents", "Mode", "derive_child_rules", "effective_ruleset"]
