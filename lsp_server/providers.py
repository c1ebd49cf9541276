"""``agent/providers``: the model providers agentls knows, for a client's first-run setup.

A client with no model configured lets the user pick a provider and one of its models and enter a
key. What agentls knows: the providers whose key it can read from the environment (``KEY_ENV``),
the providers in the config, and the chat models litellm's model map lists for each. A key is never
sent back: ``hasKey`` only says whether one is there (config or environment).
"""

from __future__ import annotations

import asyncio
import os
from typing import TYPE_CHECKING, Any

from core.llm import catalog
from lsp_server import protocol as p

if TYPE_CHECKING:
    from core.app import AgentApp
    from lsp_server.server import AgentServer


def chat_models(model_map: dict[str, Any]) -> dict[str, list[str]]:
    """Each litellm provider's chat models, by the id a ``provider/model`` reference uses."""
    out: dict[str, set[str]] = {}
    for name, entry in model_map.items():
        if not isinstance(entry, dict) or entry.get("mode") != "chat":
            continue
        provider = entry.get("litellm_provider")
        if not isinstance(provider, str):
            continue
        # The map names some models with their provider in front ("gemini/gemini-2.5-flash").
        model = name.removeprefix(f"{provider}/")
        if "/" not in model:
            out.setdefault(provider, set()).add(model)
    return {provider: sorted(models) for provider, models in out.items()}


def providers(app: AgentApp, model_map: dict[str, Any]) -> list[dict[str, Any]]:
    """The configured providers, then the ones agentls can reach with a key, each with its models."""
    known = chat_models(model_map)
    configured = app.config.provider
    ids = list(configured) + [k for k in catalog.KEY_ENV if k not in configured]
    out: list[dict[str, Any]] = []
    for provider_id in ids:
        pconf = configured.get(provider_id)
        litellm_provider = (pconf.litellm_provider if pconf else None) or provider_id
        env = catalog.KEY_ENV.get(litellm_provider)
        listed = sorted(pconf.models) if pconf and pconf.models else []
        has_key = bool(pconf and pconf.options.api_key) or bool(env and os.environ.get(env))
        out.append(
            {
                "id": provider_id,
                "keyEnv": env,
                "hasKey": has_key,
                "configured": pconf is not None,
                "models": listed or known.get(litellm_provider, []),
            }
        )
    return out


def register(server: AgentServer) -> None:
    """Add ``agent/providers``."""

    @server.request("agent/providers", p.NoParams)
    async def list_providers(app: AgentApp, params: p.NoParams) -> Any:
        # litellm's map is a few megabytes of JSON: parsed off the event loop, once per process.
        model_map = await asyncio.to_thread(catalog.model_map)
        return {"providers": providers(app, model_map)}
