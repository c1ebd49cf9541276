"""What a connected MCP server offers besides tools, as agentls records: its prompts (run as slash
commands, ``core.commands.mcp_prompts``) and its resources and resource templates (attached as
context)."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from core.api_types import McpResourceInfo, McpTemplateInfo
from core.record import record
from core.uri_template import template_variables

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


@record
class PromptArgument:
    """One argument of an MCP prompt."""

    name: str
    description: str = ""
    required: bool = False


@record
class McpPrompt:
    """A prompt a connected MCP server offers."""

    server: str
    name: str
    description: str
    arguments: tuple[PromptArgument, ...] = ()

    @property
    def command(self) -> str:
        """The slash command that runs it (without the ``/``)."""
        return command_name(self.server, self.name)

    @property
    def hint(self) -> str:
        """Its arguments for a client's menu: ``<required> [optional]``."""
        return " ".join(f"<{a.name}>" if a.required else f"[{a.name}]" for a in self.arguments)


async def all_pages(fetch: Callable[..., Awaitable[Any]], field: str) -> list[Any]:
    """Every item of a paginated MCP list (``client.list_prompts`` and its ``prompts`` …)."""
    items: list[Any] = []
    cursor: str | None = None
    while True:
        page = await fetch(cursor=cursor)
        items.extend(getattr(page, field))
        cursor = page.next_cursor
        if not cursor:
            return items


def command_name(server: str, prompt: str) -> str:
    """``mcp__<server>__<prompt>``, with what a command name cannot hold replaced by ``_``."""
    return f"mcp__{_UNSAFE.sub('_', server)}__{_UNSAFE.sub('_', prompt)}"


def prompts_of(server: str, prompts: Sequence[Any]) -> list[McpPrompt]:
    """The SDK's ``Prompt`` objects of ``server`` as records."""
    return [
        McpPrompt(
            server,
            p.name,
            p.description or p.title or "",
            tuple(PromptArgument(a.name, a.description or "", bool(a.required)) for a in p.arguments or ()),
        )
        for p in prompts
    ]


def resources_of(server: str, listed: Sequence[Any]) -> list[McpResourceInfo]:
    """The SDK's ``Resource`` objects of ``server`` as records."""
    return [
        McpResourceInfo(server, str(r.uri), r.name, r.description or r.title or "", r.mime_type or "", r.size)
        for r in listed
    ]


def templates_of(server: str, listed: Sequence[Any]) -> list[McpTemplateInfo]:
    """The SDK's ``ResourceTemplate`` objects of ``server`` as records."""
    return [
        McpTemplateInfo(
            server,
            t.uri_template,
            t.name,
            t.description or t.title or "",
            t.mime_type or "",
            template_variables(t.uri_template),
        )
        for t in listed
    ]
