"""Effort: how hard a model thinks, as one per-session level mapped to each provider's own switch.

A session picks a level among those its model offers (``levels``); each request then carries what
the provider understands (``request_options``):

- Anthropic (Claude with extended thinking): ``thinking`` with a token budget, or disabled;
- OpenAI reasoning models: ``reasoning_effort``;
- Gemini (through litellm): ``thinking`` with a token budget (litellm turns it into Gemini's
  ``thinkingConfig.thinkingBudget``), 0 to switch thinking off where the model allows it;
- DeepSeek: the ``thinking`` switch in the request body (``deepseek-reasoner`` always thinks);
- Qwen (DashScope): ``enable_thinking`` and ``thinking_budget`` in the request body.

Which style a model has comes from litellm's model map (``supports_reasoning``) and its provider;
the model option ``agentls_thinking`` (one of the styles, or ``"none"``) says it for a model the
map does not know (a local server, a proxy). A session that never chose a level sends nothing:
the model's configured options apply as before.
"""

from __future__ import annotations

from dataclasses import field
from typing import Any, Literal, cast, get_args

from core.errors import ConfigError, InvalidInputError
from core.llm import catalog
from core.llm.model import ModelInfo
from core.record import record

Style = Literal["anthropic", "openai", "gemini", "deepseek", "qwen"]
OPTION = "agentls_thinking"
ORDER = ("off", "low", "medium", "high", "max")  # every level there is, weakest first; "on" = high

_LEVELS: dict[Style, tuple[str, ...]] = {
    "anthropic": ("off", "low", "medium", "high", "max"),
    "openai": ("low", "medium", "high"),
    "gemini": ("off", "low", "medium", "high", "max"),
    "deepseek": ("off", "on"),
    "qwen": ("off", "low", "medium", "high", "max"),
}
# Thinking budgets in tokens (Anthropic's minimum is 1024).
_BUDGET = {"low": 2_048, "medium": 8_192, "high": 16_384, "max": 32_000}
_GEMINI_BUDGET = {"low": 1_024, "medium": 8_192, "high": 16_384, "max": 24_576}
_QWEN_BUDGET = {"low": 1_024, "medium": 4_096, "high": 16_384, "max": 38_912}
_ANTHROPIC_MIN_BUDGET = 1_024


@record
class EffortRequest:
    """What a level adds to one request: provider options, and whether sampling must go
    (Anthropic refuses ``temperature``/``top_p`` while thinking)."""

    options: dict[str, Any] = field(default_factory=dict)
    no_sampling: bool = False


def style(model: ModelInfo) -> Style | None:
    """The model's thinking switch, None when it has none agentls can set."""
    forced = model.options.get(OPTION)
    if forced is not None:
        if forced == "none":
            return None
        if forced not in get_args(Style):
            styles = ", ".join([*get_args(Style), "none"])
            raise ConfigError(f"model option {OPTION} must be one of {styles}, not {forced!r}")
        return cast(Style, forced)
    provider = model.litellm_provider
    name = model.model_id.lower()
    if provider == "deepseek" or name.startswith("deepseek"):
        return None if "reasoner" in name else "deepseek"  # the reasoner always thinks
    entry = catalog.model_entry(provider, model.model_id)
    if not (entry and entry.get("supports_reasoning")):
        return None
    if provider == "dashscope" or name.startswith(("qwen", "qwq")):
        return "qwen"
    if "claude" in name or provider == "anthropic":
        return "anthropic"
    if "gemini" in name or provider in ("gemini", "vertex_ai", "vertex_ai_beta"):
        return "gemini"
    if provider in ("openai", "azure") or model.family == "openai-reasoning":
        return "openai"
    return None


def levels(model: ModelInfo) -> list[str]:
    """The levels ``model`` offers, weakest first ([] when it has no thinking control)."""
    found = style(model)
    if found is None:
        return []
    offered = list(_LEVELS[found])
    if found == "gemini" and "pro" in model.model_id.lower():
        offered.remove("off")  # Gemini Pro models cannot stop thinking
    return offered


def check(model: ModelInfo, level: str) -> str:
    """``level`` when ``model`` offers it; else InvalidInputError naming the levels it has."""
    offered = levels(model)
    if level in offered:
        return level
    ref = f"{model.provider_id}/{model.model_id}"
    if not offered:
        raise InvalidInputError(f"{ref} has no effort levels: agentls cannot set how hard it thinks")
    raise InvalidInputError(f"effort {level!r} is not offered by {ref}; its levels: {', '.join(offered)}")


def fit(level: str, offered: list[str]) -> str | None:
    """The offered level nearest ``level`` (a session that moved to another model keeps its intent)."""
    if level in offered or not offered:
        return level if level in offered else None
    if offered == ["off", "on"]:
        return "off" if level == "off" else "on"
    rank = ORDER.index("high") if level == "on" else ORDER.index(level) if level in ORDER else 2
    return min(offered, key=lambda o: (abs(ORDER.index(o) - rank), -ORDER.index(o)))


def request_options(
    model: ModelInfo, level: str | None, max_tokens: int | None, base: dict[str, Any]
) -> EffortRequest:
    """What a request to ``model`` carries for ``level`` (None: nothing, the config applies);
    ``base``: the request's options so far (an ``extra_body`` there is kept, not replaced)."""
    found = style(model)
    chosen = fit(level, levels(model)) if level is not None else None
    if found is None or chosen is None:
        return EffortRequest()
    if found == "anthropic":
        return _anthropic(chosen, max_tokens)
    if found == "openai":
        return EffortRequest({"reasoning_effort": chosen})
    if found == "gemini":
        budget = 0 if chosen == "off" else _GEMINI_BUDGET[chosen]
        return EffortRequest({"thinking": {"type": "enabled", "budget_tokens": budget}})
    extra = dict(base.get("extra_body") or model.options.get("extra_body") or {})
    if found == "deepseek":
        extra["thinking"] = {"type": "disabled" if chosen == "off" else "enabled"}
    else:  # qwen
        extra["enable_thinking"] = chosen != "off"
        if chosen != "off":
            extra["thinking_budget"] = _QWEN_BUDGET[chosen]
    return EffortRequest({"extra_body": extra})


def _anthropic(level: str, max_tokens: int | None) -> EffortRequest:
    if level == "off":
        return EffortRequest({"thinking": {"type": "disabled"}})
    budget = _BUDGET[level]
    if max_tokens is not None:
        # The budget must stay below max_tokens, with room left for the answer itself.
        budget = min(budget, max_tokens - _ANTHROPIC_MIN_BUDGET)
    if budget < _ANTHROPIC_MIN_BUDGET:
        raise InvalidInputError(
            f"effort {level!r} needs an output limit above {2 * _ANTHROPIC_MIN_BUDGET} tokens "
            f"(the model's is {max_tokens}); choose effort off"
        )
    return EffortRequest({"thinking": {"type": "enabled", "budget_tokens": budget}}, no_sampling=True)
