"""What the session loop asks of a model: system prompt, OpenAI-format messages, tools, sampling."""

from __future__ import annotations

from dataclasses import field
from typing import Any

from core.llm.model import ModelInfo
from core.record import record, struct


@record(slots=True)
class ToolSpec:
    """A tool as the model sees it: name, description and JSON-schema parameters."""

    name: str
    description: str
    parameters: dict[str, Any]


@struct(slots=True)
class LLMRequest:
    """One model call.

    ``messages`` are OpenAI chat messages (user / assistant / tool). An assistant message may carry
    ``tool_calls``, ``reasoning_content`` and ``thinking_blocks`` ([{type: "thinking", thinking,
    signature}] or [{type: "redacted_thinking", data}]) so Anthropic thinking goes back with its
    signature; content may be a list of {type: text | image_url} parts.
    """

    model: ModelInfo
    system: list[str]
    messages: list[dict[str, Any]]
    tools: list[ToolSpec] = field(default_factory=list)
    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int | None = None
    tool_choice: str | dict[str, Any] | None = None
    options: dict[str, Any] = field(default_factory=dict)  # provider options, over the model's own

    def call_options(self) -> dict[str, Any]:
        """Model options then request options, minus agentls's own switches (``agentls_*``)."""
        merged = {**self.model.options, **self.options}
        return {k: v for k, v in merged.items() if not k.startswith("agentls_")}
