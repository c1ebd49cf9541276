"""The front door's records: what the ``core.api`` protocols take and answer (config summaries,
command results, revert results, mode and effort states). Plain data, no behaviour beyond shaping
the wire form; ``core.api`` re-exports every name, which is where front ends import them from.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import field
from typing import Any, Literal

from core.errors import NotFoundError
from core.message.findings import Finding
from core.message.models import MessageWithParts, Session
from core.message.prompt_input import AgentInput, ContextInput, FileInput, TextInput
from core.message.review import ReviewResult
from core.record import record, struct

PromptParts = Sequence[TextInput | FileInput | AgentInput | ContextInput]
McpAction = Literal["enable", "disable", "restart"]


@record
class AgentSummary:
    """An agent a user can pick (hidden agents are left out)."""

    name: str
    description: str | None
    mode: str
    model: str | None
    steps: int | None = None


@record
class ModelLimits:
    """Context and output limits of a model, 0 when unknown (a client's context-use gauge)."""

    context: int = 0
    output: int = 0


@record
class ProviderSummary:
    """A provider configured in agentls.json (a client's first-run setup lists them; no key is given out)."""

    id: str
    litellm_provider: str  # the litellm provider its requests go through (its own id when not set)
    models: tuple[str, ...]  # the models the config lists for it
    has_key: bool  # whether the config holds an API key for it


@record
class ProviderChoice:
    """A provider a first-run setup can offer, with its chat models (no key is given out)."""

    id: str
    key_env: str | None  # the environment variable its key is read from, when agentls knows one
    has_key: bool  # a key is there (config or environment)
    configured: bool  # agentls.json names it
    models: tuple[str, ...]


@record
class ConfigInfo:
    """Agents and models for a client's pickers."""

    agents: tuple[AgentSummary, ...]
    models: tuple[str, ...]
    default_agent: str
    default_model: str | None
    model_limits: dict[str, ModelLimits] = field(default_factory=dict)
    providers: tuple[ProviderSummary, ...] = ()

    def agent(self, name: str) -> AgentSummary:
        """The agent called ``name`` (NotFoundError names the agents there are)."""
        for summary in self.agents:
            if summary.name == name:
                return summary
        known = ", ".join(a.name for a in self.agents)
        raise NotFoundError(f"no agent named {name!r} (agents: {known})")

    def to_wire(self) -> dict[str, Any]:
        """The ``agent/config`` answer (docs/protocol.md), also the fields of ``config.updated``."""
        return {
            "agents": [
                {"name": a.name, "description": a.description, "mode": a.mode, "model": a.model}
                for a in self.agents
            ],
            "models": list(self.models),
            "defaultAgent": self.default_agent,
            "defaultModel": self.default_model,
            "modelLimits": {
                ref: {"context": limits.context, "output": limits.output}
                for ref, limits in self.model_limits.items()
            },
        }


@record
class Reconfigured:
    """What a reconfigure changed (top-level keys) and its warnings (unknown keys, MCP servers skipped)."""

    changed: list[str]
    warnings: list[str]


@struct
class RevertResult:
    """What a revert or unrevert did, file by file (worktree-relative paths)."""

    restored: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


@record
class CommandSummary:
    """A command a user can run as ``/name args``: built in, or the user's own (config or a file)."""

    name: str
    description: str
    kind: str  # "builtin", "user" or "mcp" (an MCP server's prompt)
    source: str  # "built-in", "config", or the file that defines it
    hint: str = ""  # what its arguments are, for a client's menu
    agent: str | None = None
    model: str | None = None
    subtask: bool = False

    def to_wire(self) -> dict[str, Any]:
        """One entry of the ``agent/commands`` answer (docs/protocol.md)."""
        return {
            "name": self.name,
            "description": self.description,
            "kind": self.kind,
            "source": self.source,
            "hint": self.hint,
            "agent": self.agent,
            "model": self.model,
            "subtask": self.subtask,
        }


@record
class CommandList:
    """The commands there are, and the command files that could not be read (``file:line: why``)."""

    commands: tuple[CommandSummary, ...]
    errors: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()


@record
class CommandItem:
    """One entry a command lists (a message /rewind can go back to, a hunk /review shows, a model)."""

    id: str
    label: str
    detail: str = ""


@record
class CommandResult:
    """What running a command did: a turn's final message (prompts, /compact) or a revert (/undo, /redo,
    /rewind); for the other built-ins, what to show (``text``), what was chosen (``value``: /model,
    /agent, /mode, /effort), the session /new made, the entries listed (``items``) or the review result
    (/keep, /undo of hunks), or the findings of a code review (/review)."""

    name: str
    message: MessageWithParts | None = None
    revert: RevertResult | None = None
    text: str | None = None
    value: str | None = None
    session: Session | None = None
    items: tuple[CommandItem, ...] = ()
    review: ReviewResult | None = None
    findings: tuple[Finding, ...] | None = None  # /review: what the agent's code review found


def unrecorded_warning(count: int) -> str:
    """What a diff says of ``count`` steps whose file changes were not recorded (a snapshot failed)."""
    return (
        f"{count} step(s) changed files that were not recorded (a snapshot failed then): "
        "this step's changes were not recorded and are missing from this diff"
    )


@record
class ModeChoice:
    """A mode as a client's picker shows it."""

    id: str
    name: str
    description: str


@record
class ModeState:
    """A session's mode and the modes there are (``agent/session/mode``); no ``session_id``: the
    mode a new session starts in."""

    session_id: str | None
    mode: str
    modes: tuple[ModeChoice, ...]


@record
class EffortState:
    """A session's effort and the levels its model offers ([] when it has no thinking control;
    ``effort`` is "default" until one is chosen); no ``session_id``: a new session's."""

    session_id: str | None
    effort: str
    levels: tuple[str, ...]
    model: str | None = None  # the model the levels are for ("provider/model")


@record
class McpResourceInfo:
    """A resource a running MCP server lists: attached as ``@server:uri`` (a context item)."""

    server: str
    uri: str
    name: str
    description: str = ""
    mime_type: str = ""
    size: int | None = None  # bytes, when the server says


@record
class McpTemplateInfo:
    """A resource template (``notes://{name}``): attached once its ``arguments`` are filled in."""

    server: str
    uri_template: str
    name: str
    description: str = ""
    mime_type: str = ""
    arguments: tuple[str, ...] = ()


@record
class McpResourceList:
    """The resources and resource templates of the running MCP servers, in the config's order."""

    resources: tuple[McpResourceInfo, ...] = ()
    templates: tuple[McpTemplateInfo, ...] = ()


@record
class McpServerStatus:
    """One configured MCP server as the servers view shows it."""

    name: str
    type: str  # "local" or "remote"
    enabled: bool
    status: str  # "running", "failed" (``error`` says why), "needs-login" (``error`` says how) or "disabled"
    tools: int = 0
    resources: int = 0
    prompts: int = 0
    error: str | None = None
    # remote servers' OAuth: "logged-in" (tokens stored), "needs-login", "not-needed"; None: local
    auth: str | None = None
