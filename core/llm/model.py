"""Resolve ``provider/model`` through config into everything a request needs (``ModelInfo``)."""

from __future__ import annotations

import logging
import os
from dataclasses import field
from typing import Any, Literal

from core.config.schema import Config, ModelConfig, ProviderConfig
from core.errors import ConfigError, ProviderError
from core.llm import catalog, secrets
from core.record import record

log = logging.getLogger(__name__)

Route = Literal["openai", "anthropic", "litellm"]
ROUTE_OPTION = "agentls_route"  # model/provider option that forces a route (tests, odd endpoints)
FALLBACK_CONTEXT = 128_000
FALLBACK_OUTPUT = 8_192
# No byte for this long means the provider stalled. The first byte may wait on a long prompt's
# prefill; once the stream flows, providers send something (text, reasoning, pings) far more often.
DEFAULT_FIRST_BYTE_TIMEOUT = 60.0
DEFAULT_CHUNK_TIMEOUT = 30.0


@record(slots=True)
class ModelLimit:
    context: int
    input: int | None
    output: int


@record(slots=True)
class ModelCost:
    """USD per token."""

    input: float = 0.0
    output: float = 0.0
    cache_read: float = 0.0
    cache_write: float = 0.0


@record(slots=True)
class ModelInfo:
    """A resolved model: how to reach it, how to talk to it, what it can take and what it costs."""

    provider_id: str
    model_id: str
    api_model: str  # the litellm model string, e.g. "openai/m"
    route: Route  # which decoder serves it
    api_base: str | None
    api_key: str | None = field(repr=False)
    headers: dict[str, str]
    family: str  # anthropic | openai | openai-reasoning | gemini | other
    limit: ModelLimit
    cost: ModelCost
    supports_cache_control: bool
    supports_media_in_tool_results: bool
    options: dict[str, Any]  # passed to the call (provider extras, then model options)
    litellm_provider: str = ""
    timeout: float | None = None
    first_byte_timeout: float = DEFAULT_FIRST_BYTE_TIMEOUT
    chunk_timeout: float = DEFAULT_CHUNK_TIMEOUT
    accepts_images: bool = True
    accepts_pdf: bool = False

    @property
    def wire_model(self) -> str:
        """The model name the provider's own API expects (the litellm string minus its provider)."""
        prefix = f"{self.litellm_provider}/"
        return self.api_model[len(prefix) :] if self.api_model.startswith(prefix) else self.api_model


def _split(ref: str) -> tuple[str, str]:
    provider, sep, model = ref.partition("/")
    if not sep or not provider or not model:
        raise ConfigError(
            f'model "{ref}" must be written "provider/model", e.g. "anthropic/claude-sonnet-4-5"'
        )
    return provider, model


def _limit(mconf: ModelConfig | None, entry: dict[str, Any] | None, ref: str) -> ModelLimit:
    if mconf is not None and mconf.limit is not None:
        return ModelLimit(mconf.limit.context, mconf.limit.input, mconf.limit.output)
    if entry is not None and entry.get("max_input_tokens"):
        max_input = int(entry["max_input_tokens"])
        output = int(entry.get("max_output_tokens") or entry.get("max_tokens") or FALLBACK_OUTPUT)
        return ModelLimit(max_input, None, output)
    log.warning(
        "no token limits known for %s: assuming context %d, output %d (set provider.<id>.models.<id>.limit)",
        ref,
        FALLBACK_CONTEXT,
        FALLBACK_OUTPUT,
    )
    return ModelLimit(FALLBACK_CONTEXT, None, FALLBACK_OUTPUT)


def _cost(mconf: ModelConfig | None, entry: dict[str, Any] | None) -> ModelCost:
    if mconf is not None and mconf.cost is not None:
        c, per = mconf.cost, 1e-6
        read = c.cache_read if c.cache_read is not None else c.input
        write = c.cache_write if c.cache_write is not None else c.input
        return ModelCost(c.input * per, c.output * per, read * per, write * per)
    if entry is None:
        return ModelCost()
    inp = float(entry.get("input_cost_per_token") or 0.0)
    return ModelCost(
        input=inp,
        output=float(entry.get("output_cost_per_token") or 0.0),
        cache_read=float(entry.get("cache_read_input_token_cost") or inp),
        cache_write=float(entry.get("cache_creation_input_token_cost") or inp),
    )


def _inputs(mconf: ModelConfig | None, entry: dict[str, Any] | None, claude: bool) -> tuple[bool, bool]:
    """(images, PDFs) the model reads: config ``modalities.input``, else litellm's map, else a guess
    (images yes, as every route sent them so far; PDFs only for Claude)."""
    if mconf is not None and mconf.modalities is not None:
        given = set(mconf.modalities.input)
        return "image" in given, "pdf" in given
    if entry is not None and entry.get("supports_vision") is not None:
        return bool(entry.get("supports_vision")), bool(entry.get("supports_pdf_input"))
    return True, claude


