"""The session reads a chat opens with — the list, one session, a page of its transcript, its todos —
as one table that both the full server (``sessions.register``) and the early phase (``early_reads``,
before pygls is loaded) answer from, so that the two cannot answer differently.

pygls-free: nothing here may import pygls or lsprotocol (a test says so).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from lsp_server import protocol as p

if TYPE_CHECKING:
    from core.api import SessionReads


async def list_(reads: SessionReads, params: p.SessionList) -> Any:
    """``agent/session/list``: this project's sessions, newest first; with ``messages``, also the
    first listed session's last ``messages`` messages (a chat opens the newest session in one
    request)."""
    sessions = await reads.list_sessions(params.limit, params.before)
    if params.messages is None:
        return {"sessions": sessions}
    newest = await reads.messages(sessions[0].id, params.messages, None) if sessions else []
    return {"sessions": sessions, "messages": newest}


async def get(reads: SessionReads, params: p.SessionRef) -> Any:
    """``agent/session/get``."""
    return await reads.get_session(params.sessionID)


async def messages(reads: SessionReads, params: p.SessionMessages) -> Any:
    """``agent/session/messages``: a page of the transcript, oldest first."""
    return {"messages": await reads.messages(params.sessionID, params.limit, params.before)}


async def todo(reads: SessionReads, params: p.SessionRef) -> Any:
    """``agent/session/todo``."""
    await reads.get_session(params.sessionID)
    return {"todos": await reads.todos(params.sessionID)}


Read = Callable[["SessionReads", Any], Awaitable[Any]]

# method -> (its params model, its handler)
READS: dict[str, tuple[type[BaseModel], Read]] = {
    "agent/session/list": (p.SessionList, list_),
    "agent/session/get": (p.SessionRef, get),
    "agent/session/messages": (p.SessionMessages, messages),
    "agent/session/todo": (p.SessionRef, todo),
}
