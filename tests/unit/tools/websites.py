"""Real HTTP servers on loopback addresses for the web fetch tests, and a resolver for test names.

A ``Site`` records every request that reaches it (path and ``Host``), so a test can say that a
redirect was *not* followed by showing that nothing arrived.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Route = Callable[[BaseHTTPRequestHandler], None]


@dataclass
class Site:
    """An HTTP server on ``host`` with routes by path; 404 for the rest."""

    host: str
    port: int = 0
    routes: dict[str, Route] = field(default_factory=dict)
    requests: list[tuple[str, str]] = field(default_factory=list)  # (path, Host header)
    closing: threading.Event = field(default_factory=threading.Event)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def page(self, path: str, body: bytes, content_type: str = "text/html; charset=utf-8") -> None:
        def send(handler: BaseHTTPRequestHandler) -> None:
            handler.send_response(200)
            handler.send_header("Content-Type", content_type)
            handler.send_header("Content-Length", str(len(body)))
            handler.end_headers()
            handler.wfile.write(body)

        self.routes[path] = send

    def redirect(self, path: str, location: str, status: int = 302) -> None:
        def send(handler: BaseHTTPRequestHandler) -> None:
            handler.send_response(status)
            handler.send_header("Location", location)
            handler.send_header("Content-Length", "0")
            handler.end_headers()

        self.routes[path] = send

    def drip(self, path: str, every: float = 1.0, size: int = 600) -> None:
        """A text page of ``size`` bytes sent one byte per ``every`` seconds."""

        def send(handler: BaseHTTPRequestHandler) -> None:
            handler.send_response(200)
            handler.send_header("Content-Type", "text/plain")
            handler.send_header("Content-Length", str(size))
            handler.end_headers()
            for _ in range(size):
                handler.wfile.write(b"x")
                handler.wfile.flush()
                if self.closing.wait(every):
                    return

        self.routes[path] = send


def _handler(site: Site) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # quiet test output
            pass

        def do_GET(self) -> None:
            site.requests.append((self.path, self.headers.get("Host", "")))
            route = site.routes.get(self.path)
            try:
                if route is not None:
                    route(self)
                    return
                body = b"not here"
                self.send_response(404)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            except OSError:
                pass  # the client hung up on purpose: its deadline, or its size limit

    return Handler


@contextmanager
def serving(site: Site) -> Iterator[Site]:
    """Run ``site`` in a thread (its ``port`` filled in) until the block ends."""
    httpd = ThreadingHTTPServer((site.host, site.port), _handler(site))
    httpd.daemon_threads = True
    site.port = httpd.server_address[1]
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield site
    finally:
        site.closing.set()
        httpd.shutdown()
        httpd.server_close()


@dataclass
class Names:
    """A resolver for test names (``webfetch``'s seam): each name maps to its answers in turn (the
    last repeats), and every lookup is recorded."""

    table: dict[str, list[list[str]]]
    asked: list[str] = field(default_factory=list)

    async def __call__(self, host: str, port: int) -> list[str]:
        self.asked.append(host)
        answers = self.table.get(host)
        if not answers:
            raise OSError(-2, "Name or service not known")
        done = self.asked.count(host) - 1
        return answers[min(done, len(answers) - 1)]
