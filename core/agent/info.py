"""What an agent is: a named prompt, model settings and the permission rules its tools run under."""

from __future__ import annotations

from dataclasses import field
from typing import Any, Literal, TypeAlias

from core.permission.rules import Ruleset
from core.record import struct

Mode: TypeAlias = Literal["primary", "subagent", "all"]


@struct
class AgentInfo:
    """One agent.

    ``permission`` holds the agent's own default rules (what makes ``plan`` read-only);
    ``config_permission`` the rules the user configured for this agent (``agent.<name>.permission``
    or a Markdown agent's front matter). They sit at different depths of the effective ruleset
    (see ``core.agent.agents.effective_ruleset``), so they are kept apart.
    """

    name: str
    description: str = ""
    mode: Mode = "all"
    hidden: bool = False
    model: str | None = None
    temperature: float | None = None
    top_p: float | None = None
    prompt: str | None = None
    permission: Ruleset = field(default_factory=list)
    steps: int | None = None
    options: dict[str, Any] = field(default_factory=dict)
    native: bool = False
    config_permission: Ruleset = field(default_factory=list)
    source: str | None = None  # the file a Markdown agent came from

    @property
    def is_primary(self) -> bool:
        """Whether the user can pick this agent for a session."""
        return self.mode in ("primary", "all") and not self.hidden

    @property
    def is_subagent(self) -> bool:
        """Whether the ``task`` tool can run this agent."""
        return self.mode in ("subagent", "all") and not self.hidden
