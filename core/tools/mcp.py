"""MCP servers from config: connect through the official SDK and offer their tools as ``<server>_<tool>``
(and keep the ``instructions`` each server gives at initialize, for the system prompt, and the
prompts it offers, run as slash commands, and its resources, attached as context). A server's
``elicitation/create`` is asked as a form in the session of its tool call (``core.tools.mcp_elicit``).
A remote server is reached with its stored OAuth tokens, refreshed when they expire; one that wants a
login it has no token for is skipped and listed in ``needs_login`` (``core.tools.mcp_auth``).

Each server runs in a task of its own that enters the SDK client's context and stays inside it until
``close()``: the SDK's anyio scopes must be entered and left by the same task. A server that fails
to start or list its tools is reported in ``warnings`` and skipped; it never stops the others.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, ClassVar

import httpx2
from mcp import Client
from mcp.client.sse import sse_client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError
from mcp.types import CONNECTION_CLOSED, ElicitRequestParams, ElicitRequestURLParams, ElicitResult
from pydantic import BaseModel, ConfigDict

from core.api_types import McpResourceInfo, McpTemplateInfo
from core.config.schema import McpLocal, McpRemote
from core.errors import AbortedError, InvalidInputError, NotFoundError, ToolError
from core.permission.request import PermissionAsk
from core.record import record
from core.sandbox.sandbox import Sandbox
from core.tools.base import Tool, ToolResult
from core.tools.context import ToolContext
from core.tools.mcp_auth import SessionAuth
from core.tools.mcp_elicit import ask_form
from core.tools.mcp_listing import McpPrompt, all_pages, prompts_of, resources_of, templates_of
from core.tools.mcp_stderr import StderrTail

log = logging.getLogger(__name__)

CONNECT_TIMEOUT = 30.0
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


class McpArgs(BaseModel):
    """Arguments of an MCP tool: passed through as given; the server validates them against its schema."""

    model_config = ConfigDict(extra="allow")


@record(eq=False)
class _Link:
    """What a server's tools share with its manager: the calls under way, and how to say it died."""

    calls: list[ToolContext]
    lost: Callable[[str], None]


@record
class _Listed:
    name: str
    description: str
    schema: dict[str, Any]


