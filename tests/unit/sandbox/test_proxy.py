"""The sandbox's host proxy on its own: tokens, the allow-list, the ask, CONNECT and plain HTTP."""

from __future__ import annotations

import asyncio
import base64
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from core.sandbox.proxy import REFUSED, HostProxy, host_allowed


@pytest.mark.parametrize(
    ("host", "allow", "allowed"),
    [
        ("pypi.org", ["pypi.org"], True),
        ("PyPI.org.", ["pypi.org"], True),
        ("files.pythonhosted.org", ["*.pythonhosted.org"], True),
        ("pythonhosted.org", ["*.pythonhosted.org"], False),
        ("evil-pypi.org", ["pypi.org"], False),
        ("pypi.org.evil.com", ["pypi.org"], False),
        ("127.0.0.1", [], False),
    ],
)
def test_the_allow_list(host: str, allow: list[str], allowed: bool) -> None:
    assert host_allowed(host, allow) is allowed


@pytest.fixture
async def proxy(tmp_path: Path) -> AsyncIterator[HostProxy]:
    started = HostProxy(tmp_path / "proxy.sock")
    await started.start()
    yield started
    await started.close()


@pytest.fixture
async def echo() -> AsyncIterator[int]:
    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        line = await reader.readline()
        writer.write(b"echo:" + line)
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    yield server.sockets[0].getsockname()[1]
    server.close()


async def exchange(proxy: HostProxy, head: str, then: bytes = b"") -> bytes:
    reader, writer = await asyncio.open_unix_connection(str(proxy.path))
    writer.write(head.encode() + then)
    await writer.drain()
    data = await asyncio.wait_for(reader.read(), 10)
    writer.close()
    return data


def auth(token: str) -> str:
    return "Proxy-Authorization: Basic " + base64.b64encode(f"agentls:{token}".encode()).decode() + "\r\n"


async def test_without_a_known_token_the_proxy_asks_for_one(proxy: HostProxy, echo: int) -> None:
    answer = await exchange(proxy, f"CONNECT 127.0.0.1:{echo} HTTP/1.1\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 407") and b"Proxy-Authenticate: Basic" in answer
    token = proxy.register(["127.0.0.1"], None)
    proxy.forget(token)
    assert (await exchange(proxy, f"CONNECT 127.0.0.1:{echo} HTTP/1.1\r\n{auth(token)}\r\n")).startswith(
        b"HTTP/1.1 407"
    )


async def test_connect_to_an_allowed_host_tunnels(proxy: HostProxy, echo: int) -> None:
    token = proxy.register(["127.0.0.1"], None)
    answer = await exchange(proxy, f"CONNECT 127.0.0.1:{echo} HTTP/1.1\r\n{auth(token)}\r\n", b"hello\n")
    assert answer == b"HTTP/1.1 200 Connection established\r\n\r\necho:hello\n"


async def test_plain_http_is_sent_on_in_origin_form(proxy: HostProxy, echo: int) -> None:
    token = proxy.register(["127.0.0.1"], None)
    head = f"GET http://127.0.0.1:{echo}/a?b=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n{auth(token)}\r\n"
    assert await exchange(proxy, head) == b"echo:GET /a?b=1 HTTP/1.1\r\n"


@pytest.mark.parametrize("answer", [True, False])
async def test_a_host_off_the_list_is_asked_for(proxy: HostProxy, echo: int, answer: bool) -> None:
    asked: list[str] = []

    async def ask(host: str) -> bool:
        asked.append(host)
        return answer

    token = proxy.register(["pypi.org"], ask)
    reply = await exchange(proxy, f"CONNECT 127.0.0.1:{echo} HTTP/1.1\r\n{auth(token)}\r\n", b"hi\n")
    assert asked == ["127.0.0.1"]
    if answer:
        assert reply.endswith(b"echo:hi\n")
    else:
        assert reply.startswith(b"HTTP/1.1 403 " + REFUSED.encode())
        assert b"127.0.0.1 is not on sandbox.network.allow" in reply
