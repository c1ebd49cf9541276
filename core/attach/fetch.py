"""``@url``: fetched by the webfetch tool itself, so the same path, limits and permissions apply.

A page that redirects to another origin is not followed silently: the user is asked for that
origin in the same dialog a fetch of it would raise (one ask per hop), and the item says where
its text came from. Declining is the item's error, naming the target.
"""

from __future__ import annotations

from core.errors import PermissionDeniedError, PermissionRejectedError, ToolError
from core.tools.context import ToolContext
from core.tools.webclient import MAX_REDIRECTS, Page
from core.tools.webfetch import WebFetchTool, page_text


async def fetch_url(
    ctx: ToolContext | None, url: str, timeout: float | None = None, tool: WebFetchTool | None = None
) -> tuple[str, str]:
    """The URL the page came from and the page as Markdown, as the model would get it from
    ``webfetch``; ``ctx`` asks permission in its session (None: there is no session to ask in)."""
    if ctx is None:
        raise ToolError("a URL is attached within a session (fetching it may ask permission): pass sessionID")
    fetcher = tool or WebFetchTool()
    current, title = url, None
    for _ in range(MAX_REDIRECTS + 1):
        try:
            fetched = await fetcher.fetch(current, "markdown", timeout, ctx, title)
        except (PermissionRejectedError, PermissionDeniedError) as exc:
            if current == url:
                raise
            refused = f"{url} redirects to {current}, and fetching that was not allowed"
            raise ToolError(f"{refused}: {exc}") from exc
        if isinstance(fetched, Page):
            return fetched.url, page_text(fetched, "markdown")
        title = f"Fetch {fetched.target} (the attached {url} redirects there, HTTP {fetched.status})"
        current = fetched.target
    raise ToolError(f"{url} redirects to another origin more than {MAX_REDIRECTS} times; attach the last URL")
