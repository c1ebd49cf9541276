"""``@url`` against real servers on loopback addresses: a redirect to another origin asks for that
origin once, as a fetch of it would, and declining it is the item's error naming the target."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from core.attach.fetch import fetch_url
from core.errors import PermissionRejectedError, ToolError
from core.permission.request import PermissionAsk
from core.tools.context import ToolContext
from core.tools.webfetch import WebFetchTool
from tests.unit.tools.harness import Recorder, allow_all
from tests.unit.tools.websites import Site, serving


@pytest.fixture
def first() -> Iterator[Site]:
    with serving(Site("127.0.0.1")) as site:
        site.page("/notes", b"<h1>Notes</h1>")
        yield site


@pytest.fixture
def second() -> Iterator[Site]:
    with serving(Site("127.0.0.2")) as site:
        site.page("/moved", b"<h1>Moved notes</h1>")
        yield site


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


@pytest.fixture
def ctx(tmp_path: Path, recorder: Recorder) -> ToolContext:
    (tmp_path / "project").mkdir()
    return allow_all(tmp_path / "project", tmp_path / "data", recorder)


async def test_a_page_on_its_own_origin_asks_for_it_and_its_address(
    ctx: ToolContext, recorder: Recorder, first: Site
) -> None:
    url = f"{first.url}/notes"
    assert await fetch_url(ctx, url) == (url, "# Notes\n")
    assert [(a.permission, a.patterns) for a in recorder.asks] == [
        ("webfetch", [url]),
        ("local_network", [f"127.0.0.1:{first.port}"]),
    ]


async def test_a_cross_origin_redirect_asks_once_for_the_target(
    ctx: ToolContext, recorder: Recorder, first: Site, second: Site
) -> None:
    url, target = f"{first.url}/old", f"{second.url}/moved"
    first.redirect("/old", target, 301)
    assert await fetch_url(ctx, url) == (target, "# Moved notes\n")
    hop = [a for a in recorder.asks if a.permission == "webfetch" and a.patterns == [target]]
    assert len(hop) == 1
    assert hop[0].title == f"Fetch {target} (the attached {url} redirects there, HTTP 301)"
    assert hop[0].always == [f"{second.url}/*"]
    assert [p for p, _ in second.requests] == ["/moved"]


async def test_declining_the_target_is_an_error_naming_it_and_nothing_reaches_it(
    ctx: ToolContext, first: Site, second: Site
) -> None:
    url, target = f"{first.url}/old", f"{second.url}/moved"
    first.redirect("/old", target)

    async def ask(request: PermissionAsk) -> None:
        if request.patterns == [target]:
            raise PermissionRejectedError("The user rejected this call.")

    with pytest.raises(ToolError, match=f"{url} redirects to {target}, and fetching that was not allowed"):
        await fetch_url(replace(ctx, ask=ask), url)
    assert second.requests == []


async def test_declining_the_attached_url_itself_is_the_rejection(ctx: ToolContext, first: Site) -> None:
    async def ask(request: PermissionAsk) -> None:
        raise PermissionRejectedError("The user rejected this call.")

    with pytest.raises(PermissionRejectedError, match="rejected"):
        await fetch_url(replace(ctx, ask=ask), f"{first.url}/notes")
    assert first.requests == []


async def test_endless_cross_origin_redirects_end_with_an_error(
    ctx: ToolContext, first: Site, second: Site
) -> None:
    first.redirect("/ping", f"{second.url}/pong")
    second.redirect("/pong", f"{first.url}/ping")
    with pytest.raises(ToolError, match="more than 5 times; attach the last URL"):
        await fetch_url(ctx, f"{first.url}/ping", tool=WebFetchTool())
    assert len(first.requests) + len(second.requests) == 6


async def test_without_a_session_nothing_is_fetched(first: Site) -> None:
    with pytest.raises(ToolError, match="pass sessionID"):
        await fetch_url(None, f"{first.url}/notes")
    assert first.requests == []
