"""``@url``: fetched by the webfetch tool itself, so the same path, limits and permission apply."""

from __future__ import annotations

from core.errors import ToolError
from core.tools.context import ToolContext
from core.tools.webfetch import WebFetchParams, WebFetchTool


async def fetch_url(ctx: ToolContext | None, url: str, timeout: float | None = None) -> str:
    """The page as Markdown, as the model would get it from ``webfetch``; ``ctx`` asks permission in
    its session (None: there is no session to ask in)."""
    if ctx is None:
        raise ToolError("a URL is attached within a session (fetching it may ask permission): pass sessionID")
    result = await WebFetchTool().execute(WebFetchParams(url=url, timeout=timeout), ctx)
    return result.output
