"""What agentls knows about providers without importing litellm: keys, endpoints, limits, prices.

Limits and prices come from the model map JSON that litellm ships, read as a file: importing litellm
costs seconds, and a model served by a lean decoder must not pay that.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import logging
import threading
import zlib
from pathlib import Path
from typing import Any

from core.cachefile import read_capped, write_whole
from core.config import paths

log = logging.getLogger(__name__)

MODEL_MAP_FILE = "model_prices_and_context_window_backup.json"
PROVIDERS_FILE = "provider_endpoints_support_backup.json"  # litellm's list of its providers
INDEX_FILE = "model-map-index.json"
INDEX_MAX_BYTES = 1 << 20  # a few entries of ~1 KB each; anything bigger is not ours

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


@functools.cache
def litellm_dir() -> Path | None:
    """The installed litellm package directory, found without importing it (once: every model
    lookup checks that the map it indexed is still the same file)."""
    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


@functools.cache
def model_map() -> dict[str, Any]:
    """litellm's model map (limits and per-token prices), or {} when litellm is not installed."""
    path = model_map_path()
    if path is None:
        log.warning("litellm is not installed: model limits and prices come from config only")
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        log.warning("cannot read litellm's model map %s: %s", path, exc)
        return {}
    return data if isinstance(data, dict) else {}


def is_known_provider(name: str) -> bool:
    """Whether litellm serves ``name`` (True when that cannot be told: litellm or its list missing)."""
    if name in KEY_ENV or name in LEAN_ROUTES or name in CLAUDE_CACHE_HOSTS:
        return True
    known = litellm_providers()
    return known is None or name in known


@functools.cache
def litellm_providers() -> frozenset[str] | None:
    """The provider names in litellm's own list (read as a file, ~10 ms, only for a model whose
    provider is neither configured nor one of the common ones), or None when it cannot be read."""
    directory = litellm_dir()
    if directory is None:
        return None
    try:
        providers = json.loads((directory / PROVIDERS_FILE).read_text(encoding="utf-8"))["providers"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        log.debug("cannot read litellm's provider list: %s", exc)
        return None
    return frozenset(providers) if isinstance(providers, dict) else None


def model_map_path() -> Path | None:
    """Where litellm's model map is, without importing litellm."""
    directory = litellm_dir()
    return None if directory is None else directory / MODEL_MAP_FILE


def model_entry(provider: str, model: str) -> dict[str, Any] | None:
    """The model map entry of ``provider/model``, if litellm knows the model.

    Answered from the lookup index when it can be: parsing the whole map costs ~40 ms of every
    start for the one to three entries a process asks for.
    """
    return _INDEX.entry(provider, model)


def load_index() -> None:
    """Read the lookup index now (a long-lived host does it while it warms up)."""
    _INDEX.load()


def _lookup(provider: str, model: str) -> dict[str, Any] | None:
    entries = model_map()
    entry = entries.get(f"{provider}/{model}")
    if isinstance(entry, dict):
        return entry
    entry = entries.get(model)
    if isinstance(entry, dict) and str(entry.get("litellm_provider", "")).startswith(provider):
        return entry
    return None


class _LookupIndex:
    """The answers of ``model_entry`` this machine has needed, in a small file under the cache
    folder, valid while litellm's map is the same file (its path, size and modification time).

    A miss parses the whole map once per process and adds the answer (a ``None`` too). Writes are
    atomic renames, so processes starting together at worst redo a lookup; an unwritable cache
    folder only costs the parse.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._source: str | None = None
        self._entries: dict[str, dict[str, dict[str, Any] | None]] | None = None

    def entry(self, provider: str, model: str) -> dict[str, Any] | None:
        with self._lock:
            entries = self._loaded()
            known = entries.get(provider, {})
            if model in known:
                return known[model]
        found = _lookup(provider, model)
        with self._lock:
            self._loaded().setdefault(provider, {})[model] = found
            self._save()
        return found

    def load(self) -> None:
        with self._lock:
            self._loaded()

    def _loaded(self) -> dict[str, dict[str, dict[str, Any] | None]]:
        source = _source_of(model_map_path())
        if self._entries is not None and self._source == source:
            return self._entries
        self._source, self._entries = source, {}
        try:
            stored = json.loads(read_capped(_index_file(), INDEX_MAX_BYTES))
        except (OSError, ValueError) as exc:  # none yet, not a file, too big, not JSON, not UTF-8
            log.debug("model map index not used (%s): lookups rebuild it", exc)
            return self._entries
        if isinstance(stored, dict) and stored.get("source") == source:
            entries = stored.get("entries")
            if (
                isinstance(entries, dict)
                and all(_well_formed(v) for v in entries.values())
                and stored.get("check") == _check(entries)
            ):
                self._entries = entries
        return self._entries

    def _save(self) -> None:
        path = _index_file()
        entries = self._entries or {}
        body = json.dumps(
            {"source": self._source, "check": _check(entries), "entries": entries}, separators=(",", ":")
        )
        try:
            write_whole(path, body.encode())
        except OSError as exc:
            log.debug("cannot write the model map index %s: %s", path, exc)


def _check(entries: dict[str, Any]) -> int:
    """A checksum of the entries as written: damage inside a well-formed file (a value of the
    wrong type) is noticed, and the index rebuilt, instead of failing every start."""
    return zlib.crc32(json.dumps(entries, separators=(",", ":")).encode())


def _well_formed(models: object) -> bool:
    return isinstance(models, dict) and all(e is None or isinstance(e, dict) for e in models.values())


def _source_of(path: Path | None) -> str:
    if path is None:
        return "none"
    try:
        stat = path.stat()
    except OSError:
        return f"{path}:missing"
    return f"{path}:{stat.st_size}:{stat.st_mtime_ns}"


def _index_file() -> Path:
    return paths.cache_dir() / INDEX_FILE


_INDEX = _LookupIndex()


def family_of(provider: str, model: str) -> str:
    """Which system prompt family fits the model: anthropic | openai | openai-reasoning | gemini | other."""
    name = model.lower().rsplit("/", 1)[-1]
    if "claude" in name or provider == "anthropic":
        return "anthropic"
    if name.startswith(("o1", "o3", "o4", "gpt-5")) or "codex" in name:
        return "openai-reasoning"
    if name.startswith("gpt"):
        return "openai"
    if "gemini" in name:
        return "gemini"
    return "other"


def edits_with_patch(family: str) -> bool:
    """Whether models of ``family`` change files with ``apply_patch`` instead of ``edit``/``write``:
    OpenAI's reasoning and codex models were trained on that patch format and use it best."""
    return family == "openai-reasoning"


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
