"""A web page on 127.0.0.1 for ``@url`` (no test reaches the internet), noting each path fetched."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

BODY = b"<html><body><h1>Release notes</h1><p>Version 2 adds <b>tabs</b>.</p></body></html>"


class _Server(ThreadingHTTPServer):
    hits: list[str]


class _Notes(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        self.server.hits.append(self.path)
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(BODY)))
        self.end_headers()
        self.wfile.write(BODY)


@dataclass
class Site:
    """The page's address, and the paths fetched from it, in order."""

    url: str
    hits: list[str]


@contextmanager
def serve() -> Iterator[Site]:
    """Serve the release notes until the block ends."""
    server = _Server(("127.0.0.1", 0), _Notes)
    server.hits = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Site(f"http://127.0.0.1:{server.server_address[1]}", server.hits)
    finally:
        server.shutdown()
        server.server_close()
