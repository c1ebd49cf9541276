"""webfetch against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from core.errors import AbortedError, ToolError
from core.tools.context import ToolContext
from core.tools.runner import run_tool
from core.tools.webclient import MAX_BYTES
from core.tools.webfetch import WebFetchTool
from tests.unit.tools.conftest import Recorder

PAGE = """<!doctype html><html><head><title>T</title><style>p{color:red}</style></head>
<body><h1>Guide</h1><p>Use <b>bold</b> and <a href="/docs">the docs</a>.</p>
<script>alert('no')</script><ul><li>one</li><li>two</li></ul></body></html>"""


class Handler(BaseHTTPRequestHandler):
    release = threading.Event()

    def log_message(self, format: str, *args: object) -> None:  # quiet test output
        pass

    def send_body(self, body: bytes, content_type: str, status: int = 200, length: bool = True) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        if length:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except OSError:
            pass  # the tool hung up on purpose: past its size limit, or its timeout

    def redirect(self, to: str) -> None:
        self.send_response(302)
        self.send_header("Location", to)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self) -> None:
        path = self.path
        if path == "/page":
            self.send_body(PAGE.encode(), "text/html; charset=utf-8")
        elif path == "/latin1":
            self.send_body("café".encode("latin-1"), "text/plain; charset=iso-8859-1")
        elif path == "/json":
            self.send_body(b'{"a": 1}', "application/json")
        elif path == "/redirect":
            self.redirect("/hop1")
        elif path == "/hop1":
            self.redirect("/page")
        elif path.startswith("/loop"):
            self.redirect(f"/loop{len(path)}")
        elif path == "/to-file":
            self.redirect("file:///etc/passwd")
        elif path == "/big":
            self.send_body(b"x" * (MAX_BYTES + 1), "text/plain")
        elif path == "/big-unannounced":
            self.send_body(b"y" * (MAX_BYTES + 10), "text/plain", length=False)
        elif path == "/image":
            self.send_body(b"\x89PNG\r\n", "image/png")
        elif path == "/slow":
            Handler.release.wait(10)
            self.send_body(b"late", "text/plain")
        else:
            self.send_body(b"not here", "text/plain", status=404)


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    Handler.release.clear()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        Handler.release.set()
        httpd.shutdown()
        httpd.server_close()


async def fetch(ctx: ToolContext, url: str, **kw: object) -> str:
    return (await run_tool(WebFetchTool(), {"url": url, **kw}, ctx)).output


async def test_markdown_default(ctx: ToolContext, recorder: Recorder, server: str) -> None:
    result = await run_tool(WebFetchTool(), {"url": f"{server}/page"}, ctx)
    assert "# Guide" in result.output
    assert "**bold**" in result.output and "[the docs](/docs)" in result.output
    assert "- one" in result.output
    assert "alert" not in result.output and "color:red" not in result.output
    assert result.metadata["contentType"] == "text/html"
    web, local = recorder.asks
    assert (web.permission, web.patterns, web.always) == ("webfetch", [f"{server}/page"], [f"{server}/*"])
    port = server.rsplit(":", 1)[1]
    assert (local.permission, local.patterns) == ("local_network", [f"127.0.0.1:{port}"])


async def test_text_and_html_formats(ctx: ToolContext, server: str) -> None:
    text = await fetch(ctx, f"{server}/page", format="text")
    assert "Guide" in text and "the docs" in text and "<" not in text and "alert" not in text
    assert await fetch(ctx, f"{server}/page", format="html") == PAGE


async def test_charset_and_json(ctx: ToolContext, server: str) -> None:
    assert await fetch(ctx, f"{server}/latin1") == "café"
    assert await fetch(ctx, f"{server}/json") == '{"a": 1}'


async def test_redirects_followed(ctx: ToolContext, server: str) -> None:
    result = await run_tool(WebFetchTool(), {"url": f"{server}/redirect"}, ctx)
    assert "# Guide" in result.output
    assert result.metadata["url"] == f"{server}/page"


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("/loop", "more than 5 redirects"),
        ("/to-file", "unsupported URL"),
        ("/big", "larger than 5 MB"),
        ("/big-unannounced", "larger than 5 MB"),
        ("/image", "image/png"),
        ("/missing", "HTTP status 404"),
    ],
)
async def test_failures_are_tool_errors(ctx: ToolContext, server: str, path: str, message: str) -> None:
    with pytest.raises(ToolError, match=message):
        await fetch(ctx, f"{server}{path}")


@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://example.com/x", "example.com", "http://"])
async def test_non_http_refused_without_asking(ctx: ToolContext, recorder: Recorder, url: str) -> None:
    with pytest.raises(ToolError, match="Only http"):
        await fetch(ctx, url)
    assert recorder.asks == []


async def test_timeout(ctx: ToolContext, server: str) -> None:
    with pytest.raises(ToolError, match="timed out"):
        await fetch(ctx, f"{server}/slow", timeout=0.2)


async def test_abort_stops_the_fetch(ctx: ToolContext, server: str) -> None:
    task = asyncio.create_task(fetch(ctx, f"{server}/slow"))
    ctx.abort.set()
    with pytest.raises(AbortedError):
        await asyncio.wait_for(task, 5)


async def test_refused_connection(ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="failed"):
        await fetch(ctx, "http://127.0.0.1:9/")