def _route(litellm_provider: str, options: dict[str, Any]) -> tuple[Route, str | None]:
    forced = options.get(ROUTE_OPTION)
    lean = catalog.LEAN_ROUTES.get(litellm_provider)
    if forced is not None:
        if forced not in ("openai", "anthropic", "litellm"):
            raise ConfigError(
                f'option {ROUTE_OPTION} must be "openai", "anthropic" or "litellm", not {forced!r}'
            )
        route: Route = forced
        return route, (lean[1] if lean is not None and lean[0] == forced else None)
    if lean is None:
        return "litellm", None
    return ("openai" if lean[0] == "openai" else "anthropic"), lean[1]


def _api_key(
    pconf: ProviderConfig | None, litellm_provider: str, api_base: str | None, ref: str
) -> str | None:
    share = bool(pconf is not None and pconf.options.pass_key_to_tools)
    if pconf is not None and pconf.options.api_key:
        secrets.remember(pconf.options.api_key, pass_to_tools=share)
        return pconf.options.api_key
    env = catalog.KEY_ENV.get(litellm_provider)
    if env is None:
        return None  # the provider authenticates another way (cloud credentials) or needs nothing
    key = os.environ.get(env)
    if key:
        secrets.remember(key, env, pass_to_tools=share)
    # A custom endpoint (a local server, a proxy) may need no key; the provider's own API does.
    if not key and api_base is None:
        raise ProviderError(
            f"no API key for {ref}: set the {env} environment variable "
            f"(or provider.{ref.partition('/')[0]}.options.api_key in the config)",
            kind="auth",
        )
    return key or None


def resolve_model(config: Config, ref: str) -> ModelInfo:
    """The ``ModelInfo`` of ``provider/model``: a configured provider, else a litellm provider as is."""
    provider_id, model_id = _split(ref)
    pconf = config.provider.get(provider_id)
    litellm_provider = (pconf.litellm_provider if pconf else None) or provider_id
    mconf = pconf.models.get(model_id) if pconf else None
    options: dict[str, Any] = dict(pconf.options.model_extra or {}) if pconf else {}
    if mconf is not None:
        options.update(mconf.options)
    route, default_base = _route(litellm_provider, options)
    custom_base = pconf.options.api_base if pconf else None
    api_base = custom_base or default_base
    # Looked up before the key is checked, so that a warm-up without a key still caches the entry.
    entry = catalog.model_entry(litellm_provider, model_id)
    api_key = _api_key(pconf, litellm_provider, custom_base, ref)
    claude = "claude" in model_id.lower()
    images, pdf = _inputs(mconf, entry, claude)
    return ModelInfo(
        provider_id=provider_id,
        model_id=model_id,
        api_model=f"{litellm_provider}/{model_id}",
        route=route,
        api_base=api_base,
        api_key=api_key,
        headers=dict(pconf.options.headers) if pconf else {},
        family=catalog.family_of(litellm_provider, model_id),
        limit=_limit(mconf, entry, ref),
        cost=_cost(mconf, entry),
        supports_cache_control=litellm_provider == "anthropic"
        or (claude and litellm_provider in catalog.CLAUDE_CACHE_HOSTS),
        supports_media_in_tool_results=litellm_provider == "anthropic"
        or (claude and litellm_provider.startswith(("bedrock", "vertex_ai"))),
        options=options,
        litellm_provider=litellm_provider,
        timeout=pconf.options.timeout if pconf else None,
        first_byte_timeout=(pconf and pconf.options.first_byte_timeout) or DEFAULT_FIRST_BYTE_TIMEOUT,
        chunk_timeout=(pconf and pconf.options.chunk_timeout) or DEFAULT_CHUNK_TIMEOUT,
        accepts_images=images,
        accepts_pdf=pdf,
    )


def resolve_small_model(config: Config, main: ModelInfo) -> ModelInfo:
    """The model for titles: ``small_model``, else a cheap sibling of ``main``'s provider, else ``main``."""
    if config.small_model:
        return resolve_model(config, config.small_model)
    pconf = config.provider.get(main.provider_id)
    candidates = catalog.SMALL_SIBLINGS.get(main.litellm_provider, ())
    if pconf is not None and pconf.models:
        # A configured endpoint serves what its config lists; a sibling elsewhere may not exist there.
        candidates = tuple(c for c in candidates if c in pconf.models)
    elif pconf is not None and pconf.options.api_base:
        candidates = ()
    for candidate in candidates:
        if candidate == main.model_id:
            return main
        if pconf is None and catalog.model_entry(main.litellm_provider, candidate) is None:
            continue
        return resolve_model(config, f"{main.provider_id}/{candidate}")
    return main
