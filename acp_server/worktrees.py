"""Worktree sessions over ACP (issue 40): ``session/new`` with ``_meta.agentls.worktree`` starts the
session in a new git worktree of the ``cwd``'s repository, on its own branch, so that sessions
running side by side never write the user's checkout or each other's files.

The session's agent is opened in the worktree (the same place in it as ``cwd`` has in the
checkout), as for any other ``cwd``: its tools, files, snapshots and permissions are the
worktree's, and the client reads and writes the worktree's files. It is trusted as the checkout
is. A session loaded or resumed with the checkout's ``cwd`` goes on in its worktree. The worktrees
are listed, diffed, merged and discarded with ``agentls worktrees`` (or from the editors).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp_server.errors import invalid_params, to_request_error
from core.errors import AgentError, InvalidInputError
from core.project_trust import question_for
from core.trust import distrust, is_trusted
from core.worktrees import service
from core.worktrees.service import Worktree

if TYPE_CHECKING:
    from acp_server.projects import ClientMcp, Project, Projects
    from core.message.models import Session

META_KEY = "agentls"  # session/new's ``_meta``: {"agentls": {"worktree": "NAME"}} ("": a name from the time)


def requested(meta: dict[str, Any]) -> str | None:
    """The worktree name ``session/new``'s ``_meta`` asks for, or None (the checkout)."""
    ours = meta.get(META_KEY)
    if ours is None:
        return None
    if not isinstance(ours, dict):
        raise invalid_params(f'_meta.{META_KEY} must be an object such as {{"worktree": "fix-tests"}}')
    name = ours.get("worktree")
    if name is None or isinstance(name, str):
        return name
    raise invalid_params(
        f'_meta.{META_KEY}.worktree must be a string ("": a name from the time), not {name!r}'
    )


def described(session: Session) -> dict[str, Any] | None:
    """The ``_meta`` that tells the client which worktree a session works in."""
    if session.worktree is None:
        return None
    return {META_KEY: {"worktree": session.worktree.model_dump()}}


async def new_session(
    projects: Projects, cwd: Path, servers: list[ClientMcp], name: str
) -> tuple[Project, Session]:
    """A session in a new worktree called ``name`` and its project; nothing is left when a step fails."""
    try:
        repo = await asyncio.to_thread(service.repository, cwd)
        made = await asyncio.to_thread(
            service.create, repo, name or service.default_name(), projects.data_dir
        )
    except AgentError as exc:
        raise to_request_error(exc) from exc
    folder = made.path / await asyncio.to_thread(_inside, cwd, repo)
    try:
        await _trust_as(projects, repo, made)
        project = await projects.get(folder, servers)
        session = await project.app.create_session()
    except BaseException as exc:
        await asyncio.to_thread(service.discard, made)
        if isinstance(exc, AgentError):
            raise to_request_error(exc) from exc
        raise
    return project, session


async def reopen(projects: Projects, session: Session, servers: list[ClientMcp]) -> Project | None:
    """The project a worktree session goes on in (trusted as its checkout is), None for the
    checkout's sessions."""
    if session.worktree is None:
        return None
    made = await asyncio.to_thread(service.owning, Path(session.directory), projects.data_dir)
    if made is None or not await asyncio.to_thread(made.path.is_dir):
        raise to_request_error(
            InvalidInputError(
                f"the worktree {session.worktree.name} of this session is gone ({session.directory})"
            )
        )
    await _trust_as(projects, made.repo, made)
    try:
        return await projects.get(Path(session.directory), servers)
    except AgentError as exc:
        raise to_request_error(exc) from exc


async def _trust_as(projects: Projects, repo: Path, made: Worktree) -> None:
    """Trust the worktree as its checkout is: held back if the checkout is, else not asked again."""
    if not is_trusted(repo):
        distrust(made.path)
    elif repo in projects.trusted or await asyncio.to_thread(question_for, repo, projects.data_dir) is None:
        projects.trusted.add(made.path)


def _inside(directory: Path, repo: Path) -> Path:
    resolved = directory.resolve()
    return resolved.relative_to(repo) if resolved.is_relative_to(repo) else Path()
