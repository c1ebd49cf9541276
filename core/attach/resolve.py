"""Resolving context items: each becomes the exact text the model will see, and its token count."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

from core.attach import editor, project
from core.attach.mcp import ReadResource, resource_label, resource_text
from core.errors import AgentError
from core.message.context_items import (
    ChangesItem,
    ContextItem,
    EditorItem,
    FolderItem,
    McpResourceItem,
    ProblemsItem,
    ResolvedItem,
    SessionItem,
    SymbolItem,
    TerminalItem,
    UrlItem,
)
from core.message.models import MessageWithParts, Session
from core.record import record
from core.workspace import Workspace

log = logging.getLogger(__name__)


@record
class Sources:
    """What resolving needs of the agent: the project, a token counter and the store."""

    directory: Path
    worktree: Path
    workspace: Workspace
    count: Callable[[str], int]  # the counter model requests are counted with
    session: Callable[[str], Awaitable[tuple[Session, list[MessageWithParts]]]]  # NotFoundError
    fetch: Callable[[str, float | None], Awaitable[tuple[str, str]]]  # (url, timeout) → (final URL, page)
    read_resource: ReadResource  # an MCP server's resource


async def resolve_items(items: Sequence[ContextItem], sources: Sources) -> list[ResolvedItem]:
    """Each item resolved in turn; an item that cannot be read carries ``error``, the others go on."""
    return [await _resolve_one(item, sources) for item in items]


async def _resolve_one(item: ContextItem, sources: Sources) -> ResolvedItem:
    label = _label(item, sources)
    try:
        label, text = await _content(item, sources)
    except AgentError as exc:  # NotFound, InvalidInput, ToolError (fetch, permission): said per item
        log.info("context item %s %r: %s", item.kind, label, exc)
        return ResolvedItem(kind=item.kind, label=label, error=str(exc))
    return ResolvedItem(kind=item.kind, label=label, text=text, tokens=sources.count(text))


def _label(item: ContextItem, sources: Sources) -> str:
    if isinstance(item, FolderItem):
        return item.path
    if isinstance(item, UrlItem):
        return item.url
    if isinstance(item, SessionItem):
        return item.session
    if isinstance(item, SymbolItem):
        return editor.symbol_label(item)
    if isinstance(item, TerminalItem):
        return item.name
    if isinstance(item, ProblemsItem):
        return editor.problems_label(item, sources.worktree)
    if isinstance(item, EditorItem):
        return editor.editor_label(item, sources.worktree)
    if isinstance(item, McpResourceItem):
        return resource_label(item)
    return item.kind


async def _content(item: ContextItem, sources: Sources) -> tuple[str, str]:
    """The item's label and text."""
    if isinstance(item, FolderItem):
        return await _folder(item, sources)
    if isinstance(item, ChangesItem):
        return "changes", await project.working_tree_changes(sources.worktree)
    if isinstance(item, UrlItem):
        final, page = await sources.fetch(item.url, item.timeout)  # webfetch's path; ToolError
        moved = f' redirected="{final}"' if final != item.url else ""
        return item.url, f'<url href="{item.url}"{moved}>\n{page.rstrip()}\n</url>'
    if isinstance(item, SessionItem):
        session, messages = await sources.session(item.session)
        return project.session_label(session), project.session_text(session, messages)
    if isinstance(item, McpResourceItem):
        return await resource_text(item, sources.read_resource)
    label = _label(item, sources)
    if isinstance(item, ProblemsItem):
        return label, editor.problems_text(item, sources.worktree)
    if isinstance(item, TerminalItem):
        return label, editor.terminal_text(item)
    if isinstance(item, SymbolItem):
        return label, editor.symbol_text(item, sources.worktree)
    return label, editor.editor_text(item, sources.worktree)


async def _folder(item: FolderItem, sources: Sources) -> tuple[str, str]:
    root = project.folder_path(item.path, sources.directory)
    label = editor.shown_path(str(root), sources.worktree).rstrip("/") + "/"
    entries, listing = await asyncio.to_thread(project.folder_tree, root, sources.worktree, label)
    parts = [listing]
    if item.files:  # the budget is the files' own: the listing is bounded by its entries
        budget = item.budget
        blocks, notes = await project.folder_files(entries, root, sources.workspace, budget, sources.count)
        parts.extend(blocks)
        if notes:
            parts.append("Files left out:\n" + "\n".join(notes))
    body = "\n\n".join(parts)
    return label, f'<folder path="{label}">\n{body}\n</folder>'
