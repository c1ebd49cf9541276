"""What came back is said as it is: an untrusted certificate, a redirect or an HTML page is not a
dropped connection to retry; answers httpx reads (big headers, raw deflate, stacked gzip) are read."""

from __future__ import annotations

import asyncio
import gzip
import zlib
from pathlib import Path

import pytest

from core.errors import ProviderError
from core.llm import errors, http, netenv, transport
from demo import FakeModelServer
from tests.unit.llm.netfixtures import RawServer, make_authority, read_request

BODY = b'{"model": "m", "stream": true, "messages": []}'


def answering(head: bytes, body: bytes = b"") -> RawServer:
    """A server answering every request with ``head`` (status line and headers) and ``body``."""

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(head + b"content-length: %d\r\n\r\n" % len(body) + body)
        await writer.drain()

    return RawServer(handler)


async def open_sse(url: str) -> http.Response:
    guard = transport.AbortGuard(asyncio.Event())
    try:
        return await transport.open_sse(url, {}, BODY, timeout=10, guard=guard, provider="p")
    finally:
        guard.close()


async def test_an_untrusted_certificate_fails_at_once_and_says_how_to_trust_it(tmp_path: Path) -> None:
    authority = make_authority(tmp_path)
    async with FakeModelServer(tls=authority.server) as server:
        client = http.Client(environ={})  # certifi's bundle does not know the test CA
        with pytest.raises(http.ConnectError) as caught:
            await client.send("POST", server.openai_base + "/chat/completions", headers={}, body=BODY)
        await client.aclose()
    failure = errors.from_transport(caught.value, provider="p")
    assert not failure.retryable
    assert "certificate" in str(failure) and "SSL_CERT_FILE" in str(failure)


@pytest.mark.parametrize(
    ("head", "body", "said"),
    [
        (
            b"HTTP/1.1 302 Found\r\nlocation: https://portal.example/login\r\n",
            b"",
            ["HTTP 302", "https://portal.example/login"],
        ),
        (
            b"HTTP/1.1 200 OK\r\ncontent-type: text/html; charset=utf-8\r\n",
            b"<html><title>Hotel Wi-Fi login</title></html>",
            ["HTTP 200", "text/html", "Hotel Wi-Fi login", "api_base"],
        ),
        (
            b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n",
            b'{"object": "list", "data": []}',
            ["HTTP 200", "application/json", '"object": "list"'],
        ),
    ],
    ids=["redirect", "html-200", "json-200"],
)
async def test_an_answer_that_is_not_an_event_stream_says_what_came_back(
    head: bytes, body: bytes, said: list[str]
) -> None:
    async with answering(head, body) as server:
        with pytest.raises(ProviderError) as caught:
            await open_sse(server.url + "/v1/chat/completions")
        await transport.aclose_http_client()
    assert not caught.value.retryable
    message = str(caught.value)
    assert all(words in message for words in said), message
    assert "dropped" not in message


async def test_an_event_stream_without_a_content_type_is_still_read() -> None:
    async with answering(b"HTTP/1.1 200 OK\r\n", b"data: [DONE]\n\n") as server:
        response = await open_sse(server.url + "/v1/chat/completions")
        assert await response.aread() == b"data: [DONE]\n\n"
        await transport.aclose_http_client()


@pytest.mark.parametrize(
    ("head", "body", "expected"),
    [
        (b"HTTP/1.1 200 OK\r\nx-trace: " + b"a" * 80_000 + b"\r\n", b"big headers", b"big headers"),
        (b"HTTP/1.1 200 OK\r\ncontent-encoding: deflate\r\n", zlib.compress(b"raw")[2:-4], b"raw"),
        (b"HTTP/1.1 200 OK\r\ncontent-encoding: deflate\r\n", zlib.compress(b"zlib"), b"zlib"),
        (b"HTTP/1.1 200 OK\r\ncontent-encoding: gzip, gzip\r\n", gzip.compress(gzip.compress(b"2x")), b"2x"),
        (
            b"HTTP/1.1 200 OK\r\ncontent-encoding: gzip\r\ncontent-encoding: deflate\r\n",
            zlib.compress(gzip.compress(b"two headers")),
            b"two headers",
        ),
        (b"HTTP/1.1 200 OK\r\ncontent-encoding: identity\r\n", b"as is", b"as is"),
    ],
    ids=["headers-80k", "raw-deflate", "zlib-deflate", "gzip-gzip", "gzip-then-deflate", "identity"],
)
async def test_answers_httpx_reads_are_read(head: bytes, body: bytes, expected: bytes) -> None:
    async with answering(head, body) as server:
        client = http.Client(environ={})
        response = await client.send("POST", server.url + "/", headers={}, body=BODY)
        got = await response.aread()
        await client.aclose()
    assert (response.status_code, got) == (200, expected)


@pytest.mark.parametrize("variable", ["SSL_CERT_FILE", "SSL_CERT_DIR"])
def test_a_ca_setting_naming_nothing_names_it(tmp_path: Path, variable: str) -> None:
    missing = tmp_path / "corp-ca.pem"
    with pytest.raises(OSError) as caught:
        netenv.tls_context({variable: str(missing)})
    assert variable in str(caught.value) and str(missing) in str(caught.value)
