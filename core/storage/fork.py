"""Forking a session: a new session holding a copy of the history before a given message.

A clone gets new ids, so every reference to an id of the copied history is remapped with it:
assistant ``parentID``, a compaction's ``tailStart`` (or the fork would re-send the summarised
history), and the session's revert anchor (or reverted messages would come back to life in the
fork). A reference to a message that is no longer stored (a tail start cleaned up by a revert)
maps to the first copied message after it, which keeps the id order the readers rely on.
"""

from __future__ import annotations

from bisect import bisect_left

from core import ids
from core.errors import NotFoundError
from core.message.models import AnyPart, AssistantMessage, CompactionPart, Session, SessionRevert
from core.message.review import Hunk
from core.storage.messages import message_row, part_row
from core.storage.review import decode_hunk, hunk_row
from core.storage.rows import AnyMessage, decode_message, decode_part, decode_session, encode
from core.storage.search import SearchTable


class ForkOps(SearchTable):
    """``fork``: one transaction that inserts the new session and its cloned history."""

    async def fork(self, session_id: str, message_id: str | None, new_session: Session) -> Session:
        """Store ``new_session`` with a clone of every message of ``session_id`` strictly before
        ``message_id`` (all of them when None) and return it as stored: new ascending ids, every
        cross-reference remapped to the clones. A corrupt row aborts the fork (StorageError)."""
        cut = message_id if message_id is not None else "\U0010ffff"  # above every id
        async with self._tx() as conn:
            async with conn.execute("SELECT id, body FROM sessions WHERE id = ?", (session_id,)) as cursor:
                row = await cursor.fetchone()
            if row is None:
                raise NotFoundError(f"session {session_id} not found")
            source = decode_session(row[0], row[1])
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

            async with conn.execute(
                "SELECT id, body FROM review_hunks WHERE session_id = ? AND message_id < ? ORDER BY id",
                (session_id, cut),
            ) as cursor:
                hunks = [decode_hunk(r[0], r[1]) for r in await cursor.fetchall()]
            async with conn.execute(
                "SELECT step_id, message_id FROM review_steps WHERE session_id = ?", (session_id,)
            ) as cursor:
                examined = [(str(r[0]), str(r[1])) for r in await cursor.fetchall()]

            clone = _Clone(messages, parts, new_session.id)
            new_session = new_session.model_copy(update={"revert": clone.revert(source.revert)})
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
                [message_row(m) for m in clone.messages],
            )
            await conn.executemany(
                "INSERT INTO parts (id, message_id, session_id, type, body) VALUES (?, ?, ?, ?, ?)",
                [part_row(p) for p in clone.parts],
            )
            await conn.executemany(
                "INSERT INTO review_hunks (id, session_id, message_id, step_id, state, body) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                [hunk_row(h) for h in clone.hunks(hunks)],
            )
            await conn.executemany(
                "INSERT INTO review_steps (step_id, session_id, message_id) VALUES (?, ?, ?)",
                clone.examined(examined),
            )
        await self.queued_for_search(clone.parts)
        return new_session


class _Clone:
    """The copied history with fresh ids, and the id maps that remap references into it."""

    def __init__(
        self, messages: list[tuple[str, AnyMessage]], parts: list[tuple[str, AnyPart]], session_id: str
    ) -> None:
        # Ids are minted in the original order, so the clones sort exactly as the originals did.
        self._session_id = session_id
        self._old_ids = [row_id for row_id, _ in messages]  # sorted: the query orders by id
        self._message_ids = {row_id: ids.ascending("msg") for row_id in self._old_ids}
        self._part_ids: dict[str, str] = {}
        self.messages: list[AnyMessage] = []
        for row_id, message in messages:
            update: dict[str, object] = {"id": self._message_ids[row_id], "sessionID": session_id}
            if isinstance(message, AssistantMessage):
                update["parentID"] = self._message_ids.get(message.parentID, message.parentID)
            self.messages.append(message.model_copy(update=update))
        self.parts: list[AnyPart] = []
        # Parts follow the message row they are stored under (the indexed column, not the body).
        for owner, part in parts:
            new_id = self._part_ids[part.id] = ids.ascending("prt")
            update = {"id": new_id, "messageID": self._message_ids[owner], "sessionID": session_id}
            if isinstance(part, CompactionPart) and part.tailStart is not None:
                update["tailStart"] = self.message_at_or_after(part.tailStart)
            self.parts.append(part.model_copy(update=update))

    def message_at_or_after(self, old_id: str) -> str | None:
        """The clone of ``old_id``, or of the first copied message after it (None: nothing after)."""
        if old_id in self._message_ids:
            return self._message_ids[old_id]
        index = bisect_left(self._old_ids, old_id)
        return self._message_ids[self._old_ids[index]] if index < len(self._old_ids) else None

    def hunks(self, hunks: list[Hunk]) -> list[Hunk]:
        """The review hunks of the copied steps, with their states: a fork is reviewed as far as
        its source was."""
        out: list[Hunk] = []
        for hunk in hunks:
            if hunk.messageID not in self._message_ids or hunk.stepID not in self._part_ids:
                continue  # a step whose patch part is no longer stored
            update = {
                "id": ids.ascending("hnk"),
                "sessionID": self._session_id,
                "messageID": self._message_ids[hunk.messageID],
                "stepID": self._part_ids[hunk.stepID],
            }
            out.append(hunk.model_copy(update=update))
        return out

    def examined(self, steps: list[tuple[str, str]]) -> list[tuple[str, str, str]]:
        """The rows of the copied steps review has examined (step, session, message)."""
        return [
            (self._part_ids[step], self._session_id, self._message_ids[message])
            for step, message in steps
            if step in self._part_ids and message in self._message_ids
        ]

    def revert(self, revert: SessionRevert | None) -> SessionRevert | None:
        """The source's revert anchored in the clone; None when the fork holds nothing it reverts."""
        if revert is None:
            return None
        anchor = self.message_at_or_after(revert.messageID)
        if anchor is None:
            return None
        part = self._part_ids.get(revert.partID) if revert.partID else None
        if revert.messageID not in self._message_ids:
            part = None  # the anchor moved to another message: revert it whole
        return revert.model_copy(update={"messageID": anchor, "partID": part})
