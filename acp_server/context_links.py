"""Context items an ACP host attaches as resource links: the editors' ``@changes``, ``@session``,
``@folder`` (with its files) and ``@url`` (``docs/acp.md``, "Context items").

ACP has no context items of its own; a host attaches things as ``resource_link`` blocks. A link with
one of these URIs is resolved by the core exactly as an editor's context item of that kind, so the
model reads the same text:

- ``agentls:changes`` — the working tree's git changes, staged and unstaged;
- ``agentls:session/<id>`` — an earlier session's summary or final answer;
- ``agentls:folder?path=<path>[&files=true][&budget=<tokens>]`` — a folder's tree, and with
  ``files`` the text of its files within the budget (a ``file://`` link to a folder is listed only);
- ``http://…`` / ``https://…`` — the page, fetched as the webfetch tool fetches (asking as its rules
  say, through ``session/request_permission``);
- any other scheme (``docs://readme``) that a running MCP server lists as a resource, or that one
  of its resource templates makes — the resource, read with ``resources/read`` as the editors'
  ``@server:uri`` (a link no server has stays the link's text, as before).

A malformed ``agentls:`` link is refused (-32602 naming the forms); one that cannot be resolved (no
such session, a page that does not load) never fails the prompt: the model is told instead.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlparse

from pydantic import ValidationError

from acp_server.errors import invalid_params
from core.message.context_items import (
    ChangesItem,
    ContextItem,
    FolderItem,
    McpResourceItem,
    SessionItem,
    UrlItem,
)
from core.message.prompt_input import ContextInput, TextInput
from core.uri_template import template_matches

if TYPE_CHECKING:
    from core.api import Agent

log = logging.getLogger(__name__)

FORMS = "agentls:changes, agentls:session/<id>, agentls:folder?path=<path>[&files=true][&budget=<tokens>]"


@dataclass(frozen=True)
class ContextLink:
    """A resource link that names a context item, resolved when the prompt runs; ``maybe``: an MCP
    resource only if a running server has it, else the link's text."""

    uri: str
    item: ContextItem
    maybe: bool = False


def context_link(uri: str) -> ContextLink | None:
    """The context item a link names, None for a link that is not one (raises invalid params for a
    malformed ``agentls:`` link)."""
    parsed = urlparse(uri)
    if parsed.scheme in ("http", "https") and parsed.netloc:
        return ContextLink(uri, UrlItem(kind="url", url=uri))
    if parsed.scheme not in ("agentls", "file", "") and len(uri) <= 4_000:
        return ContextLink(uri, McpResourceItem(kind="mcp", uri=uri), maybe=True)
    if parsed.scheme != "agentls":
        return None
    kind, _, rest = parsed.path.partition("/")
    query = parse_qs(parsed.query)
    try:
        if kind == "changes" and not rest:
            return ContextLink(uri, ChangesItem(kind="changes"))
        if kind == "session" and rest:
            return ContextLink(uri, SessionItem(kind="session", session=rest))
        if kind == "folder" and not rest and query.get("path"):
            files = query.get("files", ["false"])[-1].lower() in ("true", "1", "yes")
            budget = int(query["budget"][-1]) if "budget" in query else 8_000
            return ContextLink(
                uri, FolderItem(kind="folder", path=query["path"][-1], files=files, budget=budget)
            )
    except (ValidationError, ValueError) as exc:
        raise invalid_params(
            f"the link {uri} is not a context item agentls reads ({exc}); use {FORMS}"
        ) from None
    raise invalid_params(f"the link {uri} is not a context item agentls reads; use {FORMS}")


async def resolve_links(app: Agent, session_id: str, inputs: Sequence[Any]) -> list[Any]:
    """``inputs`` with each ContextLink replaced by the item's text (or a note saying why not)."""
    inputs = await _mcp_links(app, inputs)
    links = [i for i in inputs if isinstance(i, ContextLink)]
    if not links:
        return list(inputs)
    resolved = iter(await app.resolve_context(session_id, [link.item for link in links]))
    out: list[Any] = []
    for entry in inputs:
        if not isinstance(entry, ContextLink):
            out.append(entry)
            continue
        item = next(resolved)
        if item.error is not None or not item.text:
            out.append(_not_attached(entry.uri, item.error or "it is empty"))
            continue
        try:
            out.append(ContextInput(kind=item.kind, label=item.label, text=item.text))
        except ValidationError:  # larger than a prompt input may be
            out.append(_not_attached(entry.uri, f"it is {len(item.text):,} characters, too large to attach"))
    return out


async def _mcp_links(app: Agent, inputs: Sequence[Any]) -> Sequence[Any]:
    """Links that may be MCP resources: those a running server has, bound to it; the others the
    link's text."""
    if not any(isinstance(i, ContextLink) and i.maybe for i in inputs):
        return inputs
    listed = await app.mcp_resources()
    out: list[Any] = []
    for entry in inputs:
        if not (isinstance(entry, ContextLink) and entry.maybe):
            out.append(entry)
            continue
        server = next((r.server for r in listed.resources if r.uri == entry.uri), None)
        if server is None:
            server = next(
                (t.server for t in listed.templates if template_matches(t.uri_template, entry.uri)), None
            )
        if server is None:
            out.append(TextInput(text=entry.uri))  # another scheme no server has: the link itself
        else:
            out.append(ContextLink(entry.uri, McpResourceItem(kind="mcp", server=server, uri=entry.uri)))
    return out


def _not_attached(uri: str, reason: str) -> TextInput:
    log.info("context link %s not attached: %s", uri, reason)
    return TextInput(text=f"[The user attached {uri}, but it could not be attached: {reason}.]")
