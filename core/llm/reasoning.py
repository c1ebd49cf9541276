"""Whether a provider gets the model's reasoning back on the next request, and on which messages.

Anthropic takes its signed thinking blocks back (``thinking_blocks``). OpenAI-compatible providers
differ: most reject a ``reasoning_content`` they did not expect, while thinking models such as
DeepSeek's and Kimi's require it on the assistant messages of the tool loop in progress. Reasoning of
earlier turns is never sent: those providers ignore or refuse it, and it only costs tokens.
The model option ``agentls_reasoning: "send" | "drop"`` overrides the rule for other providers.
"""

from __future__ import annotations

from typing import Any, Literal

from core.errors import ConfigError
from core.llm.model import ModelInfo

Replay = Literal["send", "drop"]
OPTION = "agentls_reasoning"
# Providers and model names whose APIs want reasoning_content back within a turn.
_SEND_PROVIDERS = frozenset({"deepseek", "moonshot"})
_SEND_NAMES = ("deepseek", "kimi")


def replay_rule(model: ModelInfo) -> Replay:
    """``send`` when the provider needs the current turn's reasoning back, else ``drop``."""
    forced = model.options.get(OPTION)
    if forced is not None:
        if forced not in ("send", "drop"):
            raise ConfigError(f'model option {OPTION} must be "send" or "drop", not {forced!r}')
        rule: Replay = forced
        return rule
    name = model.model_id.lower()
    if model.litellm_provider in _SEND_PROVIDERS or any(n in name for n in _SEND_NAMES):
        return "send"
    return "drop"


def turn_start(messages: list[dict[str, Any]]) -> int:
    """Index of the user message that opened the turn in progress (a user message right after tool
    results only carries their attachments, so it does not start a turn)."""
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].get("role") == "user" and not (i > 0 and messages[i - 1].get("role") == "tool"):
            return i
    return 0
