"""Every fault the fake server can script, classified alike on every route."""

from __future__ import annotations

import asyncio
import email.utils
import socket
import time

import pytest

from core.errors import ContextOverflowError, ProviderError
from core.llm import errors
from core.llm.events import TextDelta
from core.llm.stream import stream
from demo import FakeModelServer, Turn
from tests.unit.llm.conftest import ROUTE_IDS, ROUTES, collect, model_for, request_for

routes = pytest.mark.parametrize(("protocol", "route"), ROUTES, ids=ROUTE_IDS)


async def _failure(
    srv: FakeModelServer, protocol: str, route: str, turn: Turn, **options: object
) -> ProviderError:
    srv.script(turn)
    with pytest.raises(ProviderError) as caught:
        await collect(request_for(model_for(srv, protocol, route, **options)))
    return caught.value


@routes
@pytest.mark.parametrize("status", [429, 500, 503, 529])
async def test_rate_limits_and_server_errors_are_retryable(
    srv: FakeModelServer, protocol: str, route: str, status: int
) -> None:
    error = await _failure(srv, protocol, route, Turn.fault(status))
    assert (error.kind, error.status, error.retryable) == ("api", status, True)
    assert not isinstance(error, ContextOverflowError)


@routes
@pytest.mark.parametrize(
    ("headers", "low", "high"),
    [
        ({"retry_after": "7"}, 7.0, 7.0),
        ({"retry_after_ms": "1500"}, 1.5, 1.5),
        ({"retry_after": "DATE+30"}, 25.0, 30.0),
    ],
    ids=["seconds", "milliseconds", "http-date"],
)
async def test_retry_after_is_read_in_every_form(
    srv: FakeModelServer, protocol: str, route: str, headers: dict[str, str], low: float, high: float
) -> None:
    if headers.get("retry_after") == "DATE+30":
        headers = {"retry_after": email.utils.formatdate(time.time() + 30, usegmt=True)}
    error = await _failure(srv, protocol, route, Turn.fault(429, **headers))
    assert error.retryable and error.retry_after is not None
    assert low <= error.retry_after <= high


@routes
async def test_context_overflow_is_recognised_in_each_providers_wording(
    srv: FakeModelServer, protocol: str, route: str
) -> None:
    error = await _failure(srv, protocol, route, Turn.context_overflow())
    assert isinstance(error, ContextOverflowError)
    assert error.kind == "context-overflow" and not error.retryable


@routes
@pytest.mark.parametrize("status", [401, 403])
async def test_auth_failures_are_not_retried(
    srv: FakeModelServer, protocol: str, route: str, status: int
) -> None:
    error = await _failure(srv, protocol, route, Turn.fault(status))
    assert (error.kind, error.retryable) == ("auth", False)


@routes
async def test_other_client_errors_are_not_retried(srv: FakeModelServer, protocol: str, route: str) -> None:
    error = await _failure(
        srv, protocol, route, Turn.fault(400, body={"error": {"message": "bad tool schema"}})
    )
    assert (error.kind, error.status, error.retryable) == ("api", 400, False)
    assert "bad tool schema" in str(error)


@routes
async def test_a_connection_dropped_mid_stream_is_retryable(
    srv: FakeModelServer, protocol: str, route: str
) -> None:
    srv.script(Turn.text("Hello there world", chunks=8).drop(after=4))
    seen: list[object] = []
    with pytest.raises(ProviderError) as caught:
        async for event in stream(request_for(model_for(srv, protocol, route)), asyncio.Event()):
            seen.append(event)
    assert caught.value.retryable and caught.value.kind == "api"
    assert any(isinstance(e, TextDelta) for e in seen)  # what arrived before the drop was delivered


MALFORMED_ROUTES = [
    *[pytest.param(*r, id=i) for r, i in zip(ROUTES[:3], ROUTE_IDS[:3], strict=True)],
    pytest.param(
        *ROUTES[3],
        id=ROUTE_IDS[3],
        marks=pytest.mark.xfail(
            strict=True, reason="litellm's Anthropic stream parser skips lines it cannot parse"
        ),
    ),
]


@pytest.mark.parametrize(("protocol", "route"), MALFORMED_ROUTES)
async def test_a_malformed_sse_line_is_a_clear_provider_error(
    srv: FakeModelServer, protocol: str, route: str
) -> None:
    error = await _failure(srv, protocol, route, Turn.text("Hello", chunks=5).malformed(after=3))
    assert type(error) is ProviderError and not error.retryable
    assert "malformed stream event" in str(error)


@routes
async def test_a_refused_connection_is_retryable(srv: FakeModelServer, protocol: str, route: str) -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    base = f"http://127.0.0.1:{port}" + ("/v1" if protocol == "openai" else "")
    model = model_for(srv, protocol, route, api_base=base)
    with pytest.raises(ProviderError) as caught:
        await collect(request_for(model))
    assert caught.value.retryable


@pytest.mark.parametrize(("protocol", "route"), ROUTES[:2], ids=ROUTE_IDS[:2])
async def test_a_read_timeout_is_retryable(srv: FakeModelServer, protocol: str, route: str) -> None:
    release = asyncio.Event()
    try:
        error = await _failure(srv, protocol, route, Turn.text("late").slow_first_byte(release), timeout=0.2)
    finally:
        release.set()
    assert error.retryable and "timed out" in str(error)


def test_retry_after_parsing() -> None:
    assert errors.retry_after({"Retry-After": "3"}) == 3.0
    assert errors.retry_after({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert errors.retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0  # in the past
    assert errors.retry_after({"retry-after": "soon"}) is None
    assert errors.retry_after(None) is None


def test_status_table() -> None:
    assert errors.from_status(408, "slow").retryable
    assert errors.from_status(502, "bad gateway").retryable
    assert not errors.from_status(404, "no such model").retryable
    assert errors.from_status(403, "forbidden").kind == "auth"
    too_long = errors.from_status(413, "prompt is too long: 300000 tokens > 200000 maximum")
    assert isinstance(too_long, ContextOverflowError)
    assert not isinstance(errors.from_status(400, "unknown parameter: foo"), ContextOverflowError)


def test_litellm_exceptions_map_through_the_same_table() -> None:
    litellm = pytest.importorskip("litellm")
    timeout = litellm.Timeout(message="slow", model="m", llm_provider="openai")
    assert errors.from_litellm(timeout).retryable
    overflow = litellm.ContextWindowExceededError(message="too long", model="m", llm_provider="openai")
    assert isinstance(errors.from_litellm(overflow), ContextOverflowError)
    auth = litellm.AuthenticationError(message="bad key", model="m", llm_provider="openai")
    assert errors.from_litellm(auth).kind == "auth"
    refused = litellm.APIConnectionError(message="Connection error.", model="m", llm_provider="openai")
    assert errors.from_litellm(refused).retryable


@routes
@pytest.mark.parametrize(
    ("kind", "status", "retryable"), [("overloaded_error", 529, True), ("invalid_request_error", 400, False)]
)
async def test_an_error_event_inside_the_stream_is_classified_like_its_http_status(
    srv: FakeModelServer, protocol: str, route: str, kind: str, status: int, retryable: bool
) -> None:
    turn = Turn.text("Hello", chunks=5).stream_error(after=4, kind=kind)
    error = await _failure(srv, protocol, route, turn)
    if route == "litellm":
        # litellm re-raises in-stream errors as its own 5xx: still a ProviderError, statuses are its own.
        assert error.retryable or not retryable
        return
    assert (error.status, error.retryable) == (status, retryable)
    assert "in-stream" in str(error)
