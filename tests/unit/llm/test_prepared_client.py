"""The shared client's TLS context loads on a thread ahead of the first request; the client is
built on the loop's thread from it, and a context that fails to load costs only the head start."""

from __future__ import annotations

import logging
import ssl
import threading

import httpx
import pytest

from core.demo import FakeModelServer, Turn
from core.llm import transport


@pytest.fixture(autouse=True)
async def _fresh_client() -> None:
    await transport.aclose_http_client()
    transport._take_prepared()  # nothing left over from another test


async def test_the_thread_loads_only_the_tls_context_and_the_first_client_uses_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    made: list[tuple[str, ssl.SSLContext]] = []
    real = httpx.create_ssl_context

    def create_ssl_context() -> ssl.SSLContext:
        context = real()
        made.append((threading.current_thread().name, context))
        return context

    monkeypatch.setattr(httpx, "create_ssl_context", create_ssl_context)
    transport.prepare_http_client()
    transport.prepare_http_client()  # idempotent: one thread, one context
    client = transport.http_client()
    assert [name for name, _ in made] == ["agentls tls context"]
    pool = client._transport._pool  # type: ignore[attr-defined]
    assert pool._ssl_context is made[0][1]
    assert transport.http_client() is client
    async with FakeModelServer() as server:
        server.script(Turn.text("hi"))
        response = await client.post(server.openai_base + "/chat/completions", json={"stream": False})
        assert response.status_code == 200


async def test_a_context_that_fails_to_load_ahead_leaves_a_working_client(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    real = httpx.create_ssl_context

    def failing_on_the_thread() -> ssl.SSLContext:
        if threading.current_thread().name == "agentls tls context":
            raise ssl.SSLError("no CA bundle")
        return real()

    monkeypatch.setattr(httpx, "create_ssl_context", failing_on_the_thread)
    transport.prepare_http_client()
    with caplog.at_level(logging.WARNING, logger="core.llm.transport"):
        client = transport.http_client()
    assert "loading the TLS context ahead of time failed" in caplog.text
    assert "no CA bundle" in caplog.text
    async with FakeModelServer() as server:
        server.script(Turn.text("hi"))
        response = await client.post(server.openai_base + "/chat/completions", json={"stream": False})
        assert response.status_code == 200
