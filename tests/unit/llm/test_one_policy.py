"""One network policy: model requests and web pages take the same proxy and CA certificates from
the environment (core.llm.netenv decides both), and a host's addresses are raced, not tried in turn."""

from __future__ import annotations

import asyncio
import socket
import time
from typing import Any, ClassVar

import pytest

from core.llm import http, netenv
from tests.unit.llm.netfixtures import RawServer, read_request

PAGE = b"<html><body><p>the page</p></body></html>"


async def _page(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    await read_request(reader)
    writer.write(
        b"HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: %d\r\n\r\n%s" % (len(PAGE), PAGE)
    )
    await writer.drain()


@pytest.mark.parametrize(
    ("env", "url"),
    [
        ({"https_proxy": "http://p:3128"}, "https://api.example.com/v1"),
        ({"HTTPS_PROXY": "http://P:1", "https_proxy": "http://p:2"}, "https://a.example/"),
        ({"all_proxy": "p:8080"}, "http://a.example/"),
        ({"http_proxy": "http://p:1", "no_proxy": "127.0.0.0/8"}, "http://127.0.0.1:9/"),
        ({"http_proxy": "http://p:1", "no_proxy": ".example.com"}, "http://www.example.com/"),
        ({"http_proxy": "http://p:1", "no_proxy": "*"}, "http://a.example/"),
        ({"https_proxy": "http://u:pw@p:1"}, "https://a.example/"),
        ({}, "https://a.example/"),
    ],
)
def test_web_pages_and_models_take_the_same_proxy(env: dict[str, str], url: str) -> None:
    model = http.proxy_for(http.URL.parse(url), env)
    page = netenv.httpx_options(url, env)["proxy"]
    assert (None if page is None else http.URL.parse(page)) == model


def test_a_socks_proxy_is_refused_for_web_pages_as_for_models() -> None:
    env = {"https_proxy": "socks5://p:1080"}
    with pytest.raises(http.InvalidRequestError, match="SOCKS"):
        http.proxy_for(http.URL.parse("https://a.example/"), env)
    with pytest.raises(ValueError, match="SOCKS"):
        netenv.httpx_options("https://a.example/", env)


# --- happy eyeballs ---------------------------------------------------------------------------


class _ResolvingLoop(asyncio.SelectorEventLoop):
    """A loop whose name resolution answers ``model.test`` with fixed addresses (asyncio's
    supported ``getaddrinfo`` method, overridden in a subclass: nothing of asyncio is patched)."""

    answers: ClassVar[list[tuple[str, int]]] = []

    async def getaddrinfo(
        self,
        host: bytes | str | None,
        port: bytes | str | int | None,
        *,
        family: int = 0,
        type: int = 0,
        proto: int = 0,
        flags: int = 0,
    ) -> Any:  # the address tuples of getaddrinfo
        if host == "model.test":
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", addr) for addr in self.answers]
        return await super().getaddrinfo(host, port, family=family, type=type, proto=proto, flags=flags)


def _black_hole() -> tuple[list[socket.socket], int]:
    """A 127.0.0.1 port whose accept queue is full: a further SYN gets no answer, as on a broken route."""
    hole = socket.socket()
    hole.bind(("127.0.0.1", 0))
    hole.listen(0)
    port = hole.getsockname()[1]
    sockets = [hole]
    while True:  # fill the queue until a connect is no longer answered
        filler = socket.socket()
        filler.settimeout(0.5)
        sockets.append(filler)
        try:
            filler.connect(("127.0.0.1", port))
        except TimeoutError:
            return sockets, port


def test_a_black_holed_first_address_does_not_stall_the_request() -> None:
    sockets, hole_port = _black_hole()

    async def main() -> float:
        async with RawServer(_page) as server:
            port = int(server.url.rsplit(":", 1)[1])
            _ResolvingLoop.answers = [("127.0.0.1", hole_port), ("127.0.0.1", port)]
            client = http.Client(environ={})
            started = time.monotonic()
            response = await client.send(
                "GET", f"http://model.test:{port}/", headers={}, connect_timeout=20, read_timeout=20
            )
            assert await response.aread() == PAGE
            took = time.monotonic() - started
            await client.aclose()
            return took

    try:
        with asyncio.Runner(loop_factory=_ResolvingLoop) as runner:
            took = runner.run(main())
    finally:
        for sock in sockets:
            sock.close()
    assert took < 5  # one at a time, the black hole holds the request for the whole connect timeout