class McpTool(Tool[McpArgs]):
    """One tool of a connected MCP server."""

    Params: ClassVar[type[BaseModel]] = McpArgs
    truncate = "head"

    def __init__(self, server: str, client: Client, listed: _Listed, link: _Link) -> None:
        self.server = server
        self.tool_name = listed.name
        self._client = client
        self._calls = link.calls  # the server's calls under way: an elicitation asks in the latest's session
        self._lost = link.lost
        self._description = listed.description
        self._schema = listed.schema

    @property
    def description(self) -> str:
        return self._description or f"The {self.tool_name} tool of the {self.server} MCP server."

    def spec(self) -> dict[str, Any]:
        return {
            "name": self.id,
            "description": self.description,
            "parameters": _provider_schema(self._schema),
        }

    async def execute(self, params: McpArgs, ctx: ToolContext) -> ToolResult:
        await ctx.ask(PermissionAsk(self.id, ["*"], ["*"], title=f"Call {self.tool_name} on {self.server}"))
        arguments = params.model_dump()
        if ctx.abort.is_set():
            raise AbortedError(f"the call of MCP tool {self.id} was aborted")
        call = asyncio.ensure_future(self._client.call_tool(self.tool_name, arguments))
        aborted = asyncio.ensure_future(ctx.abort.wait())
        self._calls.append(ctx)
        try:
            done, _ = await asyncio.wait({call, aborted}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            aborted.cancel()
            self._calls.remove(ctx)
        if call not in done:
            call.cancel()
            raise AbortedError(f"the call of MCP tool {self.id} was aborted")
        try:
            result = call.result()
        except MCPError as exc:
            if exc.code == CONNECTION_CLOSED:  # the server died: it is shown failed, its tools go
                self._lost(f"it stopped during a call of {self.tool_name} ({exc.error.message})")
                raise ToolError(
                    f"The MCP server {self.server} stopped while running {self.tool_name}; its tools are "
                    "gone until the user restarts it. Go on without them."
                ) from exc
            raise ToolError(
                f"The MCP server {self.server} refused the call of {self.tool_name}: {exc}"
            ) from exc
        text = _content_text(result.content)
        if result.is_error:
            raise ToolError(f"The MCP tool {self.tool_name} of {self.server} failed: {text or 'no details'}")
        return ToolResult(
            title=f"{self.server}: {self.tool_name}",
            output=text,
            metadata={"server": self.server, "tool": self.tool_name},
        )


def tool_id(server: str, tool: str) -> str:
    """The id an MCP tool gets: ``<server>_<tool>`` with characters providers reject replaced."""
    return _UNSAFE.sub("_", f"{server}_{tool}")[:64]


class McpManager:
    """The configured MCP servers of one agent instance."""

    def __init__(
        self,
        servers: Mapping[str, McpLocal | McpRemote],
        *,
        cwd: Path | None = None,
        connect_timeout: float = CONNECT_TIMEOUT,
        sandbox: Sandbox | None = None,
    ) -> None:
        self._servers = dict(servers)
        self._cwd = cwd
        self._sandbox = sandbox
        self._timeout = connect_timeout
        self._closing = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self._tools: list[McpTool] = []
        self.warnings: list[str] = []
        self.connected: list[str] = []
        self.instructions: dict[str, str] = {}  # what each server said at initialize, when anything
        self.prompts: list[McpPrompt] = []
        self._failure: tuple[str, str] | None = None  # (server, why) when one that had started stopped
        self.resources: list[McpResourceInfo] = []
        self.templates: list[McpTemplateInfo] = []
        self._clients: dict[str, Client] = {}
        self._calls: dict[str, list[ToolContext]] = {}  # each server's tool calls under way
        self._stderr: dict[str, StderrTail] = {}  # local servers' stderr, its last lines kept
        self._oauth: dict[str, SessionAuth] = {}  # remote servers' OAuth
        self.needs_login: set[str] = set()  # servers that answered 401 and have no usable token

    async def start(self) -> None:
        """Connect every enabled server at once; report and skip those that fail."""
        names = [name for name, cfg in self._servers.items() if cfg.enabled]
        results = await asyncio.gather(*(self._connect(name, self._servers[name]) for name in names))
        for name, tools in zip(names, results, strict=True):
            if tools is not None:
                self.connected.append(name)
                self._tools.extend(tools)

    def tools(self) -> list[Tool[Any]]:
        """The tools of every connected server."""
        return list(self._tools)

    async def close(self) -> None:
        """Disconnect every server (stdio servers are stopped)."""
        self._closing.set()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks.clear()
        self._tools.clear()
        self._clients.clear()
        self.prompts.clear()
        self.resources.clear()
        self.templates.clear()

    async def _connect(self, name: str, cfg: McpLocal | McpRemote) -> list[McpTool] | None:
        ready: asyncio.Future[list[McpTool]] = asyncio.get_running_loop().create_future()
        task = asyncio.create_task(self._serve(name, cfg, ready), name=f"mcp:{name}")
        self._tasks.append(task)
        try:
            return await asyncio.wait_for(asyncio.shield(ready), self._timeout)
        except TimeoutError:
            self._skip(name, f"no answer within {self._timeout:g} s")
        except Exception as exc:  # whatever the SDK or the server raised: the server is skipped
            if name in self._stderr:  # what it said before it exited, read to the end
                await asyncio.to_thread(self._stderr[name].wait, 2.0)
            if name in self._oauth and self._oauth[name].needs_login:
                self.needs_login.add(name)
                self._skip(name, f"it needs a login: run `agentls mcp login {name}`")
            else:
                self._skip(name, _describe(exc))
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        return None

    async def _serve(
        self, name: str, cfg: McpLocal | McpRemote, ready: asyncio.Future[list[McpTool]]
    ) -> None:
        """Hold the server's connection open until ``close()``; this task owns the SDK's scopes."""
        calls = self._calls.setdefault(name, [])

        async def elicit(context: Any, params: ElicitRequestParams) -> ElicitResult:
            return await _elicit(name, calls, params)

        try:
            if isinstance(cfg, McpLocal):
                params = self._stdio_params(name, cfg)
                stderr = self._stderr[name] = StderrTail(name)
                try:
                    transport = stdio_client(params, errlog=stderr.writer)
                    async with Client(transport, elicitation_callback=elicit) as client:
                        await self._ready(name, client, ready)
                finally:
                    stderr.close()
            elif cfg.transport == "sse":
                transport = sse_client(cfg.url, headers=cfg.headers or None, auth=self._auth(name, cfg))
                async with Client(transport, elicitation_callback=elicit) as client:
                    await self._ready(name, client, ready)
            else:
                async with (
                    create_mcp_http_client(headers=cfg.headers or None, auth=self._auth(name, cfg)) as http,
                    Client(
                        streamable_http_client(cfg.url, http_client=http), elicitation_callback=elicit
                    ) as client,
                ):
                    await self._ready(name, client, ready)
        except (
            Exception
        ) as exc:  # a failure after start is kept for the servers view; before, ready carries it
            if not ready.done():
                ready.set_exception(exc)
            elif not self._closing.is_set():
                self._stopped(name, _describe(exc))
            return
        if ready.done() and not self._closing.is_set():  # the connection ended by itself
            self._stopped(name, "the server closed the connection")

    def _auth(self, name: str, cfg: McpRemote) -> httpx2.Auth | None:
        """The OAuth of a remote server (stored tokens, refreshed; never a browser), unless its
        headers carry an ``Authorization`` of their own."""
        if not cfg.uses_oauth:
            return None
        auth = self._oauth[name] = SessionAuth(cfg)
        return auth.provider

    def _stopped(self, name: str, reason: str) -> None:
        """A running server stopped: its tools are no longer offered, the failure is kept."""
        log.warning("MCP server %s stopped: %s", name, self._with_stderr(name, reason))
        self._failure = (name, reason)
        self._tools.clear()
        self._clients.pop(name, None)

    def _stdio_params(self, name: str, cfg: McpLocal) -> StdioServerParameters:
        """How a local server is started: confined like a command (network on: servers are mostly
        API clients) unless its config says ``"sandbox": false``. The SDK passes a server only a
        few safe variables of agentls's environment, and its configured ``environment``."""
        argv, env = list(cfg.command), dict(cfg.environment)
        if self._sandbox is not None and (cfg.sandbox or name in self._sandbox.confined_mcp):
            cwd = self._cwd or Path.cwd()
            confined = self._sandbox.confine(argv, cwd, env, network=True)
            argv = confined.argv
            if confined.policy is not None:
                env = {**env, "TMPDIR": str(confined.policy.tmpdir)}
            log.info("MCP server %s starts %s", name, "sandboxed" if confined.policy else "unsandboxed")
        return StdioServerParameters(command=argv[0], args=argv[1:], env=env or None, cwd=self._cwd)

    async def _ready(self, name: str, client: Client, ready: asyncio.Future[list[McpTool]]) -> None:
        listed: list[_Listed] = []
        cursor: str | None = None
        while True:
            page = await client.list_tools(cursor=cursor)
            listed.extend(_Listed(t.name, t.description or "", dict(t.input_schema)) for t in page.tools)
            cursor = page.next_cursor
            if not cursor:
                break
        link = _Link(self._calls.setdefault(name, []), lambda reason: self._stopped(name, reason))
        tools = [_make_tool(name, client, item, link) for item in listed]
        log.info("MCP server %s connected with %s tools", name, len(tools))
        instructions = (client.instructions or "").strip()
        if instructions:
            self.instructions[name] = instructions
        self._clients[name] = client
        if name in self._stderr:  # the server has its copy now: ours would keep the pipe open after it exits
            self._stderr[name].close()
        if client.server_capabilities.prompts is not None:
            try:
                self.prompts.extend(prompts_of(name, await all_pages(client.list_prompts, "prompts")))
            except MCPError as exc:  # its tools still work: the prompts are said missing
                self.warnings.append(f"MCP server {name!r} did not list its prompts: {exc}")
        if client.server_capabilities.resources is not None:
            try:
                listed_resources = await all_pages(client.list_resources, "resources")
                templates = await all_pages(client.list_resource_templates, "resource_templates")
                self.resources.extend(resources_of(name, listed_resources))
                self.templates.extend(templates_of(name, templates))
            except MCPError as exc:
                self.warnings.append(f"MCP server {name!r} did not list its resources: {exc}")
        if not ready.done():
            ready.set_result(tools)
        await self._closing.wait()

    async def get_prompt(self, prompt: McpPrompt, arguments: dict[str, str]) -> list[Any]:
        """The messages ``prompts/get`` renders for ``prompt`` (the SDK's ``PromptMessage``s)."""
        client = self._clients.get(prompt.server)
        if client is None:
            raise NotFoundError(f"the MCP server {prompt.server} is not connected")
        try:
            result = await client.get_prompt(prompt.name, arguments)
        except MCPError as exc:
            raise InvalidInputError(
                f"the MCP server {prompt.server} refused the prompt {prompt.name}: {exc}"
            ) from exc
        return list(result.messages)

    async def read_resource(self, server: str, uri: str) -> list[Any]:
        """What ``resources/read`` gives for ``uri`` (the SDK's text and blob contents)."""
        client = self._clients.get(server)
        if client is None:
            raise NotFoundError(f"the MCP server {server} is not connected")
        try:
            result = await client.read_resource(uri)
        except MCPError as exc:
            raise InvalidInputError(f"the MCP server {server} could not read {uri}: {exc}") from exc
        return list(result.contents)

    @property
    def failure(self) -> str | None:
        """Why a server that had started stopped, with the last lines it wrote to stderr."""
        return None if self._failure is None else self._with_stderr(*self._failure)

    def _with_stderr(self, name: str, reason: str) -> str:
        tail = self._stderr[name].tail() if name in self._stderr else ""
        return f"{reason}; its stderr: {tail}" if tail else reason

    def _skip(self, name: str, reason: str) -> None:
        message = f"MCP server {name!r} skipped: {self._with_stderr(name, reason)}"
        log.warning("%s", message)
        self.warnings.append(message)


def _make_tool(server: str, client: Client, listed: _Listed, link: _Link) -> McpTool:
    # Tool ids are class attributes in the framework; one small subclass per MCP tool carries it.
    cls = type(f"McpTool_{tool_id(server, listed.name)}", (McpTool,), {"id": tool_id(server, listed.name)})
    tool: McpTool = cls(server, client, listed, link)
    return tool


async def _elicit(server: str, calls: list[ToolContext], params: ElicitRequestParams) -> ElicitResult:
    """The user's answer to a server's form, asked in the session of its latest call under way;
    declined when there is none (a server asking out of the blue) or it asks to open a URL."""
    if isinstance(params, ElicitRequestURLParams):
        log.info(
            "MCP server %s asked to open %s: declined (URL elicitation is not supported)", server, params.url
        )
        return ElicitResult(action="decline")
    if not calls:
        log.info("MCP server %s elicits outside a tool call: declined", server)
        return ElicitResult(action="decline")
    action, content = await ask_form(calls[-1], server, params.message, dict(params.requested_schema))
    log.info("MCP server %s elicitation: %s", server, action)
    return ElicitResult(action=action, content=content if action == "accept" else None)


def _provider_schema(schema: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in schema.items() if k not in ("title", "$schema")}
    out.setdefault("type", "object")
    out.setdefault("properties", {})
    return out


def _content_text(content: list[Any]) -> str:
    parts: list[str] = []
    for item in content:
        text = getattr(item, "text", None)
        if isinstance(text, str):
            parts.append(text)
        else:
            kind = getattr(item, "type", "content")
            mime = getattr(item, "mime_type", None) or getattr(item, "mimeType", None)
            parts.append(f"[{kind}{' ' + mime if mime else ''} omitted]")
    return "\n".join(parts)


def _describe(exc: BaseException) -> str:
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(_describe(e) for e in exc.exceptions)
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
