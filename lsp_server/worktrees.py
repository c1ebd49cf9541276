"""``agent/worktree/*``: the worktrees of the project's repository — list, diff, merge, discard — and
``agent/session/create {worktree}``'s half that makes one (``lsp_server.worktree_agents`` opens and
routes their agents).

Thin handlers over ``core.worktrees.service`` (git runs on a thread). Discard and merge refuse while
a turn of one of the worktree's sessions runs: the turn would write a folder that is going away, or
half of its edits would be merged.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.config.paths import data_dir
from core.errors import BusyError, InvalidInputError
from core.worktrees import service
from core.worktrees.service import Worktree
from lsp_server import protocol as p

if TYPE_CHECKING:
    from core.api import Agent
    from core.message.models import Session
    from lsp_server.server import AgentServer

PAGE = 200


async def _repository(server: AgentServer) -> Path:
    return await asyncio.to_thread(service.repository, server.root or Path.cwd())


async def _find(server: AgentServer, name: str) -> Worktree:
    repo = await _repository(server)
    return await asyncio.to_thread(service.find, repo, name, data_dir())


async def _sessions(app: Agent) -> list[Session]:
    """Every root session of the project (worktree sessions included: the same project)."""
    found: list[Session] = []
    before: str | None = None
    while True:
        page = await app.list_sessions(PAGE, before)
        found.extend(s for s in page if s.parentID is None)
        if len(page) < PAGE:
            return found
        before = page[-1].id


def _of(made: Worktree, sessions: list[Session]) -> list[str]:
    return [s.id for s in sessions if Path(s.directory).is_relative_to(made.path)]


def _info(made: Worktree, sessions: list[Session]) -> dict[str, Any]:
    state = service.status(made)
    return {
        "name": made.name,
        "branch": made.branch,
        "path": str(made.path),
        "base": made.base,
        "created": int(made.created * 1000),
        "sessionIDs": _of(made, sessions),
        "changed": state.changed,
        "uncommitted": state.uncommitted,
        "merged": state.merged,
        "missing": state.missing,
    }


def _not_while_running(server: AgentServer, made: Worktree, what: str) -> None:
    running = server.worktrees.busy(made)
    if running:
        raise BusyError(
            f"cannot {what} the worktree {made.name} while a turn of its session {running[0]} runs: "
            "stop the turn first"
        )


def register(server: AgentServer) -> None:
    """Add the worktree requests to ``server``."""

    @server.request("agent/worktree/list", p.NoParams)
    async def list_(app: Agent, params: p.NoParams) -> Any:
        try:
            repo = await _repository(server)
        except InvalidInputError as exc:  # not git, or no commit yet: the reason for the client to show
            return {"available": False, "reason": str(exc), "worktrees": []}
        found = await asyncio.to_thread(service.every, repo, data_dir())
        sessions = await _sessions(app)
        infos = await asyncio.gather(*(asyncio.to_thread(_info, made, sessions) for made in found))
        return {"available": True, "reason": None, "worktrees": list(infos)}

    @server.request("agent/worktree/diff", p.WorktreeRef)
    async def diff(app: Agent, params: p.WorktreeRef) -> Any:
        made = await _find(server, params.name)
        if not made.path.is_dir():
            raise InvalidInputError(f"the worktree {made.name} is gone ({made.path}): discard it")
        text = await asyncio.to_thread(service.diff, made)
        state = await asyncio.to_thread(service.status, made)
        return {"diff": text, "files": state.changed}

    @server.request("agent/worktree/merge", p.WorktreeMerge)
    async def merge(app: Agent, params: p.WorktreeMerge) -> Any:
        made = await _find(server, params.name)
        _not_while_running(server, made, "merge")
        merged = await asyncio.to_thread(service.merge, made, params.how)
        return {"outcome": merged.outcome, "message": merged.message, "files": merged.files}

    @server.request("agent/worktree/discard", p.WorktreeRef)
    async def discard(app: Agent, params: p.WorktreeRef) -> Any:
        made = await _find(server, params.name)
        _not_while_running(server, made, "discard")
        for session_id in _of(made, await _sessions(app)):
            await app.delete_session(session_id)  # its transcript cannot go on without its folder
        await server.worktrees.close_one(made)
        await asyncio.to_thread(service.discard, made)
        return {}
