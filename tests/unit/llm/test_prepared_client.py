"""The TLS context is made on a thread ahead of the first HTTPS request (OpenSSL loads the CA
bundle there without the GIL); one made there that fails costs only the head start."""

from __future__ import annotations

import logging
import ssl
import threading
from pathlib import Path

import pytest

from core.demo import FakeModelServer, Turn
from core.llm import transport
from tests.unit.llm.netfixtures import make_authority


@pytest.fixture(autouse=True)
async def _fresh_client() -> None:
    await transport.aclose_http_client()
    transport._take_prepared()  # nothing left over from another test
    transport._tls = None


async def test_https_requests_use_the_context_made_ahead_on_the_thread(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    authority = make_authority(tmp_path)
    monkeypatch.setenv("SSL_CERT_FILE", str(authority.ca_file))
    made: list[tuple[str, ssl.SSLContext]] = []
    real = transport._new_tls

    def new_tls() -> ssl.SSLContext:
        context = real()
        made.append((threading.current_thread().name, context))
        return context

    monkeypatch.setattr(transport, "_new_tls", new_tls)
    transport.prepare_http_client()
    transport.prepare_http_client()  # idempotent: one thread, one context
    async with FakeModelServer(tls=authority.server) as server:
        server.script(Turn.text("hi"))
        response = await transport.http_client().send(
            "POST", server.openai_base + "/chat/completions", headers={}, body=b'{"stream": false}'
        )
        assert response.status_code == 200
        await response.aclose()
    assert [(name, context is transport.shared_tls_context()) for name, context in made] == [
        ("agentls tls context", True)
    ]
    transport.prepare_http_client()  # made already: nothing more
    assert len(made) == 1


async def test_a_context_that_fails_ahead_is_made_again_with_a_warning(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    real = transport._new_tls

    def failing_on_the_thread() -> ssl.SSLContext:
        if threading.current_thread().name == "agentls tls context":
            raise OSError("no CA bundle")
        return real()

    monkeypatch.setattr(transport, "_new_tls", failing_on_the_thread)
    transport.prepare_http_client()
    with caplog.at_level(logging.WARNING, logger="core.llm.transport"):
        context = transport.shared_tls_context()
    assert "making the TLS context ahead of time failed" in caplog.text
    assert "no CA bundle" in caplog.text
    assert context.verify_mode is ssl.CERT_REQUIRED
