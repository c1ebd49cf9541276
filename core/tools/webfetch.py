"""``webfetch``: fetch an http(s) URL and return it as Markdown, plain text or raw HTML."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Literal, TypeVar
from urllib.parse import urlsplit

from pydantic import Field

from core.errors import AbortedError, ToolError
from core.llm import netenv
from core.permission.request import PermissionAsk
from core.record import record
from core.tools.base import Tool, ToolParams, ToolResult
from core.tools.context import ToolContext

if TYPE_CHECKING:
    from bs4 import BeautifulSoup

MAX_BYTES = 5 * 1024 * 1024
MAX_REDIRECTS = 5
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


class WebFetchParams(ToolParams):
    url: str = Field(description="The http:// or https:// URL to fetch")
    format: Literal["text", "markdown", "html"] = Field(
        default="markdown", description="How to return the page: markdown (default), text or html"
    )
    timeout: float | None = Field(
        default=None,
        gt=0,
        description=f"Seconds to wait at most (default {DEFAULT_TIMEOUT:g}, max {MAX_TIMEOUT:g})",
    )


class WebFetchTool(Tool[WebFetchParams]):
    id = "webfetch"
    Params = WebFetchParams
    read_only = True

    async def execute(self, params: WebFetchParams, ctx: ToolContext) -> ToolResult:
        parts = urlsplit(params.url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ToolError(f"Only http:// and https:// URLs can be fetched, not {params.url!r}.")
        origin = f"{parts.scheme}://{parts.netloc}"
        await ctx.ask(
            PermissionAsk(
                "webfetch",
                [params.url],
                [f"{origin}/*"],
                title=f"Fetch {params.url}",
                metadata={"url": params.url, "format": params.format},
            )
        )
        timeout = min(params.timeout or DEFAULT_TIMEOUT, MAX_TIMEOUT)
        fetched = await _until_abort(_fetch(params.url, params.format, timeout), ctx.abort)
        text = _decode(fetched)
        media = fetched.media_type
        is_html = "html" in media or (not media and text.lstrip()[:1] == "<")
        if params.format == "markdown" and is_html:
            text = html_to_markdown(text)
        elif params.format == "text" and is_html:
            text = html_to_text(text)
        return ToolResult(
            title=f"{fetched.url} ({media or 'unknown type'})",
            output=text,
            metadata={"url": fetched.url, "contentType": media, "bytes": len(fetched.body)},
        )


@record
class _Fetched:
    body: bytes
    media_type: str  # e.g. text/html; empty when the server did not say
    charset: str | None
    url: str  # after redirects


async def _fetch(url: str, fmt: str, timeout: float) -> _Fetched:
    import httpx  # here: redirects, charsets and cookies are httpx's job, and only a fetch needs them

    headers = {"User-Agent": USER_AGENT, "Accept": _ACCEPT[fmt]}
    try:
        network = netenv.httpx_options(url, os.environ)  # the proxy and CAs model requests use
    except (OSError, ValueError) as exc:
        raise ToolError(f"Fetching {url} is not possible with this environment: {exc}") from exc
    try:
        async with (
            httpx.AsyncClient(
                follow_redirects=True,
                max_redirects=MAX_REDIRECTS,
                timeout=timeout,
                headers=headers,
                **network,
            ) as client,
            client.stream("GET", url) as response,
        ):
            if response.status_code >= 400:
                raise ToolError(f"Fetching {url} failed with HTTP status {response.status_code}.")
            declared = response.headers.get("content-length")
            if declared is not None and declared.isdigit() and int(declared) > MAX_BYTES:
                raise ToolError(_too_large(url))
            chunks: list[bytes] = []
            size = 0
            async for chunk in response.aiter_bytes():
                size += len(chunk)
                if size > MAX_BYTES:
                    raise ToolError(_too_large(url))
                chunks.append(chunk)
            media = response.headers.get("content-type", "").split(";")[0].strip().lower()
            return _Fetched(b"".join(chunks), media, response.charset_encoding, str(response.url))
    except httpx.TooManyRedirects as exc:
        raise ToolError(f"Fetching {url} took more than {MAX_REDIRECTS} redirects; giving up.") from exc
    except httpx.TimeoutException as exc:
        raise ToolError(f"Fetching {url} timed out after {timeout:g} s.") from exc
    except httpx.UnsupportedProtocol as exc:
        raise ToolError(f"Fetching {url} was redirected to an unsupported URL: {exc}") from exc
    except httpx.HTTPError as exc:
        raise ToolError(f"Fetching {url} failed: {exc}") from exc
    except httpx.InvalidURL as exc:
        raise ToolError(f"{url!r} is not a valid URL ({exc}). Rewrite it.") from exc


def _too_large(url: str) -> str:
    return f"The response from {url} is larger than {MAX_BYTES // (1024 * 1024)} MB; fetch a smaller page."


def _decode(fetched: _Fetched) -> str:
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
