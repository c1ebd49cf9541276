"""What a client's pickers show of the configuration: agents, models and their limits, providers.

Read-only views built from the current config, the agents and a model resolver; ``AgentApp``
answers ``config_info`` / ``providers`` / ``model_limits`` with them.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable

from core.agent.agents import Agents
from core.api_types import AgentSummary, ConfigInfo, ModelLimits, ProviderChoice, ProviderSummary
from core.config.schema import Config
from core.errors import AgentError
from core.llm import catalog
from core.llm.model import ModelInfo

log = logging.getLogger(__name__)


def model_limits(resolve: Callable[[str], ModelInfo], ref: str) -> ModelLimits:
    """Context and output limits of a model (0 when unknown), for a client's context-use gauge."""
    try:
        limit = resolve(ref).limit
    except AgentError as exc:
        log.info("no limits for %s: %s", ref, exc)
        return ModelLimits()
    return ModelLimits(context=limit.context, output=limit.output)


def config_info(config: Config, agents: Agents, resolve: Callable[[str], ModelInfo]) -> ConfigInfo:
    """Agents and models for a client's pickers."""
    models = [config.model] if config.model else []
    for provider_id, provider in config.provider.items():
        models.extend(f"{provider_id}/{model_id}" for model_id in provider.models)
    refs = tuple(sorted(set(models)))
    return ConfigInfo(
        agents=tuple(
            AgentSummary(name=a.name, description=a.description, mode=a.mode, model=a.model, steps=a.steps)
            for a in agents.list()
            if not a.hidden
        ),
        models=refs,
        default_agent=agents.default().name,
        default_model=config.model,
        model_limits={ref: model_limits(resolve, ref) for ref in refs},
        providers=tuple(
            ProviderSummary(
                id=provider_id,
                litellm_provider=provider.litellm_provider or provider_id,
                models=tuple(sorted(provider.models)),
                has_key=bool(provider.options.api_key),
            )
            for provider_id, provider in config.provider.items()
        ),
    )


async def provider_choices(info: ConfigInfo) -> list[ProviderChoice]:
    """The configured providers, then those agentls can reach with a key, each with its models."""
    # litellm's map is a few megabytes of JSON: parsed off the event loop (once per process).
    known = catalog.chat_models(await asyncio.to_thread(catalog.model_map))
    configured = {p.id: p for p in info.providers}
    ids = list(configured) + [k for k in catalog.KEY_ENV if k not in configured]
    out: list[ProviderChoice] = []
    for provider_id in ids:
        summary = configured.get(provider_id)
        litellm_provider = summary.litellm_provider if summary else provider_id
        env = catalog.KEY_ENV.get(litellm_provider)
        has_key = bool(summary and summary.has_key) or bool(env and os.environ.get(env))
        models = summary.models if summary and summary.models else tuple(known.get(litellm_provider, []))
        out.append(ProviderChoice(provider_id, env, has_key, summary is not None, models))
    return out
