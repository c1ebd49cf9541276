"""``agent/providers``: the model providers agentls knows, for a client's first-run setup.

A client with no model configured lets the user pick a provider and one of its models and enter a
key. What agentls knows (``Agent.providers``): the providers in the config, then the ones whose key
it can read from the environment, each with the chat models litellm's model map lists for it. A key
is never sent back: ``hasKey`` only says whether one is there (config or environment).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsp_server import protocol as p

if TYPE_CHECKING:
    from core.api import Agent
    from lsp_server.server import AgentServer


def register(server: AgentServer) -> None:
    """Add ``agent/providers``."""

    @server.request("agent/providers", p.NoParams)
    async def list_providers(app: Agent, params: p.NoParams) -> Any:
        choices = await app.providers()
        return {
            "providers": [
                {
                    "id": c.id,
                    "keyEnv": c.key_env,
                    "hasKey": c.has_key,
                    "configured": c.configured,
                    "models": list(c.models),
                }
                for c in choices
            ]
        }
