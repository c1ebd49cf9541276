"""The agents agentls ships: build, plan, general, explore and the hidden tool-less helpers."""

from __future__ import annotations

import importlib.resources
from functools import cache

from core.agent.info import AgentInfo
from core.permission.rules import Action, Rule, Ruleset, from_config

PLAN_FILES = ".agentls/plans/*"

# Reading secrets asks even for agents that may otherwise read everything.
_READ_WITH_SECRETS_ASKED: dict[str, Action] = {
    "*": "allow",
    "*.env": "ask",
    "*.env.*": "ask",
    "*.env.example": "allow",
}


@cache
def agent_prompt(name: str) -> str:
    """The prompt file of a built-in agent."""
    return importlib.resources.files(__package__).joinpath(f"prompts/{name}.txt").read_text("utf-8").strip()


def subagent_defaults() -> Ruleset:
    """Rules every subagent starts with: it cannot stop to ask the user questions."""
    return [Rule("question", "*", "deny")]


def builtin_agents() -> list[AgentInfo]:
    """Fresh copies of the built-in agents."""
    tool_less = from_config("deny")
    return [
        AgentInfo(
            name="build",
            description="The default agent: reads, edits and runs commands to carry out the task.",
            mode="primary",
            native=True,
        ),
        AgentInfo(
            name="plan",
            description=(
                "Plans without changing anything (edits are denied except plan files), then presents "
                "the plan for your approval; approved, the build agent carries it out."
            ),
            mode="primary",
            native=True,
            permission=from_config({"edit": {"*": "deny", PLAN_FILES: "allow"}, "plan_exit": "allow"}),
        ),
        AgentInfo(
            name="general",
            description=(
                "General-purpose agent for researching complex questions and carrying out multi-step "
                "tasks; can run several units of work in parallel."
            ),
            mode="subagent",
            native=True,
            prompt=agent_prompt("general"),
            permission=[*subagent_defaults(), *from_config({"todowrite": "deny", "todoread": "deny"})],
        ),
        AgentInfo(
            name="explore",
            description=(
                "Fast read-only agent for exploring a codebase: finds files by pattern, searches code "
                "for keywords, answers questions about how the code works."
            ),
            mode="subagent",
            native=True,
            prompt=agent_prompt("explore"),
            permission=[
                *subagent_defaults(),
                *from_config(
                    {
                        "*": "deny",
                        "read": dict(_READ_WITH_SECRETS_ASKED),
                        "grep": "allow",
                        "glob": "allow",
                        "list": "allow",
                        "external_directory": "ask",
                    }
                ),
            ],
        ),
        *(
            AgentInfo(
                name=name,
                mode="primary",
                hidden=True,
                native=True,
                prompt=agent_prompt(name),
                permission=list(tool_less),
            )
            for name in ("compaction", "title", "summary")
        ),
    ]
