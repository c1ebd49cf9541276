"""The session reads a chat needs first — the list, one session, a page of its transcript, its todos —
straight from the store, for a host whose agent is still loading (``core.open.open_project``). Once the
agent is open, the host asks it instead (the same answers, with the turns it runs flushed first).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from core.message.models import MessageWithParts, Session, Todo
from core.storage.store import Store

READ_PAGE = 500  # messages read at a time when a caller asks for a whole transcript

Page = Callable[..., Awaitable[list[MessageWithParts]]]


async def read_messages(
    page: Page, session_id: str, limit: int | None, before: str | None
) -> list[MessageWithParts]:
    """The newest ``limit`` messages before ``before`` (all of them when ``limit`` is None), oldest
    first; ``page(session_id, limit=, before=)`` reads newest first."""
    if limit is not None:
        return list(reversed(await page(session_id, limit=limit, before=before)))
    newest_first: list[MessageWithParts] = []
    while True:  # read in pages, so that no single read holds the store for a long session
        got = await page(session_id, limit=READ_PAGE, before=before)
        newest_first.extend(got)
        if len(got) < READ_PAGE:
            return list(reversed(newest_first))
        before = got[-1].info.id


class SessionReader:
    """A project's sessions as stored (NotFoundError for an unknown session, as the agent says);
    a ``core.api.SessionReads``."""

    def __init__(self, store: Store, project_id: str) -> None:
        self._store = store
        self._project_id = project_id

    async def list_sessions(self, limit: int = 50, before: str | None = None) -> list[Session]:
        """This project's sessions, newest first."""
        return await self._store.list_sessions(self._project_id, limit=limit, before=before)

    async def get_session(self, session_id: str) -> Session:
        """One session."""
        return await self._store.get_session(session_id)

    async def messages(
        self, session_id: str, limit: int | None = None, before: str | None = None
    ) -> list[MessageWithParts]:
        """A page of the transcript, oldest first (see ``read_messages``)."""
        await self._store.get_session(session_id)
        return await read_messages(self._store.page_messages, session_id, limit, before)

    async def todos(self, session_id: str) -> list[Todo]:
        """The session's todo list."""
        return await self._store.get_todos(session_id)
