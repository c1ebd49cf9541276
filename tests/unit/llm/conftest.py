"""Fixtures for provider-layer tests: a live fake model server and models pointed at it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from core.config.schema import Config
from core.llm.events import StreamEvent
from core.llm.litellm_route import load_litellm
from core.llm.model import ModelInfo, resolve_model
from core.llm.request import LLMRequest, ToolSpec
from core.llm.stream import stream
from core.llm.transport import aclose_http_client
from demo import FakeModelServer

# (wire protocol, route): the lean decoders and litellm against the same fake endpoints.
ROUTES = [("openai", "openai"), ("anthropic", "anthropic"), ("openai", "litellm"), ("anthropic", "litellm")]
ROUTE_IDS = ["openai-lean", "anthropic-lean", "openai-litellm", "anthropic-litellm"]

# USD per million tokens, as config writes them.
COST = {"input": 3.0, "output": 15.0, "cache_read": 0.3, "cache_write": 3.75}


@pytest.fixture(autouse=True)
def _litellm_imported(request: pytest.FixtureRequest) -> None:
    """Import litellm before a litellm-route test starts its clock: the first import takes seconds
    (over 10 on a loaded machine), which the abort tests' time bounds would otherwise measure."""
    callspec = getattr(request.node, "callspec", None)
    if callspec is not None and callspec.params.get("route") == "litellm":
        asyncio.run(load_litellm())  # once per process; later calls return the loaded module


@pytest.fixture
async def srv() -> AsyncIterator[FakeModelServer]:
    async with FakeModelServer() as server:
        yield server
        await aclose_http_client()  # pooled keep-alive connections belong to this test's loop


def config_for(srv: FakeModelServer, protocol: str, route: str, **options: Any) -> Config:
    """A config whose provider "fake" speaks ``protocol`` at the fake server through ``route``."""
    base = srv.openai_base if protocol == "openai" else srv.base_url
    model = {"limit": {"context": 100_000, "output": 4_096}, "cost": COST}
    return Config.model_validate(
        {
            "provider": {
                "fake": {
                    "litellm_provider": protocol,
                    "options": {"api_base": base, "api_key": "test-key", "agentls_route": route, **options},
                    "models": {"model-a": model, "claude-a": model},
                }
            }
        }
    )


def model_for(srv: FakeModelServer, protocol: str, route: str, **options: Any) -> ModelInfo:
    """The resolved fake model (a Claude name for Anthropic so it gets cache markers)."""
    name = "claude-a" if protocol == "anthropic" else "model-a"
    return resolve_model(config_for(srv, protocol, route, **options), f"fake/{name}")


def request_for(model: ModelInfo, **kwargs: Any) -> LLMRequest:
    """A small request with one tool."""
    params = {"type": "object", "properties": {"filePath": {"type": "string"}}, "required": ["filePath"]}
    defaults: dict[str, Any] = {
        "system": ["You are a test."],
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [ToolSpec("read", "Read a file", params)],
    }
    return LLMRequest(model=model, **{**defaults, **kwargs})


async def collect(request: LLMRequest, abort: asyncio.Event | None = None) -> list[StreamEvent]:
    """Every event of one stream."""
    return [event async for event in stream(request, abort or asyncio.Event())]
