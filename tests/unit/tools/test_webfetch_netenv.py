"""The web fetch tool takes its proxy and CA certificates from core.llm.netenv, as model requests do."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.errors import ToolError
from core.tools.context import ToolContext
from core.tools.runner import run_tool
from core.tools.webfetch import WebFetchTool
from tests.unit.llm.netfixtures import Proxy, RawServer, make_authority, read_request
from tests.unit.tools.harness import Recorder
from tests.unit.tools.websites import Names

PAGE = b"<html><body><p>the page</p></body></html>"


async def _page(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    await read_request(reader)
    writer.write(
        b"HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: %d\r\n\r\n%s" % (len(PAGE), PAGE)
    )
    await writer.drain()


@pytest.fixture
def environ(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in ("http_proxy", "https_proxy", "all_proxy", "no_proxy", "SSL_CERT_FILE", "SSL_CERT_DIR"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)
    yield


async def test_webfetch_bypasses_the_proxy_for_a_no_proxy_network(
    environ: None, ctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with Proxy() as proxy, RawServer(_page) as server:
        monkeypatch.setenv("http_proxy", proxy.url)
        monkeypatch.setenv("no_proxy", "127.0.0.0/8")  # httpx alone reads no CIDR here
        result = await run_tool(WebFetchTool(), {"url": server.url + "/page", "format": "text"}, ctx)
        assert "the page" in result.output
        assert proxy.seen == []
        monkeypatch.setenv("no_proxy", "")
        result = await run_tool(WebFetchTool(), {"url": server.url + "/page", "format": "text"}, ctx)
        assert "the page" in result.output and len(proxy.seen) == 1


async def test_webfetch_trusts_ssl_cert_file_as_model_requests_do(
    environ: None, ctx: ToolContext, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    authority = make_authority(tmp_path)
    server = await asyncio.start_server(
        lambda r, w: _page_then_close(r, w), "127.0.0.1", 0, ssl=authority.server
    )
    port = server.sockets[0].getsockname()[1]
    try:
        monkeypatch.setenv("SSL_CERT_DIR", str(tmp_path / "nothing-here"))  # httpx would take this one
        monkeypatch.setenv("SSL_CERT_FILE", str(authority.ca_file))  # ours: the file first, as for models
        result = await run_tool(WebFetchTool(), {"url": f"https://127.0.0.1:{port}/", "format": "text"}, ctx)
        assert "the page" in result.output
    finally:
        server.close()
        await server.wait_closed()


async def _page_then_close(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        await _page(reader, writer)
    finally:
        writer.close()


async def test_a_socks_proxy_is_a_tool_error_naming_it(
    environ: None, ctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("https_proxy", "socks5://127.0.0.1:1080")
    with pytest.raises(Exception, match="SOCKS"):
        await run_tool(WebFetchTool(), {"url": "https://a.example/", "format": "text"}, ctx)


async def test_through_a_proxy_a_local_name_still_asks_and_an_unknown_one_goes_to_the_proxy(
    environ: None, ctx: ToolContext, recorder: Recorder, monkeypatch: pytest.MonkeyPatch
) -> None:
    names = Names({"docs.test": [["127.0.0.1"]]})
    async with Proxy() as proxy:
        monkeypatch.setenv("http_proxy", proxy.url)
        # This machine resolves docs.test to a loopback address: asked, even though the proxy connects.
        with pytest.raises(ToolError, match="failed"):
            await run_tool(WebFetchTool(names), {"url": "http://docs.test:8/page"}, ctx)
        assert recorder.kinds() == ["webfetch", "local_network"]
        # A name only the proxy can resolve is handed to it by name (nothing to check here).
        with pytest.raises(ToolError, match="failed"):
            await run_tool(WebFetchTool(names), {"url": "http://intranet.test:8/page"}, ctx)
        assert recorder.kinds() == ["webfetch", "local_network", "webfetch"]
        assert [line for line, _ in proxy.seen] == [
            "GET http://docs.test:8/page HTTP/1.1",
            "GET http://intranet.test:8/page HTTP/1.1",
        ]
