"""Projects and their stable ids.

A project id must survive restarts, upgrades, moves of the checkout and symlinked paths, or its
sessions would "disappear". A git repository with commits is identified by its root commit (the
first of the sorted parentless commits, so every clone and worktree agrees); anything else by a
hash of its canonical (symlink-resolved) path.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from pathlib import Path
from typing import Literal

import aiosqlite

from core.errors import NotFoundError
from core.message.models import now_ms
from core.record import record
from core.storage.base import StoreBase

log = logging.getLogger(__name__)

_GIT_TIMEOUT = 10.0

Vcs = Literal["git"]


@record
class Project:
    """A worktree that sessions belong to."""

    id: str
    worktree: str
    vcs: Vcs | None
    time_created: int


def _canonical(path: Path) -> Path:
    return path.expanduser().resolve()


def path_project_id(worktree: Path) -> str:
    """The id of a project that has no git history: a hash of its canonical path."""
    canonical = str(_canonical(worktree))
    return "prj_" + hashlib.sha256(canonical.encode()).hexdigest()[:40]


async def git_root_commit(worktree: Path) -> str | None:
    """The first (sorted) root commit of the repository at ``worktree``, or None if there is none."""
    try:
        proc = await asyncio.create_subprocess_exec(
            "git",
            "rev-list",
            "--max-parents=0",
            "HEAD",
            cwd=worktree,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
    except OSError as exc:  # no git binary, or the directory is gone
        log.debug("git unavailable in %s: %s", worktree, exc)
        return None
    try:
        async with asyncio.timeout(_GIT_TIMEOUT):
            out, err = await proc.communicate()
    except TimeoutError:
        proc.kill()
        await proc.wait()
        log.warning("git rev-list timed out in %s; identifying the project by its path", worktree)
        return None
    if proc.returncode != 0:
        # Not a repository, or a repository without commits yet.
        log.debug("git rev-list failed in %s: %s", worktree, err.decode(errors="replace").strip())
        return None
    roots = sorted(line.strip() for line in out.decode().splitlines() if line.strip())
    return roots[0] if roots else None


async def project_identity(worktree: Path, git: bool | None = None) -> tuple[str, Vcs | None]:
    """The id and version control system of the project at ``worktree`` (``git=False``: the caller
    knows it is not a git work tree, so its path is the identity without asking git)."""
    root = await git_root_commit(worktree) if git is not False else None
    if root is not None:
        return "prj_" + root, "git"
    return path_project_id(worktree), None


class ProjectTable(StoreBase):
    """The projects table."""

    async def ensure_project(self, worktree: Path, git: bool | None = None) -> Project:
        """The project of ``worktree``, created on first use; its id is stable (see module doc).
        ``git``: whether it is a git work tree, when the caller already knows."""
        canonical = await asyncio.to_thread(_canonical, worktree)
        project_id, vcs = await project_identity(canonical, git)
        async with self._tx() as conn:
            await conn.execute(
                "INSERT INTO projects (id, worktree, vcs, time_created) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (id) DO UPDATE SET worktree = excluded.worktree, vcs = excluded.vcs",
                (project_id, str(canonical), vcs, now_ms()),
            )
            if vcs is not None:
                await _adopt_path_project(conn, path_project_id(canonical), project_id)
            async with conn.execute(
                "SELECT id, worktree, vcs, time_created FROM projects WHERE id = ?", (project_id,)
            ) as cursor:
                row = await cursor.fetchone()
        assert row is not None  # inserted above, in the same transaction
        return Project(row[0], row[1], row[2], row[3])

    async def get_project(self, project_id: str) -> Project:
        """A project by id (NotFoundError if unknown)."""
        row = await self._fetchone(
            "SELECT id, worktree, vcs, time_created FROM projects WHERE id = ?", (project_id,)
        )
        if row is None:
            raise NotFoundError(f"project {project_id} not found")
        return Project(row[0], row[1], row[2], row[3])


async def _adopt_path_project(conn: aiosqlite.Connection, old_id: str, new_id: str) -> None:
    # A directory used before its first commit was known by its path; once it has history it is
    # known by its root commit. Move what belonged to the old id so no session goes missing.
    cursor = await conn.execute(
        "UPDATE sessions SET project_id = ?, body = json_set(body, '$.projectID', ?) WHERE project_id = ?",
        (new_id, new_id, old_id),
    )
    moved = cursor.rowcount
    await conn.execute(
        "UPDATE OR IGNORE permission_approvals SET project_id = ? WHERE project_id = ?", (new_id, old_id)
    )
    await conn.execute("DELETE FROM projects WHERE id = ?", (old_id,))
    if moved:
        log.info("moved %s sessions from project %s to %s (first commit)", moved, old_id, new_id)
