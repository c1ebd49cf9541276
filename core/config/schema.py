"""The shape of agentls config: OpenCode's keys in snake_case, validated with pydantic.

Every section keeps keys it does not know (``extra="allow"``) so a newer config still loads; the loader
reports them as warnings with their key path.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal, TypeAlias
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

Action: TypeAlias = Literal["allow", "ask", "deny"]
# Per permission: one action for every pattern, or {pattern: action} whose order is precedence.
PermissionRule: TypeAlias = Action | dict[str, Action]
# A bare action applies to every permission; a mapping keeps its key order (the last match wins).
PermissionConfig: TypeAlias = Action | dict[str, PermissionRule]


class ConfigSection(BaseModel):
    """Base of every config section: unknown keys are kept, not rejected.

    Validators are built at first use: most sections are only ever validated inside ``Config``,
    whose validator covers them, so building one of their own at import was wasted start-up."""

    model_config = ConfigDict(extra="allow", defer_build=True)


class ModelLimit(ConfigSection):
    """Token limits of a model; ``input`` when the provider caps the prompt separately."""

    context: int
    input: int | None = None
    output: int


class ModelCost(ConfigSection):
    """Prices in USD per million tokens."""

    input: float = 0
    output: float = 0
    cache_read: float | None = None
    cache_write: float | None = None


class ModelModalities(ConfigSection):
    """What a model reads and writes: ``input`` may list ``image`` and ``pdf`` besides ``text``."""

    input: list[str] = ["text"]
    output: list[str] = ["text"]


class ModelConfig(ConfigSection):
    """One model of a provider: display name, limits, prices, what it reads, options passed to the call."""

    name: str | None = None
    limit: ModelLimit | None = None
    cost: ModelCost | None = None
    modalities: ModelModalities | None = None
    options: dict[str, Any] = {}


class ProviderOptions(ConfigSection):
    """Connection options; extra keys are passed through to litellm unchanged."""

    api_base: str | None = None
    api_key: str | None = None
    headers: dict[str, str] = {}
    # Seconds a request may take; 0 or less would time out every request at once (and retry it).
    timeout: float | None = Field(default=None, gt=0)
    # Stall detection (seconds without a byte): before the first byte, then between chunks.
    first_byte_timeout: float | None = Field(default=None, gt=0)
    chunk_timeout: float | None = Field(default=None, gt=0)
    # Leave the provider's key in the environment of bash and MCP children (hidden by default).
    pass_key_to_tools: bool = False

    @field_validator("api_base")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        try:
            parts = urlsplit(value)
            parts.port  # noqa: B018 - raises on a port that is not a number in range
        except ValueError as exc:
            raise ValueError(f"must be an http:// or https:// URL with a valid port ({exc})") from None
        if parts.scheme.lower() not in ("http", "https"):
            raise ValueError("must be an http:// or https:// URL, such as http://127.0.0.1:8000/v1")
        if not parts.hostname:
            raise ValueError("must name a host, such as http://127.0.0.1:8000/v1")
        return value


class ProviderConfig(ConfigSection):
    """A provider: which litellm provider it maps to, its options and its models."""

    litellm_provider: str | None = None
    options: ProviderOptions = Field(default_factory=ProviderOptions)
    models: dict[str, ModelConfig] = {}


class AgentConfig(ConfigSection):
    """A custom agent, or overrides for a built-in one (``agent.<name>``)."""

    description: str | None = None
    mode: Literal["primary", "subagent", "all"] | None = None
    hidden: bool | None = None
    model: str | None = None
    temperature: float | None = None
    top_p: float | None = None
    prompt: str | None = None
    permission: PermissionConfig | None = None
    steps: int | None = None
    disable: bool | None = None
    options: dict[str, Any] = {}


class CompactionConfig(ConfigSection):
    """Context compaction and prune switches and thresholds (tokens)."""

    auto: bool = True
    prune: bool = True
    tail_turns: int = Field(default=2, ge=0)
    reserved: int | None = Field(default=None, ge=0)
    prune_minimum: int = Field(default=20_000, ge=0)
    prune_protect: int = Field(default=40_000, ge=0)


class ToolOutputConfig(ConfigSection):
    """Where tool output is truncated before it reaches the model."""

    max_lines: int = Field(default=2000, gt=0)
    max_bytes: int = Field(default=51_200, gt=0)


class SnapshotConfig(ConfigSection):
    """Step snapshots; the config may also say just ``"snapshot": false``."""

    enabled: bool = True
    max_file_bytes: int = Field(default=2_000_000, gt=0)
    max_blob_bytes: int = Field(default=1_000_000, gt=0)  # binary files above this are not kept
    max_store_bytes: int = Field(default=1_000_000_000, gt=0)
    keep_days: int = Field(default=7, ge=0)

    @model_validator(mode="before")
    @classmethod
    def _accept_bare_bool(cls, data: Any) -> Any:
        if isinstance(data, bool):
            return {"enabled": data}
        if not isinstance(data, dict | SnapshotConfig):
            raise ValueError('must be true, false or an object such as {"enabled": true, "keep_days": 7}')
        return data


class McpLocal(ConfigSection):
    """An MCP server started as a subprocess speaking stdio."""

    type: Literal["local"]
    command: list[str] = Field(min_length=1)
    environment: dict[str, str] = {}
    enabled: bool = True
    # False: the server runs outside the sandbox (it is confined like a command otherwise, network on).
    sandbox: bool = True


class McpOAuth(ConfigSection):
    """The OAuth client of a remote MCP server, when its authorization server does not let agentls
    register one itself (RFC 7591): the client id (and secret) made for you there, the scopes to
    ask for (else those the server names), and the loopback port its redirect URI names (else a
    free one: an authorization server that compares redirect URIs exactly needs it fixed)."""

    model_config = ConfigDict(extra="allow", defer_build=True, populate_by_name=True)

    client_id: str = Field(alias="clientId", min_length=1)
    client_secret: str | None = Field(default=None, alias="clientSecret")
    scopes: list[str] | None = None
    redirect_port: int | None = Field(default=None, alias="redirectPort", ge=1, le=65535)


class McpRemote(ConfigSection):
    """An MCP server reached over HTTP: streamable HTTP, or the older HTTP+SSE transport. One that
    answers 401 is logged in to with OAuth (``agentls mcp login``), unless ``headers`` carry an
    ``Authorization`` of their own."""

    type: Literal["remote"]
    url: str
    headers: dict[str, str] = {}
    enabled: bool = True
    # "sse": the 2024-11-05 transport (a GET event stream, messages POSTed to the endpoint it names)
    transport: Literal["http", "sse"] = "http"
    oauth: McpOAuth | None = None

    @property
    def uses_oauth(self) -> bool:
        """Whether agentls logs in to it with OAuth: not when its headers carry their own
        ``Authorization`` (a token the user manages)."""
        return not any(key.lower() == "authorization" for key in self.headers)


McpServer: TypeAlias = Annotated[McpLocal | McpRemote, Field(discriminator="type")]


class CommandConfig(ConfigSection):
    """A user command (``command.<name>``): a prompt template run as ``/name args``."""

    template: str = Field(min_length=1)
    description: str | None = None
    agent: str | None = None
    model: str | None = None
    subtask: bool = False


class RetryConfig(ConfigSection):
    """Retries of failed provider calls (delays in seconds)."""

    max_attempts: int = Field(default=10, ge=0)
    max_delay: float = Field(default=30.0, ge=0)
    initial_delay: float = Field(default=1.0, ge=0)


SandboxMode: TypeAlias = Literal["read-only", "workspace-write", "full"]


_HOST = re.compile(r"^(\*\.)?[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$|^[0-9a-fA-F:.]+$")


class SandboxNetwork(ConfigSection):
    """The network a sandboxed command gets: none (``[]``, the default: every host asks through the
    sandbox's proxy), all of it (``["*"]``), or these hosts without asking (``["pypi.org",
    "*.npmjs.org"]``)."""

    allow: list[str] = []

    @field_validator("allow")
    @classmethod
    def _hosts(cls, value: list[str]) -> list[str]:
        if "*" in value and value != ["*"]:
            raise ValueError('"*" allows every host: give it alone, or list the hosts')
        bad = [entry for entry in value if entry != "*" and not _HOST.match(entry)]
        if bad:
            raise ValueError(f"not a host name or *.domain pattern: {', '.join(bad)}")
        return value


class SandboxEnv(ConfigSection):
    """Environment variables the sandbox passes although their names look like secrets."""

    model_config = ConfigDict(extra="allow", defer_build=True, populate_by_name=True, serialize_by_alias=True)

    pass_: list[str] = Field(default=[], alias="pass")


class SandboxConfig(ConfigSection):
    """The OS sandbox every command the agent runs is confined in (``core/sandbox``)."""

    mode: SandboxMode = "workspace-write"
    writable: list[str] = []  # extra writable folders: absolute, ~/..., or relative to the project
    readable: list[str] = []  # hidden credential folders and files to show anyway (e.g. "~/.npmrc")
    network: SandboxNetwork = Field(default_factory=SandboxNetwork)
    env: SandboxEnv = Field(default_factory=SandboxEnv)


class Config(ConfigSection):
    """The resolved agentls config."""

    model: str | None = None
    small_model: str | None = None
    default_agent: str | None = None
    provider: dict[str, ProviderConfig] = {}
    agent: dict[str, AgentConfig] = {}
    permission: PermissionConfig | None = None
    compaction: CompactionConfig = Field(default_factory=CompactionConfig)
    instructions: list[str] = []
    tool_output: ToolOutputConfig = Field(default_factory=ToolOutputConfig)
    snapshot: SnapshotConfig = Field(default_factory=SnapshotConfig)
    mcp: dict[str, McpServer] = {}
    retry: RetryConfig = Field(default_factory=RetryConfig)
    sandbox: SandboxConfig = Field(default_factory=SandboxConfig)
    command: dict[str, CommandConfig] = {}
    # Commands run at moments of a turn, Claude Code's shape (core.hooks.settings reads it).
    hooks: dict[str, Any] | None = None

    @field_validator("mcp", mode="before")
    @classmethod
    def _toggles_only_where_defined(cls, value: Any) -> Any:
        # `agentls mcp disable NAME` writes {"enabled": false} for NAME in the user's config; where
        # no layer defines NAME (another project), that toggle alone is not a server: left out.
        if not isinstance(value, dict):
            return value
        return {
            name: entry
            for name, entry in value.items()
            if not (isinstance(entry, dict) and "type" not in entry and set(entry) <= {"enabled"})
        }
