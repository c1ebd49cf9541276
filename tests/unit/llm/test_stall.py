"""A provider that goes quiet is given up on after a stall timeout and retried, on every route."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from core.config.loader import Layer
from core.config.schema import Config
from core.errors import ProviderError
from core.llm.events import TextDelta
from core.llm.model import DEFAULT_CHUNK_TIMEOUT, DEFAULT_FIRST_BYTE_TIMEOUT, resolve_model
from core.llm.stream import stream
from core.message.models import RetryPart
from core.message.prompt_input import TextInput
from core.open import open_agent
from demo import FakeModelServer, Turn
from demo.config import fake_model_config
from tests.unit.llm.conftest import ROUTE_IDS, ROUTES, collect, model_for, request_for

routes = pytest.mark.parametrize(("protocol", "route"), ROUTES, ids=ROUTE_IDS)

# Without a stall timeout these requests would wait for the server forever; the guard turns that
# into a failing test instead of a hung one.
GUARD = 20.0


@routes
async def test_no_first_byte_is_a_retryable_timeout(srv: FakeModelServer, protocol: str, route: str) -> None:
    never = asyncio.Event()
    srv.script(Turn.text("late").slow_first_byte(never))
    model = model_for(srv, protocol, route, first_byte_timeout=0.3)
    with pytest.raises(ProviderError) as caught:
        await asyncio.wait_for(collect(request_for(model)), GUARD)
    assert caught.value.retryable
    assert "timed out" in str(caught.value) and "first byte" in str(caught.value)


@routes
async def test_a_stream_that_stops_mid_answer_is_a_retryable_timeout(
    srv: FakeModelServer, protocol: str, route: str
) -> None:
    srv.script(Turn.text("Hello there world again", chunks=8).stall(after=4))
    model = model_for(srv, protocol, route, chunk_timeout=0.3)
    seen: list[object] = []

    async def consume() -> None:
        async for event in stream(request_for(model), asyncio.Event()):
            seen.append(event)

    with pytest.raises(ProviderError) as caught:
        await asyncio.wait_for(consume(), GUARD)
    assert caught.value.retryable and "timed out" in str(caught.value)
    assert any(isinstance(e, TextDelta) for e in seen)  # what came before the stall was delivered


@routes
async def test_a_pause_shorter_than_the_timeout_is_not_a_stall(
    srv: FakeModelServer, protocol: str, route: str
) -> None:
    srv.script(Turn.text("slow but alive", chunks=4).stall(after=2, until=0.2))
    model = model_for(srv, protocol, route, chunk_timeout=5.0, first_byte_timeout=5.0)
    events = await asyncio.wait_for(collect(request_for(model)), GUARD)
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "slow but alive"


def test_the_timeouts_are_configurable_with_defaults_of_a_minute_and_less() -> None:
    assert DEFAULT_FIRST_BYTE_TIMEOUT == 60.0 and DEFAULT_CHUNK_TIMEOUT < DEFAULT_FIRST_BYTE_TIMEOUT
    base = {"litellm_provider": "openai", "options": {"api_base": "http://127.0.0.1:9/v1"}}
    plain = resolve_model(Config.model_validate({"provider": {"p": base}}), "p/m")
    assert (plain.first_byte_timeout, plain.chunk_timeout) == (60.0, DEFAULT_CHUNK_TIMEOUT)
    options = {**base["options"], "first_byte_timeout": 90, "chunk_timeout": 12.5}  # type: ignore[dict-item]
    tuned = resolve_model(Config.model_validate({"provider": {"p": {**base, "options": options}}}), "p/m")
    assert (tuned.first_byte_timeout, tuned.chunk_timeout) == (90.0, 12.5)
    assert "first_byte_timeout" not in tuned.options  # agentls's own setting, never sent to the provider


async def test_the_loop_retries_a_stalled_step(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    async with FakeModelServer() as main, FakeModelServer() as titles:
        config = fake_model_config(main, titles, retry={"initial_delay": 0.01, "max_attempts": 2})
        config["provider"]["fake"]["options"]["chunk_timeout"] = 0.3
        main.script(Turn.text("cut off here", chunks=4).stall(after=2), Turn.text("recovered"))
        app = await open_agent(project, layers=[Layer("test", config, None)], data_dir=tmp_path / "d")
        try:
            session = await app.create_session()
            answer = await asyncio.wait_for(
                app.prompt(session.id, [TextInput(type="text", text="hi")]), GUARD
            )
        finally:
            await app.close()
    texts = [p.text for p in answer.parts if p.type == "text"]
    assert texts == ["recovered"]
    retries = [p for p in answer.parts if isinstance(p, RetryPart)]
    assert len(retries) == 1 and "timed out" in retries[0].error.message
