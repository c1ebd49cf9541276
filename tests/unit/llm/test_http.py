"""core.llm.http against real sockets: keep-alive, framing, failures, TLS and proxies."""

from __future__ import annotations

import asyncio
import gzip
import json
from pathlib import Path

import pytest

from core.errors import ProviderError
from core.llm import errors, http
from demo import FakeModelServer, Turn
from tests.unit.llm.netfixtures import Proxy, RawServer, make_authority, read_request

CHAT = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "hi"}]}


async def _post(
    client: http.Client, url: str, body: bytes = b"{}", read_timeout: float = 10
) -> http.Response:
    return await client.send(
        "POST", url, headers={"content-type": "application/json"}, body=body, read_timeout=read_timeout
    )


async def _answer_ok(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, body: bytes = b"ok") -> None:
    await read_request(reader)
    writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: %d\r\n\r\n%s" % (len(body), body))
    await writer.drain()


async def test_requests_share_one_kept_alive_connection() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:
            await _answer_ok(reader, writer)

    async with RawServer(handler) as server:
        client = http.Client(environ={})
        for _ in range(3):
            response = await _post(client, server.url + "/v1/chat")
            assert (response.status_code, await response.aread()) == (200, b"ok")
            assert client.idle_connections == 1
        await client.aclose()
    assert server.connections == 1


