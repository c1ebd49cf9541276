"""The sessions and todos tables."""

from __future__ import annotations

import logging

from core.errors import NotFoundError, StorageError
from core.message.models import Session, Todo
from core.message.title_text import clean_title
from core.storage.base import StoreBase
from core.storage.rows import decode_session, decode_todos, encode, encode_todos

log = logging.getLogger(__name__)

_COLUMNS = "id, body"


class SessionTable(StoreBase):
    """Sessions (a child session has ``parentID``) and their todo lists."""

    async def insert_session(self, session: Session) -> None:
        """Store a new session (StorageError if its id or project is wrong)."""
        await self._write(
            "INSERT INTO sessions (id, project_id, parent_id, time_created, time_updated, body) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            _row(session),
        )

    async def update_session(self, session: Session) -> None:
        """Replace a stored session (NotFoundError if it does not exist)."""
        row = _row(session)
        changed = await self._write(
            "UPDATE sessions SET project_id = ?, parent_id = ?, time_created = ?, time_updated = ?, body = ? "
            "WHERE id = ?",
            (*row[1:], row[0]),
        )
        if changed == 0:
            raise NotFoundError(f"session {session.id} not found")

    async def get_session(self, session_id: str) -> Session:
        """A session by id (NotFoundError if unknown)."""
        row = await self._fetchone(f"SELECT {_COLUMNS} FROM sessions WHERE id = ?", (session_id,))
        if row is None:
            raise NotFoundError(f"session {session_id} not found")
        return decode_session(row[0], row[1])

    async def list_sessions(
        self, project_id: str, limit: int = 50, before: str | None = None
    ) -> list[Session]:
        """A project's sessions, last updated first; ``before`` is the last id of the previous page."""
        if before is None:
            rows = await self._fetchall(
                f"SELECT {_COLUMNS} FROM sessions WHERE project_id = ? "
                "ORDER BY time_updated DESC, id DESC LIMIT ?",
                (project_id, limit),
            )
        else:
            cursor_row = await self._fetchone("SELECT time_updated FROM sessions WHERE id = ?", (before,))
            if cursor_row is None:
                raise NotFoundError(f"session {before} not found")
            rows = await self._fetchall(
                f"SELECT {_COLUMNS} FROM sessions WHERE project_id = ? AND (time_updated, id) < (?, ?) "
                "ORDER BY time_updated DESC, id DESC LIMIT ?",
                (project_id, cursor_row[0], before, limit),
            )
        return [decode_session(r[0], r[1]) for r in rows]

    async def child_sessions(self, session_id: str) -> list[Session]:
        """The sessions whose parent is ``session_id``, oldest first."""
        rows = await self._fetchall(
            f"SELECT {_COLUMNS} FROM sessions WHERE parent_id = ? ORDER BY time_created, id", (session_id,)
        )
        return [decode_session(r[0], r[1]) for r in rows]

    async def delete_session(self, session_id: str) -> list[Session]:
        """Delete a session, its descendants, their messages, parts and todos; returns what was deleted.

        The list holds the descendants deepest first, then the session itself.
        """
        async with self._tx() as conn:
            async with conn.execute(
                "WITH RECURSIVE tree(id, depth) AS ("
                " SELECT id, 0 FROM sessions WHERE id = ?"
                " UNION ALL SELECT s.id, tree.depth + 1 FROM sessions s JOIN tree ON s.parent_id = tree.id)"
                " SELECT s.id, s.body FROM tree JOIN sessions s ON s.id = tree.id"
                " ORDER BY tree.depth DESC, s.id",
                (session_id,),
            ) as cursor:
                rows = list(await cursor.fetchall())
            if not rows:
                raise NotFoundError(f"session {session_id} not found")
            # Foreign keys cascade to children, messages, parts and todos.
            await conn.execute("DELETE FROM sessions WHERE id = ?", (session_id,))
        deleted: list[Session] = []
        for row in rows:
            try:
                deleted.append(decode_session(row[0], row[1]))
            except StorageError as exc:
                # The row is gone either way; say so, since no session.deleted event can carry it.
                log.warning("deleted an invalid session row: %s", exc)
        return deleted

    async def get_todos(self, session_id: str) -> list[Todo]:
        """The session's todo list (empty when none was set)."""
        row = await self._fetchone("SELECT body FROM todos WHERE session_id = ?", (session_id,))
        return [] if row is None else decode_todos(session_id, row[0])

    async def set_todos(self, session_id: str, todos: list[Todo]) -> None:
        """Replace the session's todo list."""
        await self._write(
            "INSERT INTO todos (session_id, body) VALUES (?, ?) "
            "ON CONFLICT (session_id) DO UPDATE SET body = excluded.body",
            (session_id, encode_todos(todos)),
        )


def _row(session: Session) -> tuple[str, str, str | None, int, int, str]:
    title = clean_title(session.title)
    if title != session.title:  # whoever wrote it (model, rename, import), it is printed on terminals
        session = session.model_copy(update={"title": title})
    return (
        session.id,
        session.projectID,
        session.parentID,
        session.time.created,
        session.time.updated,
        encode(session),
    )
