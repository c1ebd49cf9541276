"""The shared client is built on a thread ahead of the first request (OpenSSL loads the CA bundle
there without the GIL); a build that fails there costs only the head start."""

from __future__ import annotations

import logging
import threading

import httpx
import pytest

from core.demo import FakeModelServer, Turn
from core.llm import transport


@pytest.fixture(autouse=True)
async def _fresh_client() -> None:
    await transport.aclose_http_client()
    transport._take_prepared()  # nothing left over from another test


async def test_the_first_client_is_the_one_built_ahead_on_the_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[tuple[str, httpx.AsyncClient]] = []
    real = transport._new_client

    def new_client() -> httpx.AsyncClient:
        client = real()
        built.append((threading.current_thread().name, client))
        return client

    monkeypatch.setattr(transport, "_new_client", new_client)
    transport.prepare_http_client()
    transport.prepare_http_client()  # idempotent: one thread, one client
    client = transport.http_client()
    assert [(name, c is client) for name, c in built] == [("agentls http client", True)]
    assert transport.http_client() is client
    async with FakeModelServer() as server:
        server.script(Turn.text("hi"))
        response = await client.post(server.openai_base + "/chat/completions", json={"stream": False})
        assert response.status_code == 200


async def test_a_build_that_fails_ahead_leaves_a_working_client_and_a_warning(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    real = transport._new_client

    def failing_on_the_thread() -> httpx.AsyncClient:
        if threading.current_thread().name == "agentls http client":
            raise OSError("no CA bundle")
        return real()

    monkeypatch.setattr(transport, "_new_client", failing_on_the_thread)
    transport.prepare_http_client()
    with caplog.at_level(logging.WARNING, logger="core.llm.transport"):
        client = transport.http_client()
    assert "building the HTTP client ahead of time failed" in caplog.text
    assert "no CA bundle" in caplog.text
    async with FakeModelServer() as server:
        server.script(Turn.text("hi"))
        response = await client.post(server.openai_base + "/chat/completions", json={"stream": False})
        assert response.status_code == 200
