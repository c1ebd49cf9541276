"""``webfetch``: fetch an http(s) URL and return it as Markdown, plain text or raw HTML."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Literal, TypeAlias, TypeVar
from urllib.parse import urlsplit

from pydantic import Field

from core.errors import AbortedError, ToolError
from core.permission.request import PermissionAsk
from core.tools import webclient
from core.tools.base import Tool, ToolParams, ToolResult
from core.tools.context import ToolContext
from core.tools.webaddress import LocalAddress, Resolver, system_resolver
from core.tools.webclient import Page, Redirected

if TYPE_CHECKING:
    from bs4 import BeautifulSoup

DEFAULT_TIMEOUT = 30.0
MAX_TIMEOUT = 120.0
USER_AGENT = "agentls-webfetch/0.1 (+https://github.com/agentls)"
# Elements whose content is never reading matter.
_NOISE = ("script", "style", "noscript", "iframe", "object", "embed", "template", "svg", "head")
_ACCEPT = {
    "markdown": "text/markdown;q=1.0, text/html;q=0.9, text/plain;q=0.8, */*;q=0.1",
    "text": "text/plain;q=1.0, text/html;q=0.9, */*;q=0.1",
    "html": "text/html;q=1.0, application/xhtml+xml;q=0.9, */*;q=0.1",
}

T = TypeVar("T")
Format: TypeAlias = Literal["text", "markdown", "html"]


class WebFetchParams(ToolParams):
    url: str = Field(description="The http:// or https:// URL to fetch")
    format: Format = Field(
        default="markdown", description="How to return the page: markdown (default), text or html"
    )
    timeout: float | None = Field(
        default=None,
        gt=0,
        description=f"Seconds the whole fetch may take (default {DEFAULT_TIMEOUT:g}, max {MAX_TIMEOUT:g})",
    )


class WebFetchTool(Tool[WebFetchParams]):
    id = "webfetch"
    Params = WebFetchParams
    read_only = True

    def __init__(self, resolver: Resolver = system_resolver) -> None:
        self._resolver = resolver  # tests resolve their own names to local test servers

    async def execute(self, params: WebFetchParams, ctx: ToolContext) -> ToolResult:
        fetched = await self.fetch(params.url, params.format, params.timeout, ctx)
        if isinstance(fetched, Redirected):
            return ToolResult(
                title=f"{fetched.url} → {fetched.target} (not followed)",
                output=redirect_note(fetched),
                metadata={"url": fetched.url, "redirect": fetched.target, "status": fetched.status},
            )
        media = fetched.media_type
        return ToolResult(
            title=f"{fetched.url} ({media or 'unknown type'})",
            output=page_text(fetched, params.format),
            metadata={"url": fetched.url, "contentType": media, "bytes": len(fetched.body)},
        )

    async def fetch(
        self, url: str, fmt: Format, timeout: float | None, ctx: ToolContext, title: str | None = None
    ) -> Page | Redirected:
        """The page at ``url`` once ``ctx`` allowed its origin (and a local address, if it is one),
        or the redirect to another origin it answered with; ``title`` names the dialog."""
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ToolError(f"Only http:// and https:// URLs can be fetched, not {url!r}.")
        origin = f"{parts.scheme}://{parts.netloc}"
        await ctx.ask(
            PermissionAsk(
                "webfetch",
                [url],
                [f"{origin}/*"],
                title=title or f"Fetch {url}",
                metadata={"url": url, "format": fmt},
            )
        )

        async def ask_local(local: list[LocalAddress], port: int) -> None:
            await ctx.ask(local_network_ask(url, local, port))

        headers = {"User-Agent": USER_AGENT, "Accept": _ACCEPT[fmt]}
        seconds = min(timeout or DEFAULT_TIMEOUT, MAX_TIMEOUT)
        return await _until_abort(webclient.get(url, headers, seconds, self._resolver, ask_local), ctx.abort)


def local_network_ask(url: str, local: list[LocalAddress], port: int) -> PermissionAsk:
    """The ``local_network`` request for fetching ``url`` from these addresses (its own permission,
    so that allowing ``webfetch`` for a site never reaches into the user's machine or network)."""
    patterns = [a.pattern(port) for a in local]
    shown = ", ".join(f"{a.address} ({a.kind})" for a in local)
    return PermissionAsk(
        "local_network",
        patterns,
        always=patterns,
        title=f"Fetch {url} from a local network address: {shown}",
        metadata={"url": url, "addresses": {a.address: a.kind for a in local}},
    )


def redirect_note(redirect: Redirected) -> str:
    """What the model reads when a page redirects to another origin."""
    return (
        f"{redirect.url} redirects (HTTP {redirect.status}) to {redirect.target}, which is on another "
        "origin (scheme, host or port), so it was not followed. If that page is what you need, fetch "
        f"{redirect.target} with webfetch: that asks the user for its origin."
    )


def page_text(page: Page, fmt: Format) -> str:
    """The page as ``fmt`` asks: HTML converted to Markdown or to its text, other text as it came."""
    text = _decode(page)
    media = page.media_type
    is_html = "html" in media or (not media and text.lstrip()[:1] == "<")
    if fmt == "markdown" and is_html:
        return html_to_markdown(text)
    if fmt == "text" and is_html:
        return html_to_text(text)
    return text


def _decode(fetched: Page) -> str:
    kind = fetched.media_type
    if kind and not (
        kind.startswith("text/") or kind.endswith(("json", "xml", "javascript")) or "+xml" in kind
    ):
        raise ToolError(f"The URL returned {kind} content, which cannot be shown as text.")
    try:
        return fetched.body.decode(fetched.charset or "utf-8", errors="replace")
    except LookupError:  # a charset Python does not know
        return fetched.body.decode("utf-8", errors="replace")


def _clean_soup(html: str) -> BeautifulSoup:
    from bs4 import BeautifulSoup  # the HTML stack loads with the first page, not with every start

    soup = BeautifulSoup(html, "html.parser")
    for tag in soup.find_all(_NOISE):
        tag.decompose()
    return soup


def html_to_markdown(html: str) -> str:
    """Readable Markdown from an HTML page (scripts, styles and the head dropped)."""
    from markdownify import MarkdownConverter

    markdown = MarkdownConverter(heading_style="ATX", bullets="-").convert_soup(_clean_soup(html))
    return _squeeze(markdown)


def html_to_text(html: str) -> str:
    """The visible text of an HTML page."""
    return _squeeze(_clean_soup(html).get_text("\n"))


def _squeeze(text: str) -> str:
    lines = [line.rstrip() for line in text.splitlines()]
    out: list[str] = []
    for line in lines:
        if line or (out and out[-1]):
            out.append(line)
    return "\n".join(out).strip() + "\n"


async def _until_abort(work: Awaitable[T], abort: asyncio.Event) -> T:
    """Run ``work``; stop it and raise ``AbortedError`` when the turn is aborted first."""
    task = asyncio.ensure_future(work)
    waiter = asyncio.ensure_future(abort.wait())
    try:
        done, _ = await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        waiter.cancel()
    if task in done:
        return task.result()
    task.cancel()
    raise AbortedError("the fetch was aborted")
