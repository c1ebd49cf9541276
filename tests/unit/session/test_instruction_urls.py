"""`instructions` entries that are URLs: fetched (timeout, cache) or warned about, never dropped silently.

A real HTTP server on 127.0.0.1 answers; a slow answer is held on an event the test releases.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from core.session.instruction_urls import InstructionURLs
from core.session.system import InstructionFiles
from tests.unit.tools.websites import Site as WebSite
from tests.unit.tools.websites import serving


@dataclass
class Site:
    base: str
    hits: dict[str, int] = field(default_factory=dict)
    release: threading.Event = field(default_factory=threading.Event)


@pytest.fixture
def site() -> Iterator[Site]:
    state = Site(base="")

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            state.hits[self.path] = state.hits.get(self.path, 0) + 1
            if self.path == "/slow.md":
                state.release.wait(timeout=10)
            if self.path in ("/rules.md", "/slow.md"):
                body = f"rules from {self.path}".encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/markdown")
            else:
                body = b"not here"
                self.send_response(404)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            try:
                self.wfile.write(body)
            except OSError:
                pass  # the client gave up waiting

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.base = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        state.release.set()
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


async def test_url_instructions_are_fetched_once_and_shown_after_the_files(
    site: Site, tmp_path: Path
) -> None:
    (tmp_path / "AGENTS.md").write_text("file rules")
    files = InstructionFiles(tmp_path / "config")
    url = f"{site.base}/rules.md"
    blocks = await files.render_all(tmp_path, tmp_path, [url])
    assert blocks == [
        f"Instructions from: {tmp_path / 'AGENTS.md'}\nfile rules",
        f"Instructions from: {url}\nrules from /rules.md",
    ]
    assert await files.render_all(tmp_path, tmp_path, [url]) == blocks
    assert site.hits == {"/rules.md": 1}  # cached


async def test_a_failing_url_is_warned_about_and_not_refetched_at_every_step(
    site: Site, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    urls = InstructionURLs(timeout=2.0)
    missing = f"{site.base}/missing.md"
    with caplog.at_level(logging.WARNING, logger="core.session.instruction_urls"):
        assert await urls.fetch_all([missing]) == []
        assert await urls.fetch_all([missing]) == []
    assert site.hits == {"/missing.md": 1}
    [warning] = [r.getMessage() for r in caplog.records]
    assert missing in warning and "404" in warning and "left out" in warning


async def test_a_url_that_does_not_answer_in_time_is_skipped_with_a_warning(
    site: Site, caplog: pytest.LogCaptureFixture
) -> None:
    # The timeout bounds each whole fetch (client, connection, reads): the fast page needs a margin
    # on a busy machine (0.3 s failed there), the slow one is held 10 s.
    urls = InstructionURLs(timeout=3.0)
    slow, fast = f"{site.base}/slow.md", f"{site.base}/rules.md"
    with caplog.at_level(logging.WARNING, logger="core.session.instruction_urls"):
        got = await urls.fetch_all([slow, fast])
    assert got == [(fast, "rules from /rules.md")]
    assert any(slow in r.getMessage() and "3 s" in r.getMessage() for r in caplog.records)


async def test_a_url_that_drips_is_cut_at_the_timeout_in_all(caplog: pytest.LogCaptureFixture) -> None:
    with serving(WebSite("127.0.0.1")) as dripping:
        dripping.drip("/rules.md", every=0.2)  # each read comes in time; the page takes 120 s
        url = f"{dripping.url}/rules.md"
        started = time.monotonic()
        with caplog.at_level(logging.WARNING, logger="core.session.instruction_urls"):
            got = await InstructionURLs(timeout=1.0).fetch_all([url])
        elapsed = time.monotonic() - started
    assert got == [] and 1.0 <= elapsed < 4.0, elapsed
    assert any(url in r.getMessage() and "within 1 s" in r.getMessage() for r in caplog.records)


async def test_an_unsupported_url_scheme_is_warned_about(caplog: pytest.LogCaptureFixture) -> None:
    urls = InstructionURLs()
    with caplog.at_level(logging.WARNING, logger="core.session.instruction_urls"):
        assert await urls.fetch_all(["ftp://example.invalid/rules.md"]) == []
    assert any("ftp://example.invalid/rules.md" in r.getMessage() for r in caplog.records)
