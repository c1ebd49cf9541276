"""The TLS context: made once per process, on a worker thread while the first HTTPS connection's
TCP handshake travels, and never for a plain-HTTP model (OpenSSL holds the GIL while it loads the
CA bundle, so making it ahead on a thread slowed every start)."""

from __future__ import annotations

import ssl
import threading
from pathlib import Path

import pytest

from core.llm import http, transport
from demo import FakeModelServer, Turn
from tests.unit.llm.netfixtures import make_authority

BODY = b'{"stream": false}'


@pytest.fixture(autouse=True)
async def _fresh() -> None:
    await transport.aclose_http_client()
    transport._tls = None


def _recording(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    made: list[str] = []
    real = transport._new_tls

    def new_tls() -> ssl.SSLContext:
        made.append(threading.current_thread().name)
        return real()

    monkeypatch.setattr(transport, "_new_tls", new_tls)
    return made


async def test_https_makes_one_context_on_a_worker_thread(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    authority = make_authority(tmp_path)
    monkeypatch.setenv("SSL_CERT_FILE", str(authority.ca_file))
    made = _recording(monkeypatch)
    async with FakeModelServer(tls=authority.server) as server:
        server.script(Turn.text("one"), Turn.text("two"))
        url = server.openai_base + "/chat/completions"
        for text in (b"one", b"two"):
            response = await transport.http_client().send("POST", url, headers={}, body=BODY)
            assert text in await response.aread()
        await transport.aclose_http_client()
        server.script(Turn.text("three"))
        other = http.Client(tls=transport.shared_tls_context)  # a second client shares the context
        response = await other.send("POST", url, headers={}, body=BODY)
        assert b"three" in await response.aread()
        await other.aclose()
    assert len(made) == 1 and made[0] != threading.main_thread().name


async def test_a_plain_http_model_never_makes_one(monkeypatch: pytest.MonkeyPatch) -> None:
    made = _recording(monkeypatch)
    async with FakeModelServer() as server:
        server.script(Turn.text("plain"))
        response = await transport.http_client().send(
            "POST", server.openai_base + "/chat/completions", headers={}, body=BODY
        )
        assert b"plain" in await response.aread()
    assert made == []


async def test_ca_certificates_that_cannot_load_say_so_and_the_next_request_tries_again(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    authority = make_authority(tmp_path)
    async with FakeModelServer(tls=authority.server) as server:
        url = server.openai_base + "/chat/completions"
        monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "missing.pem"))
        with pytest.raises(http.InvalidRequestError, match="cannot load the CA certificates") as caught:
            await transport.http_client().send("POST", url, headers={}, body=BODY)
        assert not transport.errors.from_transport(caught.value).retryable
        monkeypatch.setenv("SSL_CERT_FILE", str(authority.ca_file))  # the user fixes it
        server.script(Turn.text("fixed"))
        response = await transport.http_client().send("POST", url, headers={}, body=BODY)
        assert b"fixed" in await response.aread()