async def test_a_connection_the_server_dropped_while_idle_is_replaced() -> None:
    """Closed after one answer (no ``connection: close`` said), or closed when the next request
    arrives: either way the next request succeeds on a new connection."""

    async def close_after_answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _answer_ok(reader, writer)

    async def close_on_second_request(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _answer_ok(reader, writer)
        await read_request(reader)  # then hang up without answering

    for handler in (close_after_answer, close_on_second_request):
        async with RawServer(handler) as server:
            client = http.Client(environ={})
            for _ in range(2):
                response = await _post(client, server.url)
                assert await response.aread() == b"ok"
            await client.aclose()
        assert server.connections == 2, handler.__name__


async def test_a_new_connection_closed_without_an_answer_is_a_retryable_drop() -> None:
    async def hang_up(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)

    async with RawServer(hang_up) as server:
        client = http.Client(environ={})
        with pytest.raises(http.ProtocolError) as caught:
            await _post(client, server.url)
        assert server.connections == 1  # not retried: nothing says the server never saw it
    error = errors.from_transport(caught.value, provider="p")
    assert error.retryable and "p dropped the connection" in str(error)


async def test_chunked_gzip_answers_are_decoded() -> None:
    payload = gzip.compress(b"data: one\n\n" * 100)

    async def chunked(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\ncontent-encoding: gzip\r\n\r\n")
        for start in range(0, len(payload), 7):
            piece = payload[start : start + 7]
            writer.write(b"%x\r\n%s\r\n" % (len(piece), piece))
        writer.write(b"0\r\n\r\n")
        await writer.drain()
        await reader.read()

    async with RawServer(chunked) as server:
        client = http.Client(environ={})
        response = await _post(client, server.url)
        assert response.headers["Content-Encoding"] == "gzip"
        assert await response.aread() == b"data: one\n\n" * 100
        assert client.idle_connections == 1
        await client.aclose()


async def test_a_body_cut_short_is_a_protocol_error_and_the_connection_is_not_kept() -> None:
    async def short(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\nonly this")
        await writer.drain()

    async with RawServer(short) as server:
        client = http.Client(environ={})
        response = await _post(client, server.url)
        with pytest.raises(http.ProtocolError):
            await response.aread()
        assert client.idle_connections == 0


async def test_the_chunks_of_one_read_come_as_one_piece_and_a_broken_one_after_them_raises() -> None:
    events = [b"data: %d\n\n" % i for i in range(50)]
    chunks = b"".join(b"%x\r\n%s\r\n" % (len(e), e) for e in events)

    def server(ending: bytes) -> RawServer:
        async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await read_request(reader)
            head = b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n"
            writer.write(head + chunks + ending)  # one write: the client reads it at once
            await writer.drain()
            await reader.read()

        return RawServer(answer)

    async with server(b"0\r\n\r\n") as whole:
        client = http.Client(environ={})
        response = await _post(client, whole.url)
        assert [piece async for piece in response.aiter_bytes()] == [b"".join(events)]
        assert client.idle_connections == 1
        await client.aclose()

    async with server(b"zz\r\nnot a chunk size\r\n") as broken:
        client = http.Client(environ={})
        response = await _post(client, broken.url)
        received: list[bytes] = []
        with pytest.raises(http.ProtocolError, match=r"broke HTTP/1\.1"):
            async for piece in response.aiter_bytes():
                received.append(piece)
        assert received == [b"".join(events)]  # what came before the broken chunk, first
        assert client.idle_connections == 0
        await client.aclose()


async def test_refused_connections_and_silent_servers_fail_with_their_kind() -> None:
    async with RawServer(_answer_ok) as server:
        url = server.url
    client = http.Client(environ={})
    with pytest.raises(http.ConnectError) as refused:
        await _post(client, url)  # nobody listens there any more
    assert errors.from_transport(refused.value, provider="p").retryable
    assert "could not connect" in str(errors.from_transport(refused.value, provider="p"))

    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        await reader.read()  # never answers

    async with RawServer(silent) as server:
        with pytest.raises(http.HTTPTimeout, match=r"waiting for the answer timed out after 0\.2 s"):
            await _post(client, server.url, read_timeout=0.2)
    assert "timed out" in str(errors.from_transport(http.HTTPTimeout("x"), provider="p"))


async def test_requests_that_cannot_be_sent_say_why_and_are_not_retried() -> None:
    client = http.Client(environ={})
    with pytest.raises(http.InvalidRequestError, match="unsupported URL scheme 'ftp'"):
        await _post(client, "ftp://example.invalid/v1")
    with pytest.raises(http.InvalidRequestError, match="no host"):
        await _post(client, "http:///v1")
    with pytest.raises(http.InvalidRequestError) as bad_header:
        await client.send("POST", "http://127.0.0.1:9/v1", headers={"authorization": "Bearer k\nx"})
    error = errors.from_transport(bad_header.value, provider="p")
    assert not error.retryable and "cannot send the request" in str(error)
    socks = http.Client(environ={"all_proxy": "socks5://127.0.0.1:1080"})
    with pytest.raises(http.InvalidRequestError, match="SOCKS proxies are not supported"):
        await _post(socks, "https://api.example.invalid/v1")


async def test_an_abandoned_stream_closes_its_connection() -> None:
    closed = asyncio.Event()

    async def trickle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\n")
        await writer.drain()
        await reader.read()  # returns when the client closes
        closed.set()

    async with RawServer(trickle) as server:
        client = http.Client(environ={})
        response = await _post(client, server.url)
        chunks = response.aiter_bytes()
        assert await anext(chunks) == b"hello"
        started = asyncio.Event()

        async def read_next() -> bytes:
            started.set()  # this task runs on into the read until it waits for the socket
            return await anext(chunks)

        reading = asyncio.ensure_future(read_next())
        await asyncio.wait_for(started.wait(), 5)  # the read is under way when the stream is abandoned
        reading.cancel()
        with pytest.raises(asyncio.CancelledError):
            await reading
        await asyncio.wait_for(closed.wait(), 5)
        assert client.idle_connections == 0


# --- TLS ---------------------------------------------------------------------------------------


async def test_https_is_verified_against_ssl_cert_file_and_fails_without_it(tmp_path: Path) -> None:
    authority = make_authority(tmp_path)
    async with FakeModelServer(tls=authority.server) as server:
        server.script(Turn.text("over tls"), Turn.text("again"))
        assert server.openai_base.startswith("https://")
        client = http.Client(environ={"SSL_CERT_FILE": str(authority.ca_file)})
        url = server.openai_base + "/chat/completions"
        for text in (b"over tls", b"again"):
            response = await _post(client, url, json.dumps(CHAT).encode())
            assert response.status_code == 200
            assert text in await response.aread()
        assert client.idle_connections == 1
        await client.aclose()

        untrusting = http.Client(environ={})  # certifi's bundle does not know the test CA
        with pytest.raises(http.ConnectError, match="certificate verify failed"):
            await _post(untrusting, server.openai_base + "/chat/completions")


# --- proxies -----------------------------------------------------------------------------------


def test_proxies_come_from_the_environment_as_curl_reads_it() -> None:
    url = http.URL.parse("https://api.example.com/v1")
    plain = http.URL.parse("http://127.0.0.1:11434/v1")
    assert http.proxy_for(url, {}) is None
    assert http.proxy_for(url, {"HTTPS_PROXY": "proxy:3128"}) == http.URL.parse("http://proxy:3128")
    assert http.proxy_for(url, {"https_proxy": "http://a:1", "HTTPS_PROXY": "http://b:1"}).host == "a"  # type: ignore[union-attr]
    assert http.proxy_for(url, {"http_proxy": "http://a:1"}) is None  # for http:// URLs only
    assert http.proxy_for(plain, {"all_proxy": "http://a:1"}).host == "a"  # type: ignore[union-attr]
    for no_proxy in ("*", "example.com", ".example.com", "api.example.com:443", "other, *.example.com"):
        assert http.proxy_for(url, {"https_proxy": "http://a:1", "no_proxy": no_proxy}) is None, no_proxy
    for no_proxy in ("xample.com", "api.example.com:8443", "example.org"):
        assert http.proxy_for(url, {"https_proxy": "http://a:1", "no_proxy": no_proxy}) is not None, no_proxy
    for no_proxy in ("127.0.0.1", "127.0.0.0/8", "localhost,127.0.0.1:11434"):
        assert http.proxy_for(plain, {"http_proxy": "http://a:1", "NO_PROXY": no_proxy}) is None, no_proxy
    assert http.proxy_for(plain, {"http_proxy": "http://a:1", "no_proxy": "10.0.0.0/8"}) is not None


async def test_https_goes_through_a_connect_tunnel_with_the_proxys_credentials(tmp_path: Path) -> None:
    authority = make_authority(tmp_path)
    async with FakeModelServer(tls=authority.server) as server, Proxy(credentials="me:s3cret") as proxy:
        server.script(Turn.text("tunnelled"))
        proxy_url = proxy.url.replace("http://", "http://me:s3cret@")
        client = http.Client(environ={"https_proxy": proxy_url, "SSL_CERT_FILE": str(authority.ca_file)})
        response = await _post(client, server.openai_base + "/chat/completions", json.dumps(CHAT).encode())
        assert b"tunnelled" in await response.aread()
        await client.aclose()
    port = server.base_url.rsplit(":", 1)[1]
    assert proxy.seen == [(f"CONNECT 127.0.0.1:{port} HTTP/1.1", "Basic bWU6czNjcmV0")]
    assert "proxy-authorization" not in server.requests[0].headers  # the tunnel carries none inside


async def test_plain_http_goes_to_the_proxy_in_absolute_form_and_a_refusal_says_so() -> None:
    async with FakeModelServer() as server, Proxy() as proxy:
        server.script(Turn.text("forwarded"))
        client = http.Client(environ={"http_proxy": proxy.url})
        response = await _post(client, server.openai_base + "/chat/completions", json.dumps(CHAT).encode())
        assert b"forwarded" in await response.aread()
        await client.aclose()
    assert proxy.seen[0][0] == f"POST {server.openai_base}/chat/completions HTTP/1.1"

    async with Proxy(credentials="me:right") as strict:
        client = http.Client(environ={"https_proxy": strict.url.replace("http://", "http://me:wrong@")})
        with pytest.raises(http.ConnectError, match=r"refused the tunnel .* HTTP 407") as refused:
            await _post(client, "https://api.example.invalid/v1")
    assert isinstance(errors.from_transport(refused.value), ProviderError)
