"""Forking a session: a new session holding a copy of the history before a given message."""

from __future__ import annotations

from core import ids
from core.errors import NotFoundError
from core.session.models import AnyPart, AssistantMessage, Session
from core.storage.base import StoreBase
from core.storage.messages import message_row, part_row
from core.storage.rows import AnyMessage, decode_message, decode_part, encode


class ForkOps(StoreBase):
    """``fork``: one transaction that inserts the new session and its cloned history."""

    async def fork(self, session_id: str, message_id: str | None, new_session: Session) -> Session:
        """Store ``new_session`` with a clone of every message of ``session_id`` strictly before
        ``message_id`` (all of them when None): new ascending ids, assistant ``parentID`` links
        remapped to the clones, parts re-ided. A corrupt row aborts the fork (StorageError)."""
        cut = message_id if message_id is not None else "\U0010ffff"  # above every id
        async with self._tx() as conn:
            async with conn.execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,)) as cursor:
                if await cursor.fetchone() is None:
                    raise NotFoundError(f"session {session_id} not found")
            async with conn.execute(
                "SELECT id, body FROM messages WHERE session_id = ? AND id < ? ORDER BY id", (session_id, cut)
            ) as cursor:
                messages = [(r[0], decode_message(r[0], r[1])) for r in await cursor.fetchall()]
            async with conn.execute(
                "SELECT p.id, p.message_id, p.body FROM parts p JOIN messages m ON m.id = p.message_id "
                "WHERE m.session_id = ? AND m.id < ? ORDER BY m.id, p.id",
                (session_id, cut),
            ) as cursor:
                parts = [(r[1], decode_part(r[0], r[2])) for r in await cursor.fetchall()]

            new_messages, new_parts = _clone(messages, parts, new_session.id)
            await conn.execute(
                "INSERT INTO sessions (id, project_id, parent_id, time_created, time_updated, body) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (
                    new_session.id,
                    new_session.projectID,
                    new_session.parentID,
                    new_session.time.created,
                    new_session.time.updated,
                    encode(new_session),
                ),
            )
            await conn.executemany(
                "INSERT INTO messages (id, session_id, role, time_created, body) VALUES (?, ?, ?, ?, ?)",
                [message_row(m) for m in new_messages],
            )
            await conn.executemany(
                "INSERT INTO parts (id, message_id, session_id, type, body) VALUES (?, ?, ?, ?, ?)",
                [part_row(p) for p in new_parts],
            )
        return new_session


def _clone(
    messages: list[tuple[str, AnyMessage]], parts: list[tuple[str, AnyPart]], session_id: str
) -> tuple[list[AnyMessage], list[AnyPart]]:
    # Ids are minted in the original order, so the clones sort exactly as the originals did.
    id_map: dict[str, str] = {}
    new_messages: list[AnyMessage] = []
    for row_id, message in messages:
        new_id = ids.ascending("msg")
        id_map[row_id] = new_id
        update: dict[str, object] = {"id": new_id, "sessionID": session_id}
        if isinstance(message, AssistantMessage):
            update["parentID"] = id_map.get(message.parentID, message.parentID)
        new_messages.append(message.model_copy(update=update))
    # Parts follow the message row they are stored under (the indexed column, not the body).
    new_parts = [
        part.model_copy(
            update={"id": ids.ascending("prt"), "messageID": id_map[owner], "sessionID": session_id}
        )
        for owner, part in parts
    ]
    return new_messages, new_parts
