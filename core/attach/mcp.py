"""``@server:uri``: a resource of a running MCP server, read with ``resources/read``.

Only text is attached: a binary resource (an image, a PDF) or one larger than a client may send
for any item is refused with the reason, so the user knows why the chip shows an error.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from core.errors import InvalidInputError
from core.message.context_items import MAX_ITEM_CHARS, McpResourceItem
from core.uri_template import expand_template

ReadResource = Callable[[str | None, str], Awaitable[tuple[str, list[Any]]]]
"""(server or None, uri) → the server that read it and its contents (``McpServers.read_resource``)."""


def resource_uri(item: McpResourceItem) -> str:
    """The URI the item names: its own, or its template filled in."""
    if item.uri is not None:
        return item.uri
    assert item.template is not None  # the item's validator: one of the two
    return expand_template(item.template, item.arguments)


def resource_label(item: McpResourceItem) -> str:
    """``server:uri`` as a chip shows it (the template itself while its URI is not made)."""
    uri = item.uri or item.template or ""
    return f"{item.server}:{uri}" if item.server else uri


async def resource_text(item: McpResourceItem, read: ReadResource) -> tuple[str, str]:
    """The item's label and the text the model sees."""
    uri = resource_uri(item)
    server, contents = await read(item.server, uri)
    label = f"{server}:{uri}"
    blocks: list[str] = []
    for content in contents:
        text = getattr(content, "text", None)
        mime = getattr(content, "mime_type", None) or ""
        if not isinstance(text, str):
            kind = f" ({mime})" if mime else ""
            raise InvalidInputError(
                f"{label} is binary{kind}: only text resources can be attached as context"
            )
        if len(text) > MAX_ITEM_CHARS:
            raise InvalidInputError(
                f"{label} has {len(text):,} characters; at most {MAX_ITEM_CHARS:,} can be attached as context"
            )
        mime_attr = f' mimeType="{mime}"' if mime else ""
        head = f'<mcp-resource server="{server}" uri="{content.uri}"{mime_attr}>'
        blocks.append(f"{head}\n{text.rstrip()}\n</mcp-resource>")
    if not blocks:
        raise InvalidInputError(f"{label} is empty: the server gave no contents")
    return label, "\n\n".join(blocks)
