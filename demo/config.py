"""Config that sends a model to the fake server, and titles to a second one (demo, benches, tests).

Titles get their own server so that a title request, which runs beside the first step, never takes
a turn scripted for the main model.
"""

from __future__ import annotations

from typing import Any, Literal, Protocol


class _Server(Protocol):
    @property
    def base_url(self) -> str: ...

    @property
    def openai_base(self) -> str: ...


def fake_model_config(
    main: _Server,
    titles: _Server,
    *,
    route: Literal["openai", "anthropic"] = "openai",
    context: int = 100_000,
    output: int = 4_000,
    **extra: Any,
) -> dict[str, Any]:
    """`fake/m` on ``main`` (OpenAI or Anthropic wire), `titles/t` on ``titles``; ``extra`` on top."""
    if route == "anthropic":
        wire = {"litellm_provider": "anthropic", "options": {"api_base": main.base_url, "api_key": "offline"}}
    else:
        wire = {"litellm_provider": "openai", "options": {"api_base": main.openai_base, "api_key": "offline"}}
    config: dict[str, Any] = {
        "model": "fake/m",
        "small_model": "titles/t",
        "provider": {
            "fake": {**wire, "models": {"m": {"limit": {"context": context, "output": output}}}},
            "titles": {
                "litellm_provider": "openai",
                "options": {"api_base": titles.openai_base, "api_key": "offline"},
                "models": {"t": {"limit": {"context": 8_000, "output": 100}}},
            },
        },
        "snapshot": False,
    }
    config.update(extra)
    return config
