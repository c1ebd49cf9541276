"""webfetch's network rules against real servers on loopback addresses: redirects to another origin
are handed back, local addresses ask, the checked address is the one connected to, one deadline."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from core.errors import PermissionRejectedError, ToolError
from core.permission.request import PermissionAsk
from core.tools.context import ToolContext
from core.tools.runner import run_tool
from core.tools.webfetch import WebFetchTool
from tests.unit.llm.netfixtures import make_authority
from tests.unit.tools.harness import Recorder
from tests.unit.tools.websites import Names, Site, serving

PAGE = b"<html><body><h1>Guide</h1><p>the page</p></body></html>"


@pytest.fixture
def origin() -> Iterator[Site]:
    """The origin the user approves: 127.0.0.1, reached as docs.test through the test resolver."""
    with serving(Site("127.0.0.1")) as site:
        site.page("/page", PAGE)
        yield site


@pytest.fixture
def other(origin: Site) -> Iterator[Site]:
    """Another origin, on 127.0.0.2 and the same port (where a second DNS answer would lead)."""
    with serving(Site("127.0.0.2", origin.port)) as site:
        site.page("/secret", b"the other host's secret", "text/plain")
        site.page("/page", b"rebound", "text/plain")
        yield site


@pytest.fixture
def names(origin: Site) -> Names:
    return Names(
        {"docs.test": [["127.0.0.1"]], "metadata.test": [["127.0.0.2"]], "public.example": [["127.0.0.1"]]}
    )


async def fetch(ctx: ToolContext, names: Names, url: str, **kw: object) -> tuple[str, dict[str, object]]:
    result = await run_tool(WebFetchTool(names), {"url": url, **kw}, ctx)
    return result.output, result.metadata


@pytest.mark.parametrize(
    "target",
    [
        "{other}/secret",  # a loopback address of its own
        "http://metadata.test:{port}/secret",  # a name the resolver maps to 127.0.0.2
        "http://169.254.169.254/latest/meta-data/",  # a cloud's metadata service
        "http://127.0.0.1:{port}/page",  # the same server, but named otherwise: another origin
        "https://docs.test:{port}/page",  # another scheme
        "//elsewhere.test/x",  # scheme-relative
    ],
)
async def test_a_redirect_to_another_origin_is_not_followed(
    ctx: ToolContext, recorder: Recorder, origin: Site, other: Site, names: Names, target: str
) -> None:
    location = target.format(other=other.url, port=origin.port)
    origin.redirect("/away", location)
    output, metadata = await fetch(ctx, names, f"http://docs.test:{origin.port}/away")
    expected = location if "://" in location else f"http:{location}"
    assert metadata == {"url": f"http://docs.test:{origin.port}/away", "redirect": expected, "status": 302}
    assert f"to {expected}" in output and "not followed" in output and "fetch " in output
    assert other.requests == []
    assert [path for path, _ in origin.requests] == ["/away"]
    assert names.asked == ["docs.test"]  # the target's name was not even looked up
    assert recorder.kinds() == ["webfetch", "local_network"]


async def test_same_origin_redirects_follow_and_keep_the_name(
    ctx: ToolContext, origin: Site, other: Site, names: Names
) -> None:
    base = f"http://docs.test:{origin.port}"
    origin.redirect("/start", "/hop", 301)
    origin.redirect("/hop", f"{base}/page", 307)
    output, metadata = await fetch(ctx, names, f"{base}/start")
    assert "# Guide" in output and metadata["url"] == f"{base}/page"
    assert origin.requests == [(p, f"docs.test:{origin.port}") for p in ("/start", "/hop", "/page")]
    assert other.requests == []


async def test_the_checked_address_is_the_one_connected_to(
    ctx: ToolContext, recorder: Recorder, origin: Site, other: Site
) -> None:
    # A name that answers 127.0.0.1 when checked and 127.0.0.2 afterwards (DNS rebinding).
    names = Names({"docs.test": [["127.0.0.1"], ["127.0.0.2"]]})
    origin.redirect("/start", "/page")
    output, _ = await fetch(ctx, names, f"http://docs.test:{origin.port}/start")
    assert "# Guide" in output and "rebound" not in output
    assert [p for p, _ in origin.requests] == ["/start", "/page"] and other.requests == []
    assert names.asked == ["docs.test"]


async def test_a_public_name_for_a_loopback_address_asks_local_network(
    ctx: ToolContext, recorder: Recorder, origin: Site, names: Names
) -> None:
    url = f"http://public.example:{origin.port}/page"
    await fetch(ctx, names, url)
    web, local = recorder.asks
    assert (web.permission, web.always) == ("webfetch", [f"http://public.example:{origin.port}/*"])
    assert local == PermissionAsk(
        "local_network",
        [f"127.0.0.1:{origin.port}"],
        always=[f"127.0.0.1:{origin.port}"],
        title=f"Fetch {url} from a local network address: 127.0.0.1 (loopback)",
        metadata={"url": url, "addresses": {"127.0.0.1": "loopback"}},
    )


async def test_rejecting_the_local_address_sends_no_request(
    ctx: ToolContext, origin: Site, names: Names
) -> None:
    async def ask(request: PermissionAsk) -> None:
        if request.permission == "local_network":
            raise PermissionRejectedError("The user rejected this call (local_network).")

    with pytest.raises(PermissionRejectedError, match="local_network"):
        await fetch(replace(ctx, ask=ask), names, f"http://docs.test:{origin.port}/page")
    assert origin.requests == []


async def test_the_next_address_is_tried_when_one_refuses(
    ctx: ToolContext, recorder: Recorder, origin: Site
) -> None:
    names = Names({"docs.test": [["127.0.0.3", "127.0.0.1"]]})  # nothing listens on 127.0.0.3
    output, _ = await fetch(ctx, names, f"http://docs.test:{origin.port}/page")
    assert "# Guide" in output
    assert recorder.asks[1].patterns == [f"127.0.0.3:{origin.port}", f"127.0.0.1:{origin.port}"]


async def test_an_unknown_name_is_a_tool_error_before_any_local_ask(
    ctx: ToolContext, recorder: Recorder, names: Names
) -> None:
    with pytest.raises(ToolError, match="could not be resolved"):
        await fetch(ctx, names, "http://nowhere.test/page")
    assert recorder.kinds() == ["webfetch"]


async def test_a_page_that_drips_ends_at_the_deadline(ctx: ToolContext, origin: Site, names: Names) -> None:
    origin.drip("/drip", every=1.0)
    started = time.monotonic()
    with pytest.raises(ToolError, match=r"timed out: it took more than 2 s in all"):
        await fetch(ctx, names, f"http://docs.test:{origin.port}/drip", timeout=2)
    elapsed = time.monotonic() - started
    assert 2.0 <= elapsed < 5.0, elapsed  # the page alone would take 600 s


async def test_https_checks_the_certificate_against_the_name_not_the_address(
    ctx: ToolContext, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("http_proxy", "https_proxy", "all_proxy", "no_proxy", "SSL_CERT_DIR"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)
    (tmp_path / "good").mkdir()
    (tmp_path / "wrong").mkdir()
    good = make_authority(tmp_path / "good", names=("docs.test",), addresses=())
    wrong = make_authority(tmp_path / "wrong", names=("other.test",), addresses=("127.0.0.1",))
    body = b"HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 6\r\n\r\nsecure"

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(body)
        await writer.drain()
        writer.close()

    names = Names({"docs.test": [["127.0.0.1"]]})
    for authority, works in ((good, True), (wrong, False)):
        server = await asyncio.start_server(answer, "127.0.0.1", 0, ssl=authority.server)
        port = server.sockets[0].getsockname()[1]
        monkeypatch.setenv("SSL_CERT_FILE", str(authority.ca_file))
        try:
            if works:
                output, _ = await fetch(ctx, names, f"https://docs.test:{port}/", format="text")
                assert output == "secure"
            else:
                with pytest.raises(ToolError, match=r"CERTIFICATE_VERIFY_FAILED"):
                    await fetch(ctx, names, f"https://docs.test:{port}/", format="text")
        finally:
            server.close()
            await server.wait_closed()
