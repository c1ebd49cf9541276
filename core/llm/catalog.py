"""What agentls knows about providers without importing litellm: keys, endpoints, limits, prices.

Limits and prices come from the model map JSON that litellm ships, read as a file: importing litellm
costs seconds, and a model served by a lean decoder must not pay that.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import logging
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

MODEL_MAP_FILE = "model_prices_and_context_window_backup.json"

# The environment variable litellm (and the provider's own SDK) reads for each provider's key.
KEY_ENV: dict[str, str] = {
    "openai": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "gemini": "GEMINI_API_KEY",
    "openrouter": "OPENROUTER_API_KEY",
    "deepseek": "DEEPSEEK_API_KEY",
    "groq": "GROQ_API_KEY",
    "mistral": "MISTRAL_API_KEY",
    "xai": "XAI_API_KEY",
    "together_ai": "TOGETHERAI_API_KEY",
    "fireworks_ai": "FIREWORKS_AI_API_KEY",
    "perplexity": "PERPLEXITYAI_API_KEY",
    "cerebras": "CEREBRAS_API_KEY",
}

# Providers a lean decoder serves, with the endpoint used when config gives no api_base.
LEAN_ROUTES: dict[str, tuple[str, str | None]] = {
    "openai": ("openai", "https://api.openai.com/v1"),
    "anthropic": ("anthropic", "https://api.anthropic.com"),
    # OpenAI-compatible servers that always come with an api_base of their own.
    "hosted_vllm": ("openai", None),
    "lm_studio": ("openai", None),
}

# Cheap models for titles and summaries, best first, per provider.
SMALL_SIBLINGS: dict[str, tuple[str, ...]] = {
    "anthropic": ("claude-haiku-4-5", "claude-3-5-haiku-20241022"),
    "openai": ("gpt-5-mini", "gpt-4o-mini"),
    "gemini": ("gemini-2.5-flash", "gemini-2.0-flash"),
}

# Hosts of Claude that honour Anthropic's cache_control markers (besides Anthropic itself).
CLAUDE_CACHE_HOSTS = frozenset({"bedrock", "bedrock_converse", "vertex_ai", "vertex_ai_beta", "openrouter"})


def litellm_dir() -> Path | None:
    """The installed litellm package directory, found without importing it."""
    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


@functools.cache
def model_map() -> dict[str, Any]:
    """litellm's model map (limits and per-token prices), or {} when litellm is not installed."""
    directory = litellm_dir()
    if directory is None:
        log.warning("litellm is not installed: model limits and prices come from config only")
        return {}
    path = directory / MODEL_MAP_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        log.warning("cannot read litellm's model map %s: %s", path, exc)
        return {}
    return data if isinstance(data, dict) else {}


def model_entry(provider: str, model: str) -> dict[str, Any] | None:
    """The model map entry of ``provider/model``, if litellm knows the model."""
    entries = model_map()
    entry = entries.get(f"{provider}/{model}")
    if isinstance(entry, dict):
        return entry
    entry = entries.get(model)
    if isinstance(entry, dict) and str(entry.get("litellm_provider", "")).startswith(provider):
        return entry
    return None


def family_of(provider: str, model: str) -> str:
    """Which system prompt family fits the model: anthropic | openai | openai-reasoning | gemini | other."""
    name = model.lower().rsplit("/", 1)[-1]
    if "claude" in name or provider == "anthropic":
        return "anthropic"
    if name.startswith(("o1", "o3", "o4", "gpt-5")):
        return "openai-reasoning"
    if name.startswith("gpt"):
        return "openai"
    if "gemini" in name:
        return "gemini"
    return "other"
