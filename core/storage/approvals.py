"""Permission approvals a user gave "always" for, remembered per project."""

from __future__ import annotations

from core import ids
from core.errors import NotFoundError
from core.message.models import now_ms
from core.record import record
from core.storage.base import StoreBase


@record
class Approval:
    """A remembered "always allow" for a permission and pattern in a project."""

    id: str
    project_id: str
    permission: str
    pattern: str
    time_created: int


class ApprovalTable(StoreBase):
    """The permission_approvals table."""

    async def add_approval(self, project_id: str, permission: str, pattern: str) -> str:
        """Remember an approval; returns its id (the existing one if it was already remembered)."""
        async with self._tx() as conn:
            await conn.execute(
                "INSERT INTO permission_approvals (id, project_id, permission, pattern, time_created) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT (project_id, permission, pattern) DO NOTHING",
                (ids.ascending("per"), project_id, permission, pattern, now_ms()),
            )
            async with conn.execute(
                "SELECT id FROM permission_approvals WHERE project_id = ? AND permission = ? AND pattern = ?",
                (project_id, permission, pattern),
            ) as cursor:
                row = await cursor.fetchone()
        assert row is not None  # inserted or already there, in this transaction
        return str(row[0])

    async def list_approvals(self, project_id: str) -> list[Approval]:
        """The project's approvals, oldest first."""
        rows = await self._fetchall(
            "SELECT id, project_id, permission, pattern, time_created FROM permission_approvals "
            "WHERE project_id = ? ORDER BY time_created, id",
            (project_id,),
        )
        return [Approval(r[0], r[1], r[2], r[3], r[4]) for r in rows]

    async def revoke_approval(self, project_id: str, approval_id: str) -> None:
        """Forget an approval (NotFoundError if the project has no such approval)."""
        changed = await self._write(
            "DELETE FROM permission_approvals WHERE id = ? AND project_id = ?", (approval_id, project_id)
        )
        if changed == 0:
            raise NotFoundError(f"approval {approval_id} not found in project {project_id}")
