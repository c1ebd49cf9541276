"""Every family prompt carries the eight guidance topics, and the tool texts every family sees carry
git safety and tool-call hygiene: each topic is a Markdown heading the model reads, pinned here by name.

A topic missing from a prompt fails with its number and name, so a rewrite cannot drop one silently.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from core.agent.agents import Agents
from core.agent.builtin import builtin_agents
from core.agent.info import AgentInfo
from core.config.schema import Config
from core.session.system import FAMILY_PROMPTS, agent_base, family_prompt
from core.tools.context import SubtaskResult, ToolContext
from core.tools.registry import builtin_registry
from core.tools.task import TaskTool

# Issue #38's list; the heading names are the markers, so renaming one means changing it here too.
TOPICS = {
    1: "Git safety",
    2: "The user edits the same files",
    3: "Where text comes from",
    4: "Answer before acting",
    5: "Secrets",
    6: "The project's commands",
    7: "Tool calls and delegation",
    8: "Style",
}
FAMILIES = [*FAMILY_PROMPTS, "default"]
# The tool texts every family is offered, and the topics each must carry itself.
TOOL_TOPICS = {"bash": (1, 7), "task": (1, 7), "grep": (7,), "glob": (7,)}


class _Listing:
    """Only lists subagents: the test reads the task tool's description, it never runs one."""

    def describe_subagents(self) -> list[tuple[str, str]]:
        return [("explore", "read-only explorer")]

    async def run_subtask(
        self, ctx: ToolContext, agent: str, prompt: str, description: str, task_id: str | None
    ) -> SubtaskResult:
        raise AssertionError("the description test runs no subagent")


def _headings(text: str) -> list[str]:
    return re.findall(r"^#{1,3} (.+?)\s*$", text, flags=re.MULTILINE)


def _tool_text(tool_id: str) -> str:
    if tool_id == "task":
        return TaskTool(_Listing()).description
    tool = builtin_registry().get(tool_id)
    assert tool is not None, f"no built-in tool {tool_id}"
    return tool.description


def _missing(text: str, topics: tuple[int, ...]) -> list[str]:
    headings = _headings(text)
    return [f"{n}. {TOPICS[n]}" for n in topics if TOPICS[n] not in headings]


@pytest.mark.parametrize("family", FAMILIES)
def test_every_family_prompt_has_all_eight_topics(family: str) -> None:
    missing = _missing(family_prompt(family), tuple(TOPICS))
    assert not missing, f"the {family} prompt lacks guidance topics: {missing}"


@pytest.mark.parametrize(("tool_id", "topics"), TOOL_TOPICS.items())
def test_tool_texts_carry_git_safety_and_tool_call_hygiene(tool_id: str, topics: tuple[int, ...]) -> None:
    missing = _missing(_tool_text(tool_id), topics)
    assert not missing, f"the {tool_id} tool text lacks guidance topics: {missing}"


def test_the_check_fails_when_a_topic_heading_is_gone() -> None:
    prompt = family_prompt("default")
    assert _missing(prompt.replace("# Secrets\n", "Secrets:\n"), tuple(TOPICS)) == ["5. Secrets"]
    # A heading named in prose is not a heading.
    assert _missing("We care about Git safety.", (1,)) == ["1. Git safety"]


@pytest.mark.parametrize(
    "agent", [a for a in builtin_agents() if a.prompt and not a.hidden], ids=lambda a: a.name
)
def test_built_in_agents_with_a_prompt_of_their_own_have_all_eight_topics(agent: AgentInfo) -> None:
    missing = _missing(agent_base(agent, "default"), tuple(TOPICS))
    assert not missing, f"the {agent.name} agent's prompt lacks guidance topics: {missing}"


def test_a_user_agent_gets_the_guidance_after_its_own_prompt(tmp_path: Path) -> None:
    user_config = tmp_path / "config"
    (user_config / "agent").mkdir(parents=True)
    (user_config / "agent" / "reviewer.md").write_text(
        "---\ndescription: Reviews\n---\nYou review code tersely.\n"
    )
    agent = Agents.load(Config(), tmp_path / "project", user_config).get("reviewer")
    base = agent_base(agent, "anthropic")
    assert base.startswith("You review code tersely.\n\n")
    assert not _missing(base, tuple(TOPICS))
    assert family_prompt("anthropic") not in base  # its own prompt replaces the family's, not the guidance


def test_hidden_agents_keep_their_prompt_alone() -> None:
    (title,) = [a for a in builtin_agents() if a.name == "title"]
    assert title.prompt is not None and agent_base(title, "default") == title.prompt


def test_the_guidance_is_the_same_bytes_after_every_family_prompt() -> None:
    # One shared text, after the family's own: the cached prefix differs only in the family part.
    tails = {family_prompt(f)[family_prompt(f).index("# Git safety") :] for f in FAMILIES}
    assert len(tails) == 1
