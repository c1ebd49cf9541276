"""The review_hunks table: the agent's changes as hunks with a state, stored with the session."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import ValidationError

from core.errors import StorageError
from core.message.review import Hunk
from core.storage.base import StoreBase


def hunk_row(hunk: Hunk) -> tuple[str, str, str, str, str, str]:
    """The row of a hunk: (id, session_id, message_id, step_id, state, body)."""
    return (hunk.id, hunk.sessionID, hunk.messageID, hunk.stepID, hunk.state, hunk.model_dump_json())


def decode_hunk(row_id: str, body: str) -> Hunk:
    """A stored hunk (StorageError naming the row when its body is not a hunk)."""
    try:
        return Hunk.model_validate_json(body)
    except ValidationError as exc:
        raise StorageError(f"review hunk {row_id} is corrupt: {exc.errors()[0]['msg']}") from exc


class ReviewTable(StoreBase):
    """Hunks of a session: added once per step, then their state (and ``told``) updated."""

    async def add_hunks(self, hunks: Sequence[Hunk]) -> None:
        """Store new hunks (a hunk already stored is left as it is)."""
        await self._write_many(
            "INSERT INTO review_hunks (id, session_id, message_id, step_id, state, body) "
            "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING",
            [hunk_row(h) for h in hunks],
        )

    async def update_hunks(self, hunks: Sequence[Hunk]) -> None:
        """Store the new state of hunks, all in one transaction."""
        await self._write_many(
            "UPDATE review_hunks SET state = ?, body = ? WHERE id = ?",
            [(h.state, h.model_dump_json(), h.id) for h in hunks],
        )

    async def hunks(self, session_id: str, state: str | None = None) -> list[Hunk]:
        """The session's hunks in the order they were made (only those in ``state`` when given)."""
        sql = "SELECT id, body FROM review_hunks WHERE session_id = ?"
        params: list[str] = [session_id]
        if state is not None:
            sql += " AND state = ?"
            params.append(state)
        rows = await self._fetchall(sql + " ORDER BY id", params)
        return [decode_hunk(r[0], r[1]) for r in rows]

    async def examined(self, steps: Sequence[tuple[str, str, str]]) -> None:
        """Note steps (session id, message id, patch part id) as reviewed, whether or not they
        left hunks: review never looks at them again."""
        await self._write_many(
            "INSERT INTO review_steps (session_id, message_id, step_id) VALUES (?, ?, ?) "
            "ON CONFLICT (step_id) DO NOTHING",
            list(steps),
        )

    async def reviewed_steps(self, session_id: str) -> set[str]:
        """The patch parts review has examined (their hunks are stored, or they had none)."""
        rows = await self._fetchall(
            "SELECT step_id FROM review_steps WHERE session_id = ? "
            "UNION SELECT step_id FROM review_hunks WHERE session_id = ?",
            (session_id, session_id),
        )
        return {str(r[0]) for r in rows}
