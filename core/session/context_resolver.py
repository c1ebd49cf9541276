"""Context items as the model will see them (``Agent.resolve_context``): each item read, counted
with the session's model as its requests are, a ``url`` fetched through the webfetch tool asking
permission in the session, an MCP resource read by its server. ``core.wiring`` builds it from the
records it uses; it never sees the app.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import replace

from core.attach.fetch import fetch_url
from core.attach.mcp import ReadResource
from core.attach.resolve import Sources, resolve_items
from core.context.tokens import TokenCounter
from core.errors import AgentError
from core.llm.model import ModelInfo
from core.message.context_items import ContextItem, ResolvedItem
from core.message.models import MessageWithParts, Session, UserMessage
from core.permission.request import PermissionAsk
from core.permission.service import Permissions
from core.session.records import Models, Place, Policy, Settings, Stores
from core.tools.context import ToolContext
from core.workspace import Workspace


class ContextResolver:
    """Resolves a client's context items for a session (or for no session: nothing is fetched)."""

    def __init__(
        self,
        stores: Stores,
        place: Place,
        settings: Settings,
        models: Models,
        counter: Callable[[ModelInfo], TokenCounter],
        policy: Policy,
        permissions: Permissions,
        workspace: Workspace,
        read_resource: ReadResource,
    ) -> None:
        self._stores = stores
        self._place = place
        self._settings = settings
        self._models = models
        self._counter = counter
        self._policy = policy
        self._permissions = permissions
        self._workspace = workspace
        self._read_resource = read_resource

    async def resolve(self, session_id: str | None, items: Sequence[ContextItem]) -> list[ResolvedItem]:
        """Each item as the model will see it (see the module's doc)."""
        sessions = self._stores.sessions
        history = await sessions.messages((await sessions.get(session_id)).id) if session_id else []
        counter = self._count_with(history)
        fetch_ctx = self._fetch_context(session_id) if session_id else None

        async def earlier(other: str) -> tuple[Session, list[MessageWithParts]]:
            return await sessions.get(other), await sessions.messages(other)

        async def fetch(url: str, timeout: float | None) -> tuple[str, str]:
            return await fetch_url(fetch_ctx, url, timeout)

        at = self._place
        sources = Sources(
            at.directory,
            at.worktree,
            self._workspace,
            counter.count_text,
            earlier,
            fetch,
            self._read_resource,
        )
        return await resolve_items(items, sources)

    def _count_with(self, history: list[MessageWithParts]) -> TokenCounter:
        """The counter of the model the session's last prompt used, else the configured one's."""
        users = [m.info for m in history if isinstance(m.info, UserMessage)]
        last = users[-1].model if users else None
        name = f"{last.providerID}/{last.modelID}" if last else self._settings.config.model
        try:
            return self._counter(self._models.resolve(name)) if name else TokenCounter()
        except AgentError:  # no usable model: count with the default encoding
            return TokenCounter()

    def _fetch_context(self, session_id: str) -> ToolContext:
        """A webfetch context whose permission dialog belongs to the session, not to a tool call."""
        agent = self._settings.agents.default()
        ruleset = self._policy.ruleset_for(agent, session_id)
        ctx = self._policy.tool_context(session_id, agent, asyncio.Event(), ruleset, "", "")

        async def ask(request: PermissionAsk) -> None:
            await self._permissions.ask(session_id, None, None, request, ruleset)

        return replace(ctx, ask=ask)
